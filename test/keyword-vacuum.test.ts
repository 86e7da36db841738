// Vacuuming the keyword index (core/indices/keyword/miniSearchInternals.ts): discarded chunks' postings and emptied
// terms are dropped in turns, while chunks go on being added between them, and searches never notice.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import fc from 'fast-check';
import SearchableMap from 'minisearch/SearchableMap';
import { KeywordIndex, type KeywordDoc } from '../core/indices/keyword/keywordIndex.js';
import { readKeywordIndex } from '../core/indices/keyword/keywordIndexFile.js';
import { termsAfter, type TermPostings } from '../core/indices/keyword/miniSearchInternals.js';

const doc = (id: string, content: string): KeywordDoc => ({ id, path: `${id.split('#')[0]}.md`, title: 'note', aliases: [], headerPath: [], tags: [], content });

/** Every posting of the index as saved and read back, each with whether its chunk is live. */
async function savedPostings(index: KeywordIndex): Promise<Array<{ term: string; doc: number; live: boolean }>> {
  let text = '';
  for await (const piece of index.lines()) text += piece;
  const { index: read } = await readKeywordIndex(Buffer.from(text));
  const all: Array<{ term: string; doc: number; live: boolean }> = [];
  for (const [term, fields] of read.entries()) for (const postings of fields.values()) for (const doc of postings.keys()) all.push({ term, doc, live: read.isLive(doc) });
  return all;
}

/** The same searches as an index built from the live chunks alone: ids, and scores within rounding. */
function assertSearchesAsFresh(index: KeywordIndex, live: Map<string, string>, words: string[]): void {
  const fresh = KeywordIndex.create();
  fresh.upsert([...live].map(([id, content]) => doc(id, content)));
  assert.deepEqual(index.terms().sort(), fresh.terms().sort());
  for (const word of words) {
    const got = index.search(word, 1000);
    const want = fresh.search(word, 1000);
    assert.deepEqual(got.map((hit) => hit.id).sort(), want.map((hit) => hit.id).sort(), word);
    const score = new Map(want.map((hit) => [hit.id, hit.score]));
    for (const hit of got) assert.ok(Math.abs(hit.score - score.get(hit.id)!) <= 1e-6 * score.get(hit.id)!, `${word}: ${hit.id}`);
  }
}

