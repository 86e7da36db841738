import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CairnVault } from '../core/app/index.js';
import { KeywordIndex } from '../core/indices/keyword/keywordIndex.js';
import { convexFusion } from '../core/search/ranking/fusion.js';
import { parseFusionDefaults, readFusionDefaults } from '../core/embedding/fusionDefaults.js';
import { keywordConfidence, vectorConfidence } from '../core/search/ranking/confidence.js';
import { indexedNotesVault } from './support/notesVault.js';

describe('ranker confidence', () => {
  it('keyword: certain on an exact title, high when the best score stands far above the 10th, low when flat', () => {
    assert.equal(keywordConfidence([5, 5, 5], true), 1);
    assert.equal(keywordConfidence([], false), 0);
    const flat = Array.from({ length: 12 }, (_, i) => 10 - i * 0.1);
    const peaked = [40, ...Array.from({ length: 11 }, () => 4)];
    assert.ok(keywordConfidence(flat, false) < 0.1);
    assert.ok(keywordConfidence(peaked, false) > 0.85);
  });

  it('keyword: a best hit holding a small part of the question is little evidence, however steep the curve', () => {
    const peaked = [40, ...Array.from({ length: 11 }, () => 4)];
    assert.ok(Math.abs(keywordConfidence(peaked, false, 0.2) - 0.2 * keywordConfidence(peaked, false)) < 1e-12);
    assert.equal(keywordConfidence(peaked, true, 0.2), 1, 'an exact title is certain');
  });

  it('keyword coverage: the IDF-weighted share of the query\'s words the first hit holds; a word the notes lack weighs most', () => {
    const index = KeywordIndex.create();
    const doc = (id: string, content: string) => ({ id, path: `${id}.md`, title: id, aliases: [], headerPath: [], tags: [], content });
    index.upsert([
      doc('a', 'The recurrence rule repeats the task every week.'),
      ...Array.from({ length: 8 }, (_, i) => doc(`n${i}`, `Notes about the week number ${i}.`)),
    ]);
    const [whole] = index.search('recurrence rule', 10);
    assert.equal(whole.id, 'a');
    assert.equal(whole.coverage, 1);
    const [part, next] = index.search('recurrence chore', 10);
    assert.equal(part.id, 'a');
    assert.equal(next, undefined);
    // "chore" is in no note: it weighs the most a word can, so the hit holds less than half of the question.
    assert.ok(part.coverage! > 0.3 && part.coverage! < 0.5, `coverage ${part.coverage}`);
    const [common] = index.search('week recurrence', 10);
    // "week" is in every note, "recurrence" in one: holding the rare word is most of the question.
    assert.equal(common.id, 'a');
    assert.equal(common.coverage, 1);
    const [rare] = index.search('week elephant', 10);
    assert.ok(rare.coverage! < 0.2, `the hit holds only the common word: ${rare.coverage}`);
  });

  it('vector: the margin from the best to the 10th similarity, as a share of the room above the 10th', () => {
    const crowded = Array.from({ length: 10 }, (_, i) => 0.8 - i * 0.002);
    assert.ok(Math.abs(vectorConfidence(crowded) - 0.018 / 0.218) < 1e-9);
    assert.ok(vectorConfidence([0.95, ...Array.from({ length: 9 }, () => 0.5)]) > 0.85);
    assert.equal(vectorConfidence([]), 0);
  });
});

describe('convex fusion ([search] fusion = "convex")', () => {
  it('sums each ranking\'s weight × min-max normalised score; a chunk one list did not return counts 0 there', () => {
    const fused = convexFusion([
      { name: 'keyword', weight: 1, ids: ['a', 'b', 'c'], scores: [30, 20, 10] },
      { name: 'vector', weight: 0.5, ids: ['c', 'd'], scores: [0.9, 0.7] },
    ]);
    assert.deepEqual(
      [...fused].map(([id, e]) => [id, e.rrf]),
      [['a', 1], ['b', 0.5], ['c', 0.5], ['d', 0]],
    );
    assert.deepEqual([fused.get('c')!.keywordScore, fused.get('c')!.vectorScore], [10, 0.9]);
  });
});

