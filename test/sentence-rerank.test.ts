import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { answerQuestion } from '../core/answer/index.js';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig, type CairnConfig } from '../core/config/schema.js';
import type { ChunkSummary, SearchResult } from '../core/contract/search.js';
import type { Embedder } from '../core/embedding/embedder.js';
import { TextVectorCache } from '../core/embedding/textVectorCache.js';
import { seededRandom } from '../core/random/seededRandom.js';
import { emptyExplanation, type FusedHit } from '../core/search/ranking/fusion.js';
import { rerankBySentences } from '../core/search/ranking/sentenceRerank.js';
import { scoreUnits, type ScoredUnit } from '../core/search/sentenceRanker.js';
import type { AnswerSource } from '../core/contract/answer.js';

const WORDS = ('garden soil water tomato seedling balcony morning summer weather rain harvest compost shed tools fence ' +
  'bread oven flour yeast dough kitchen recipe butter sugar salt train ticket station window valley lake mountain ' +
  'piano scale tempo melody chord library book shelf reading letter').split(' ');

/** Seeded notes of generated sentences over a small vocabulary, so that many chunks match any query of its words. */
async function makeVault(dir: string): Promise<void> {
  const rand = seededRandom(5);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const sentence = () => {
    const words = Array.from({ length: 6 + Math.floor(rand() * 8) }, pick);
    return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
  };
  await mkdir(path.join(dir, 'notes'), { recursive: true });
  for (let n = 0; n < 24; n++) {
    const sections = Array.from({ length: 3 }, (_, s) => `## Part ${s + 1}\n\n${Array.from({ length: 3 + Math.floor(rand() * 4) }, sentence).join(' ')}\n`);
    await writeFile(path.join(dir, 'notes', `Note ${n}.md`), `# Note ${n}\n\n${sections.join('\n')}`);
  }
}

function configFor(vault: string, dataDir: string, overrides: (c: CairnConfig) => void = () => {}): CairnConfig {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  config.search.max_chunks_per_note = 3;
  overrides(config);
  return config;
}

function hit(id: string, score: number): FusedHit {
  return { id, note: id.split('#')[0]!, score, explain: { ...emptyExplanation(), rrf: score } };
}

function summary(id: string, text: string): ChunkSummary {
  return { chunkId: id, path: `${id.split('#')[0]}.md`, title: id.split('#')[0]!, headerPath: [], anchor: '', startLine: 1, endLine: text.split('\n').length, text };
}