describe('keyword index vacuum', () => {
  test('walking the term tree from any term gives every later term once, in order, whatever the tree became', () => {
    const word = fc.stringMatching(/^[abcé検]{1,6}$/);
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 60 }), fc.option(word, { nil: undefined }), (words, after) => {
        const tree = new SearchableMap<TermPostings>();
        for (const w of words) tree.set(w, new Map());
        const walked = [...termsAfter((tree as unknown as { _tree: never })._tree, '', after)].map(([term]) => term);
        assert.deepEqual(walked, [...words].sort().filter((w) => after === undefined || w > after));
      }),
      { numRuns: 500 },
    );
  });

  test('after discards and adds in any order, searches are those of a fresh index', async () => {
    const WORDS = ['alpha', 'alp', 'alpine', 'beta', 'bet', 'gamma', 'gam', 'delta'];
    const opArb = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), from: fc.integer({ min: 0, max: 400 }), count: fc.integer({ min: 1, max: 120 }), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }) }),
      fc.record({ kind: fc.constant('remove' as const), from: fc.integer({ min: 0, max: 400 }), count: fc.integer({ min: 1, max: 200 }) }),
      fc.record({ kind: fc.constant('turn' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), fc.constantFrom(undefined, 0), async (ops, vacuumTurnMs) => {
        const index = KeywordIndex.create({ vacuumTurnMs });
        const live = new Map<string, string>();
        for (const op of ops) {
          const ids = Array.from({ length: op.kind === 'turn' ? 0 : op.count }, (_, i) => `n${op.kind === 'turn' ? 0 : op.from + i}#0`);
          if (op.kind === 'add') {
            // Each chunk also gets a word of its own: vacuuming then empties terms, and new ones split the tree's edges.
            const docs = ids.map((id, i) => doc(id, `${op.words.join(' ')} own${op.from + i}x${ops.indexOf(op)}`));
            index.upsert(docs);
            for (const d of docs) live.set(d.id, d.content);
          } else if (op.kind === 'remove') {
            index.remove(ids);
            for (const id of ids) live.delete(id);
          } else await nextTurn();
        }
        await index.settle();
        assertSearchesAsFresh(index, live, [...WORDS, 'own1x0', 'own5x1']);
      }),
      { numRuns: 60 },
    );
  });

  test('a vacuum leaves no dead posting and no emptied term, while adds of new terms go on between its turns', async () => {
    // Long made-up words make long edges in the term tree; new words sharing their first letters split those edges
    // under the walk. (MiniSearch's own vacuum, walking with a snapshot of each node's edges, failed on exactly this:
    // "Cannot read properties of undefined", as an unhandled rejection.)
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = (n: number) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');
    const words = Array.from({ length: 6_000 }, () => word(12));
    const many = Array.from({ length: 2_000 }, (_, i) => doc(`v#${i}`, `shared ${words[3 * i]} ${words[3 * i + 1]} ${words[3 * i + 2]}`));
    // Turns of a fraction of a millisecond: the walk spans many, with adds between them.
    const index = KeywordIndex.create({ vacuumTurnMs: 0.2 });
    index.upsert(many);
    const live = new Map(many.map((d) => [d.id, d.content]));
    const gone = many.filter((_, i) => i % 3 === 0).map((d) => d.id);
    index.remove(gone); // a third discarded: a vacuum starts
    for (const id of gone) live.delete(id);
    let settled = false;
    const settling = index.settle().then(() => (settled = true));
    let rounds = 0;
    const added: string[] = [];
    while (!settled) {
      await nextTurn();
      const docs = Array.from({ length: 50 }, (_, i) => {
        const old = words[Math.floor(random() * words.length)]!;
        return doc(`new${rounds}#${i}`, `shared ${old.slice(0, 2 + Math.floor(random() * 8))}${word(4)}`);
      });
      index.upsert(docs);
      for (const d of docs) (live.set(d.id, d.content), added.push(d.content.split(' ')[1]!));
      rounds++;
    }
    await settling;
    assert.ok(rounds > 5, `the vacuum took ${rounds} turn(s): too few to test adds between its turns`);
    const saved = await savedPostings(index);
    assert.deepEqual(saved.filter((p) => !p.live), []);
    const savedTerms = new Set(saved.map((p) => p.term));
    assert.ok(!savedTerms.has(words[0]!) && !savedTerms.has(words[2]!), 'terms of discarded chunks only are gone');
    assert.ok(savedTerms.has(words[3]!) && added.every((term) => savedTerms.has(term)));
    assertSearchesAsFresh(index, live, ['shared', words[3]!, words[7]!, added[0]!, added.at(-1)!]);
  });
  test('a word whose every chunk was discarded and vacuumed away is found again once a new chunk holds it', async () => {
    // Vacuuming takes the emptied term out of the term tree: the new chunk's posting must go back where searches
    // look, not to postings remembered from before (a cache of terms' postings across adds got this wrong).
    const index = KeywordIndex.create();
    index.upsert(Array.from({ length: 200 }, (_, i) => doc(`n${i}#0`, `gamma own${i}`)));
    index.remove(Array.from({ length: 200 }, (_, i) => `n${i}#0`));
    await index.settle();
    assert.deepEqual(index.terms(), []);
    index.upsert([doc('m1#0', 'gamma fresh')]);
    assert.deepEqual(index.search('gamma', 10).map((hit) => hit.id), ['m1#0']);
    assertSearchesAsFresh(index, new Map([['m1#0', 'gamma fresh']]), ['gamma', 'fresh', 'own1']);
  });
});