describe('fusion defaults that come with the model', () => {
  it('are read from the bundled model folder', async () => {
    const defaults = await readFusionDefaults(path.resolve('models/cairn-glove-100d'));
    assert.ok(defaults.rrf_k >= 1 && defaults.keyword_weight > 0 && defaults.vector_weight > 0);
  });

  it('a model without cairn.json gets the generic ones; a bad value is an error naming the file and key', async () => {
    assert.deepEqual(await readFusionDefaults(os.tmpdir() + '/no-such-model-folder'), { rrf_k: 60, keyword_weight: 1, vector_weight: 1 });
    assert.throws(() => parseFusionDefaults('{"fusion": {"vector_weight": "high"}}', '/m/cairn.json'), /\/m\/cairn\.json: fusion\.vector_weight must be a number/);
    assert.throws(() => parseFusionDefaults('{"fusion": {"rrf": 5}}', '/m/cairn.json'), /\/m\/cairn\.json: fusion\.rrf is not a fusion setting/);
    assert.throws(() => parseFusionDefaults('{fusion', '/m/cairn.json'), /\/m\/cairn\.json: not valid JSON/);
  });
});

describe('query words that shape a question', () => {
  it('"like", "how do I", "what is" are never matched', () => {
    const index = KeywordIndex.create();
    const doc = (id: string, content: string) => ({ id, path: `${id}.md`, title: id, aliases: [], headerPath: [], tags: [], content });
    index.upsert([doc('pets', 'I like cats and what is more I like dogs. How do I feed them?'), doc('sorting', 'Sorting tasks by due date.')]);
    const hits = index.search('how do I do something like sorting', 10, { withTerms: true });
    assert.deepEqual(hits.map((h) => h.id), ['sorting']);
    assert.deepEqual(hits[0].terms, ['sorting']);
  });
});

describe('hybrid search keeps a strong keyword hit above weak vector hits', () => {
  let opened: Awaited<ReturnType<typeof indexedNotesVault>>;
  let vault: CairnVault;
  before(async () => {
    const notes: Record<string, string> = {
      // The passage that names the exact phrase, among unrelated errands: keyword search finds it far ahead of the rest.
      'Errands.md':
        '# Errands\n\nBought bread, milk, eggs, coffee filters and batteries for the remote; the bike tyre needs air.\n\n## Saturday\n\nThe quokka calibration procedure: tare first. Then groceries, laundry, the post office and the bank.\n',
    };
    // Many notes on the topic of the query's common words: the word vectors rank them all close to the query.
    for (let i = 0; i < 20; i++) {
      notes[`Instrument ${i}.md`] = `# Instrument ${i}\n\nCalibration of laboratory instrument ${i}: the calibration of scales, balances and thermometers follows a written method, checked against reference weights every month.\n`;
    }
    opened = await indexedNotesVault('cairn-fusion-', notes);
    vault = opened.vault;
  });
  after(() => opened?.remove());

  it('the exact-phrase keyword hit comes first in hybrid mode, with each ranker\'s evidence in its explanation', async () => {
    const keyword = await vault.search({ query: 'quokka calibration procedure', mode: 'keyword', k: 5 });
    assert.equal(keyword.results[0].path, 'Errands.md', 'keyword search finds the phrase first');
    const hybrid = await vault.search({ query: 'quokka calibration procedure', k: 5 });
    const top = hybrid.results[0];
    assert.equal(top.path, 'Errands.md', `hybrid kept it first (got ${hybrid.results.map((r) => r.path).join(', ')})`);
    assert.equal(top.explain.keywordRank, 1);
    assert.ok(top.explain.keywordScore! > 0, 'the BM25 score is shown');
    assert.ok(top.explain.weights.keyword > top.explain.weights.vector, `the confident keyword ranking weighs more (${JSON.stringify(top.explain.weights)})`);
    assert.equal(top.explain.keywordCoverage, 1, 'its best hit holds every word of the query');
    const vectorOnly = hybrid.results.find((r) => r.explain.vectorRank !== null);
    assert.ok(vectorOnly && vectorOnly.explain.vectorScore! > 0 && vectorOnly.explain.vectorScore! <= 1, 'the cosine similarity is shown');
  });
});