describe('hybrid search ranks its best chunks again by their best sentence', { timeout: 120_000 }, () => {
  let root: string;
  let vaultDir: string;
  let vault: CairnVault;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-rerank-'));
    vaultDir = path.join(root, 'vault');
    await makeVault(vaultDir);
    vault = await CairnVault.open(configFor(vaultDir, path.join(root, 'data')));
    await vault.index();
  });
  after(async () => {
    await vault.close();
    await rm(root, { recursive: true, force: true });
  });

  /** The stage over these first-stage hits (best first), each chunk's text from `texts`, with the real model. */
  const rerank = (query: string, hits: FusedHit[], texts: Record<string, string>, { depth = hits.length, rrfK = 2 } = {}) =>
    rerankBySentences({
      query,
      hits,
      depth,
      rrfK,
      summaries: async (head) => head.map((h) => ({ chunk: summary(h.id, texts[h.id]!) })),
      embed: (t, as) => vault.embed(t, as),
    });

  it('a chunk whose one sentence answers rises above chunks that only share words; the order is RRF of both stages', async () => {
    const texts: Record<string, string> = {
      'b1#0': 'Tomato seedlings are sold at the market on Saturdays. The balcony railing was painted green. The water bill came on Monday.',
      'b2#0': 'The balcony faces the street. Our seedlings list is in the shed. Morning trains are often late.',
      'b3#0': 'Water the lawn in summer. The tomato soup recipe needs salt. Seedlings of basil smell nice.',
      'a#0': [
        'The train from the coast leaves at dawn and reaches the valley by noon.',
        'Practice scales slowly with a metronome before playing the piece at full tempo.',
        'Bake the bread at a high temperature for forty minutes.',
        'The tomato seedlings on the balcony need water every morning before the sun gets hot.',
        'The library opens late on Thursdays.',
      ].join(' '),
    };
    const hits = ['b1#0', 'b2#0', 'b3#0', 'a#0'].map((id, i) => hit(id, 1 / (i + 1)));
    const rrfK = 2;
    const ranked = await rerank('how often do the tomato seedlings on the balcony need water', hits, texts, { rrfK });
    const sentence = new Map(ranked.map((h) => [h.id, h.explain.sentence]));
    assert.equal(sentence.get('a#0')?.rank, 1, 'the answering sentence ranks first');
    assert.equal(sentence.get('a#0')?.line, 1);
    assert.deepEqual([...sentence.values()].map((s) => s!.rank).sort(), [1, 2, 3, 4]);
    const firstRank = new Map(hits.map((h, i) => [h.id, i + 1]));
    const fused = (id: string) => 1 / (rrfK + firstRank.get(id)!) + 1 / (rrfK + sentence.get(id)!.rank);
    const expected = [...firstRank.keys()].sort((x, y) => fused(y) - fused(x) || firstRank.get(x)! - firstRank.get(y)!);
    assert.deepEqual(ranked.map((h) => h.id), expected);
    assert.ok(ranked.findIndex((h) => h.id === 'a#0') < 3, `a#0 stays last: ${ranked.map((h) => h.id)}`);
    assert.ok(ranked.findIndex((h) => h.id === 'b3#0') > ranked.findIndex((h) => h.id === 'a#0'));
    for (const h of ranked) assert.equal(h.score, fused(h.id));
  });

  it('a chunk with nothing to quote keeps its first-stage place; chunks below the depth keep their order and scores fall', async () => {
    const texts: Record<string, string> = {
      'code#0': '```sh\ngarden-tool --water tomato\n```',
      'x#0': 'The tomato plants need water in the garden every morning.',
      'y#0': 'Water the tomato plants when the soil is dry.',
    };
    const hits = ['code#0', 'x#0', 'y#0', 'z#0', 'w#0'].map((id, i) => hit(id, 1 / (i + 1)));
    const ranked = await rerank('water the tomato plants', hits, texts, { depth: 3 });
    assert.equal(ranked[0]!.id, 'code#0');
    assert.equal(ranked[0]!.explain.sentence, null);
    assert.deepEqual(ranked.slice(3).map((h) => h.id), ['z#0', 'w#0']);
    for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i]!.score <= ranked[i - 1]!.score, `score rises at ${i}`);
  });

  it('a passage scores the same each time, and the same text elsewhere is placed by its own lines', async () => {
    const text = '## Watering\n\nWater the tomato seedlings every morning in summer.\n\n- The compost stays damp after rain.\n- Tools go back in the shed.\n';
    const at = (startLine: number): AnswerSource => ({ ...summary('w#0', text), startLine, endLine: startLine + 6, rank: 1, score: 1, pieces: [{ ...summary('w#0', text), startLine, endLine: startLine + 6 }] });
    const question = 'When should tomato seedlings be watered?';
    const facts = (units: ScoredUnit[], shift = 0) => units.map((u) => [u.unit.plain, u.startLine - shift, u.endLine - shift, u.score, [...u.terms]]);
    const first = await scoreUnits((t, as) => vault.embed(t, as), question, [at(3)]);
    assert.deepEqual(first.map((u) => [u.startLine, u.endLine]), [[5, 5], [7, 7], [8, 8]]);
    assert.deepEqual(facts(await scoreUnits((t, as) => vault.embed(t, as), question, [at(3)])), facts(first));
    assert.deepEqual(facts(await scoreUnits((t, as) => vault.embed(t, as), question, [at(40)]), 37), facts(first));
  });

  it('a model that fails while the units are scored fails the scoring with its reason, handled', async () => {
    const text = '## Baking\n\nThe dough rises in a warm kitchen before it goes in the oven.\n';
    const source: AnswerSource = { ...summary('b#0', text), rank: 1, score: 1, pieces: [summary('b#0', text)] };
    // Fails before the units' terms are worked out: a rejection nobody awaits yet would end the test process.
    await assert.rejects(scoreUnits(() => Promise.reject(new Error('the model process exited')), 'How long does the dough rise?', [source]), /the model process exited/);
  });

  it('an exact title match stays first whatever its sentences say', async () => {
    const texts: Record<string, string> = {
      'title#0': 'See the list below.',
      'x#0': 'Water the tomato plants every morning in summer.',
      'y#0': 'The tomato plants need water when the soil is dry.',
      'z#0': 'Tomato plants want water at their roots, not on their leaves.',
      'w#0': 'Give the tomato plants water before the sun is high.',
    };
    const hits = ['title#0', 'x#0', 'y#0', 'z#0', 'w#0'].map((id, i) => hit(id, 1 / (i + 1)));
    hits[0]!.explain.exactTitle = true;
    const ranked = await rerank('water the tomato plants', hits, texts);
    assert.equal(ranked[0]!.id, 'title#0');
    // By the fused score alone it would not be: first in one order and last in the other, 1/3 + 1/7, loses to the
    // chunk second in one and first in the other, 1/4 + 1/3, and more.
    assert.equal(ranked[0]!.explain.sentence?.rank, 5, 'its own sentence ranks last');
    assert.ok(ranked[1]!.score > ranked[0]!.score);
  });

  it('a hybrid search embeds its query once for both stages, and the answer that follows it not again', async () => {
    // The vault's own embedder, watched: every text it is asked to embed as a query goes to the model process.
    const embedder = (vault as unknown as { embedder: Embedder }).embedder;
    const original = embedder.embed;
    const asked: string[] = [];
    embedder.embed = (texts, ...rest) => (asked.push(...texts), original.call(embedder, texts, ...rest));
    try {
      const query = 'which tempo suits the piano melody in summer';
      const { results } = await vault.search({ query, k: 10 });
      assert.ok(results.some((r) => r.explain.sentence !== null), 'the sentence stage ran');
      assert.equal(asked.filter((t) => t === query).length, 1, 'the query was embedded once');
      const answer = await answerQuestion(vault, query, { mode: 'extractive' });
      assert.ok(answer.citations.length > 0, 'the answer quotes the notes');
      assert.equal(asked.filter((t) => t === query).length, 1, 'the answer used the same vector');
      const other = 'bread and butter for the train';
      await vault.search({ query: other, k: 10, mode: 'keyword' });
      assert.equal(asked.filter((t) => t === other).length, 0, 'keyword search embeds nothing');
      vault.forgetEmbeddedTexts();
      await vault.search({ query, k: 10, mode: 'vector' });
      assert.equal(asked.filter((t) => t === query).length, 2, 'forgotten, the query is embedded again');
    } finally {
      embedder.embed = original;
    }
  });

  it('in the vault: only the re-ranked head changes order, pages fit together, and each head result shows its sentence evidence', async () => {
    const search = (query: string, extra: { k: number; offset?: number; mode?: 'hybrid' | 'keyword' }) => vault.search({ query, ...extra });
    const plain = await CairnVault.open(configFor(vaultDir, path.join(root, 'data'), (c) => (c.search.rerank_depth = 0)));
    let reordered = 0;
    try {
      for (const query of ['tomato seedlings need water', 'bread dough in the oven', 'which train reaches the valley lake']) {
        const reranked = (await search(query, { k: 60 })).results;
        const first = (await plain.search({ query, k: 60 })).results;
        assert.ok(first.length > 35, `${query}: ${first.length} results`);
        const depth = defaultConfig().search.rerank_depth;
        const ids = (rs: SearchResult[]) => rs.map((r) => r.chunkId);
        assert.deepEqual(ids(reranked.slice(0, depth)).sort(), ids(first.slice(0, depth)).sort(), 'the head holds the same chunks');
        assert.deepEqual(ids(reranked.slice(depth)), ids(first.slice(depth)), 'the tail keeps its order');
        if (ids(reranked.slice(0, depth)).join() !== ids(first.slice(0, depth)).join()) reordered++;
        assert.ok(reranked.slice(0, depth).every((r) => r.explain.sentence !== null && r.explain.sentence.rank <= depth));
        assert.ok(first.every((r) => r.explain.sentence === null));
        assert.ok(reranked.slice(depth).every((r) => r.explain.sentence === null));
        for (let i = 1; i < reranked.length; i++) assert.ok(reranked[i]!.score <= reranked[i - 1]!.score, `${query}: score rises at ${i}`);
        const pages: SearchResult[] = [];
        for (let offset = 0; offset < 56; offset += 7) pages.push(...(await search(query, { k: 7, offset })).results);
        assert.deepEqual(ids(pages), ids(reranked.slice(0, 56)), 'pages put together are the long list');
        assert.deepEqual(pages.map((r) => r.score), reranked.slice(0, 56).map((r) => r.score), 'with the same scores');
        const keyword = (await search(query, { k: 10, mode: 'keyword' })).results;
        assert.ok(keyword.every((r) => r.explain.sentence === null), 'keyword mode is one ranker, not re-ranked');
      }
      assert.ok(reordered > 0, 'the second stage changed no order');
    } finally {
      await plain.close();
    }
  });
});

describe('searches and updates interleaved', { timeout: 120_000 }, () => {
  // The texts a search shows are looked up in the ranking's turn, so an update applied while the sentence stage waits
  // for vectors cannot take them away; this interleaving does not force that window, it checks every search answers.
  it('every search answers while the notes it finds are rewritten and re-indexed', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-rerank-race-'));
    const vaultDir = path.join(root, 'vault');
    await makeVault(vaultDir);
    const vault = await CairnVault.open(configFor(vaultDir, path.join(root, 'data')));
    try {
      await vault.index();
      const rand = seededRandom(9);
      for (let round = 0; round < 30; round++) {
        // Rewrite a note the query finds, so its chunks are replaced, while the search is under way.
        const note = path.join(vaultDir, 'notes', `Note ${Math.floor(rand() * 24)}.md`);
        await writeFile(note, `# Rewritten ${round}\n\nTomato seedlings need water on the balcony, round ${round}, ${WORDS[round % WORDS.length]}.\n`);
        const searching = vault.search({ query: `tomato seedlings water balcony ${WORDS[round % WORDS.length]}`, k: 10, neighbours: true });
        const updating = vault.update([path.relative(vaultDir, note)]);
        const [{ results }] = await Promise.all([searching, updating]);
        assert.ok(results.length > 0);
      }
    } finally {
      await vault.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('keyword search runs while the query is embedded', { timeout: 120_000 }, () => {
  it('a change to the index meanwhile is seen: a note removed then is not found, its replacement is', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-early-keywords-'));
    const vaultDir = path.join(root, 'vault');
    await makeVault(vaultDir);
    await writeFile(path.join(vaultDir, 'notes', 'Quince.md'), '# Quince\n\nThe quince jelly sets overnight in the cold larder.\n');
    const vault = await CairnVault.open(configFor(vaultDir, path.join(root, 'data')));
    try {
      await vault.index();
      const query = 'quince jelly larder';
      assert.ok((await vault.search({ query, k: 10, mode: 'keyword' })).results.some((r) => r.path === 'notes/Quince.md'));
      // While the query is with the model, the note goes and another takes its words: applied in full before the
      // vector comes back, so keyword hits taken before the wait would name a chunk the store no longer has.
      const embedder = (vault as unknown as { embedder: Embedder }).embedder;
      const original = embedder.embed;
      let changed = false;
      embedder.embed = async (texts, ...rest) => {
        const vectors = original.call(embedder, texts, ...rest);
        if (!changed && texts.includes(query)) {
          changed = true;
          await rm(path.join(vaultDir, 'notes', 'Quince.md'));
          await writeFile(path.join(vaultDir, 'notes', 'Larder.md'), '# Larder\n\nQuince jelly keeps a year in the larder.\n');
          await vault.update(['notes/Quince.md', 'notes/Larder.md']);
        }
        return vectors;
      };
      try {
        const { results } = await vault.search({ query, k: 10 });
        assert.ok(changed, 'the index changed while the query was embedded');
        assert.ok(!results.some((r) => r.path === 'notes/Quince.md'), 'the removed note is not a result');
        assert.equal(results[0]?.path, 'notes/Larder.md', 'the note that took its words is found first');
      } finally {
        embedder.embed = original;
      }
    } finally {
      await vault.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('a code block the chunker cut into pieces is code in every piece', { timeout: 120_000 }, () => {
  let root: string;
  let vault: CairnVault;
  let vaultDir: string;
  const FLAGS = Array.from({ length: 40 }, (_, i) => `  --flag${i}    water the tomato seedlings on the balcony every morning`);
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-rerank-code-'));
    vaultDir = path.join(root, 'vault');
    await mkdir(vaultDir, { recursive: true });
    await writeFile(path.join(vaultDir, 'Tool.md'), `# Tool\n\n## Options\n\nThe tool takes these flags.\n\n\`\`\`\n${FLAGS.join('\n')}\n\`\`\`\n\nSeedlings on the balcony need water every morning.\n`);
    await writeFile(path.join(vaultDir, 'Garden.md'), '# Garden\n\nThe tomato seedlings get water in the morning, before the sun is high.\n');
    vault = await CairnVault.open(configFor(vaultDir, path.join(root, 'data'), (c) => {
      c.chunking.max_chunk_chars = 400;
      c.chunking.min_chunk_chars = 50;
    }));
    await vault.index();
  });
  after(async () => {
    await vault.close();
    await rm(root, { recursive: true, force: true });
  });

  it('no sentence of a piece that begins inside the block is judged or quoted', async () => {
    const codeLines = { first: 7, last: 8 + FLAGS.length }; // the fences and the flags between them
    const { results } = await vault.search({ query: 'water the tomato seedlings on the balcony', k: 20 });
    const pieces = results.filter((r) => r.path === 'Tool.md');
    assert.ok(pieces.length >= 2, `the block was cut into pieces: ${pieces.length} found`);
    for (const result of results) {
      const line = result.explain.sentence?.line;
      assert.ok(line === undefined || line < codeLines.first || line > codeLines.last, `${result.path}:${result.startLine} judged by code line ${line}`);
    }
    const answer = await answerQuestion(vault, 'How often do the tomato seedlings on the balcony need water?');
    for (const citation of answer.citations) for (const quote of citation.quotes ?? []) assert.ok(!quote.text.includes('--flag'), `code quoted: ${quote.text}`);
  });

  it('an edit before a later piece is seen: the piece is read again, even when its own text (and id) did not change', async () => {
    const query = 'water the tomato seedlings on the balcony';
    const idsOf = async () => new Set((await vault.search({ query, k: 20 })).results.filter((r) => r.path === 'Tool.md').map((r) => r.chunkId));
    const before = await idsOf();
    // The opening fence becomes a line of prose of the same length: the cuts stay where they were, and the flags
    // are text (the closing fence now opens a block that runs to the end of the note).
    await writeFile(path.join(vaultDir, 'Tool.md'), `# Tool\n\n## Options\n\nThe tool takes these flags.\n\nab:\n${FLAGS.join('\n')}\n\`\`\`\n\nSeedlings on the balcony need water every morning.\n`);
    await vault.update(['Tool.md']);
    const { results } = await vault.search({ query, k: 20 });
    const pieces = results.filter((r) => r.path === 'Tool.md');
    assert.ok(pieces.some((r) => r.startLine > 7 && before.has(r.chunkId)), 'a later piece kept its id');
    const flagLines = { first: 8, last: 7 + FLAGS.length };
    assert.ok(
      pieces.some((r) => r.explain.sentence && r.explain.sentence.line >= flagLines.first && r.explain.sentence.line <= flagLines.last),
      `a flag line is judged now: ${JSON.stringify(pieces.map((r) => [r.startLine, r.explain.sentence]))}`,
    );
  });
});

describe('the cache of recently embedded texts', () => {
  const vectorOf = (text: string) => Float32Array.of(text.length, text.charCodeAt(0));

  it('embeds each missing text once per call, returns cached vectors as they were, and drops the least recently used', async () => {
    const calls: string[][] = [];
    const embed = async (missing: string[]) => {
      calls.push(missing);
      return missing.map(vectorOf);
    };
    // Room for three vectors of two dimensions.
    const cache = new TextVectorCache(2, 3 * 2 * 4);
    const first = await cache.embed(['a', 'bb', 'a'], embed);
    assert.deepEqual(calls, [['a', 'bb']]);
    assert.deepEqual(first.map((v) => [...v]), [[1, 97], [2, 98], [1, 97]]);
    const again = await cache.embed(['bb', 'ccc'], embed);
    assert.equal(again[0], first[1], 'the cached vector itself');
    assert.deepEqual(calls.at(-1), ['ccc']);
    await cache.embed(['dddd'], embed); // evicts 'a', the least recently used
    assert.equal(cache.size, 3);
    await cache.embed(['bb', 'a'], embed);
    assert.deepEqual(calls.at(-1), ['a']);
  });

  it('a text evicted by another call while one waits still gets its vector', async () => {
    const cache = new TextVectorCache(2, 2 * 2 * 4);
    await cache.embed(['a'], async (m) => m.map(vectorOf));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiting = cache.embed(['a', 'slow'], async (m) => {
      await gate;
      return m.map(vectorOf);
    });
    await cache.embed(['x', 'y', 'z'], async (m) => m.map(vectorOf));
    release();
    const [a, slow] = await waiting;
    assert.deepEqual([...a!], [1, 97]);
    assert.deepEqual([...slow!], [4, 115]);
  });
});
