// Over 400 lines: each vector backend (flat, faiss, HNSW, 8-bit) runs the same suites.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  createVectorIndex,
  faissStatus,
  loadVectorIndex,
  VectorIndexCorruptError,
  type VectorHit,
  type VectorIndex,
  type VectorIndexOptions,
} from '../core/indices/vector/vectorIndex.js';
import { buildHnswGraph } from '../core/indices/vector/hnswGraphBuild.js';
import { requireFaiss } from '../core/indices/vector/faissRuntime.js';
import { HNSW_EF_SEARCH, hnswParamsOffset } from '../core/indices/vector/hnswTuning.js';
import { VectorStore } from '../core/indices/vector/vectorStore.js';
import { saveIndexFiles } from '../core/indices/vector/vectorIndexFiles.js';
import { FAISS_FLAT_FOURCC } from '../core/indices/vector/faissFlatBackend.js';
import { faissFlatFile } from '../core/indices/vector/faissFlatFile.js';
import { seededRandom } from '../core/random/seededRandom.js';

// ---------------------------------------------------------------- helpers

function randomUnitVectors(count: number, dims: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: count }, () => {
    const values = Array.from({ length: dims }, gaussian);
    const norm = Math.hypot(...values);
    return Float32Array.from(values, (v) => v / norm);
  });
}

/** Brute-force reference: entries in label order (Map order, replace = delete + set). */
function exactSearch(entries: Map<string, Float32Array>, query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
  const scored: Array<VectorHit & { order: number }> = [];
  let order = 0;
  for (const [id, vector] of entries) {
    order++;
    if (accept && !accept(id)) continue;
    let dot = 0;
    for (let i = 0; i < vector.length; i++) dot += vector[i] * query[i];
    scored.push({ id, score: Math.fround(dot), order });
  }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.slice(0, k).map(({ id, score }) => ({ id, score }));
}

const DIMS = 64;
const COUNT = 2000;

const FAISS_FLAT: VectorIndexOptions = { dims: DIMS, backend: 'faiss', kind: 'flat', hnswThreshold: 1e9 };
const FAISS_HNSW: VectorIndexOptions = { dims: DIMS, backend: 'faiss', kind: 'hnsw', hnswThreshold: 1e9 };
const TS_FLAT: VectorIndexOptions = { dims: DIMS, backend: 'flat', kind: 'flat', hnswThreshold: 1e9 };
/** 8-bit codes from 100 vectors on, best candidates re-scored exactly: expected to rank exactly as faiss flat. */
const FAISS_SQ8: VectorIndexOptions = { ...FAISS_FLAT, quantiseThreshold: 100 };
const CONFIGS = [
  { name: 'faiss flat', options: FAISS_FLAT },
  { name: 'faiss flat 8-bit', options: FAISS_SQ8 },
  { name: 'faiss HNSW', options: FAISS_HNSW },
  { name: 'TS flat', options: TS_FLAT },
] as const;

const corpus = randomUnitVectors(COUNT, DIMS, 1);
const queries = randomUnitVectors(50, DIMS, 2);
const idOf = (i: number) => `note-${i}.md#chunk`;

/** An index of these vectors; an HNSW one with its graph (graphs are built in the background). */
async function built(options: VectorIndexOptions, vectors: readonly Float32Array[] = corpus, ids: (i: number) => string = idOf): Promise<VectorIndex> {
  const index = createVectorIndex(options);
  index.upsert(vectors.map((vector, i) => ({ id: ids(i), vector })));
  return graphBuilt(index);
}

/** Starts the graph build a search would start (none for flat indexes, or a fresh graph), and waits for it. */
async function graphBuilt(index: VectorIndex): Promise<VectorIndex> {
  if (index.size > 0) index.search(queries[0], 1);
  await index.settled();
  return index;
}

function assertSameHits(actual: VectorHit[], expected: VectorHit[], tolerance = 1e-5, message?: string): void {
  assert.deepEqual(
    actual.map((hit) => hit.id),
    expected.map((hit) => hit.id),
    message,
  );
  actual.forEach((hit, i) => assert.ok(Math.abs(hit.score - expected[i].score) <= tolerance, `${message ?? ''} score of ${hit.id}: ${hit.score} vs ${expected[i].score}`));
}

function recallAt(actual: VectorHit[], expected: VectorHit[]): number {
  const wanted = new Set(expected.map((hit) => hit.id));
  return actual.filter((hit) => wanted.has(hit.id)).length / expected.length;
}

let tmpRoot: string;
before(async () => {
  tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-vectors-'));
});
after(async () => {
  await fs.rm(tmpRoot, { recursive: true, force: true });
});
let dirCount = 0;
const freshDir = () => path.join(tmpRoot, `index-${++dirCount}`);

// ---------------------------------------------------------------- tests

describe('backend choice', () => {
  test('faiss-node loads on this machine and backend "auto" uses faiss (proves faiss is the active backend in CI)', async () => {
    assert.deepEqual(faissStatus(), { available: true });
    const index = createVectorIndex({ dims: DIMS, backend: 'auto', kind: 'auto', hnswThreshold: 10_000 });
    assert.equal(index.backend, 'faiss');
    assert.equal(index.kind, 'flat');
  });

  test('backend "flat" is the TypeScript index, and it refuses kind "hnsw"', async () => {
    assert.equal(createVectorIndex(TS_FLAT).backend, 'flat');
    assert.equal(createVectorIndex({ ...TS_FLAT, kind: 'auto', hnswThreshold: 1 }).kind, 'flat');
    assert.throws(() => createVectorIndex({ ...TS_FLAT, kind: 'hnsw' }), /hnsw.*faiss/i);
  });

  test('kind "auto" switches to HNSW at hnswThreshold and back to flat well below it', async () => {
    const index = createVectorIndex({ dims: DIMS, backend: 'faiss', kind: 'auto', hnswThreshold: 100 });
    index.upsert(corpus.slice(0, 99).map((vector, i) => ({ id: idOf(i), vector })));
    assert.equal(index.kind, 'flat');
    index.upsert([{ id: idOf(99), vector: corpus[99] }]);
    assert.equal(index.kind, 'hnsw');
    index.remove([idOf(0), idOf(1)]);
    assert.equal(index.kind, 'hnsw', 'no flip-flopping just under the threshold');
    index.remove(Array.from({ length: 60 }, (_, i) => idOf(i)));
    assert.equal(index.kind, 'flat');
    const reference = new Map(corpus.slice(60, 100).map((vector, i) => [idOf(i + 60), vector]));
    assertSameHits(index.search(queries[0], 10), exactSearch(reference, queries[0], 10));
  });

  test('rejects impossible options', async () => {
    assert.throws(() => createVectorIndex({ ...TS_FLAT, dims: 0 }), /dims/);
    assert.throws(() => createVectorIndex({ ...TS_FLAT, hnswThreshold: 0 }), /hnswThreshold/);
  });
});

describe('search quality', () => {
  const reference = new Map(corpus.map((vector, i) => [idOf(i), vector]));

  test('faiss flat and TS flat return identical rankings and scores on 2,000 x 64 for 50 queries', async () => {
    const faissFlat = await built(FAISS_FLAT);
    const tsFlat = await built(TS_FLAT);
    assert.equal(faissFlat.backend, 'faiss');
    assert.equal(tsFlat.backend, 'flat');
    for (const query of queries) {
      const exact = exactSearch(reference, query, 10);
      assertSameHits(faissFlat.search(query, 10), exact, 0);
      assertSameHits(tsFlat.search(query, 10), exact, 0);
    }
  });

  test("faiss flat gives the TS index's exact hits and scores in any build order, for rows within rounding of one another (generated)", async () => {
    // faiss scores float rows with BLAS, whose rounding depends on where a row sits in a block: rows whose scores
    // differ by about that rounding must still rank alike whatever order they were added in.
    const dims = 101;
    const random = seededRandom(11);
    const [base, ...noise] = randomUnitVectors(301, dims, 12);
    const near = noise.map((n) => {
      const size = 2e-4 + random() * 2e-3;
      const values = base.map((b, j) => b + size * n[j]);
      const norm = Math.hypot(...values);
      return Float32Array.from(values, (v) => v / norm);
    });
    const vectors = [...near, ...randomUnitVectors(700, dims, 13)];
    const entries = vectors.map((vector, i) => ({ id: `near-${i}`, vector }));
    const options = (backend: 'faiss' | 'flat'): VectorIndexOptions => ({ dims, backend, kind: 'flat', hnswThreshold: 1e9 });
    const inOrder = createVectorIndex(options('faiss'));
    inOrder.upsert(entries);
    const reversed = createVectorIndex(options('faiss'));
    reversed.upsert(entries.slice(500).reverse());
    reversed.upsert(entries.slice(0, 500).reverse());
    const reference = createVectorIndex(options('flat'));
    reference.upsert(entries);
    assert.equal(inOrder.backend, 'faiss');
    for (const query of [base, ...near.slice(0, 10)]) {
      for (const k of [1, 7, 16, 17, 40, 100, 299, 300, 301]) {
        const expected = reference.search(query, k);
        assert.deepEqual(inOrder.search(query, k), expected, `k=${k}`);
        assert.deepEqual(reversed.search(query, k), expected, `k=${k}, reversed`);
      }
    }
  });

  test('equal scores rank by id, not insertion order, on every backend', async () => {
    const [special, ...others] = randomUnitVectors(31, DIMS, 3);
    const vectors = others.flatMap((other) => [special, other]); // duplicates at even labels
    // By id: dup-0, dup-10, dup-12 … (not dup-0, dup-2, dup-4 …, the insertion order).
    const expected = Array.from({ length: 30 }, (_, i) => `dup-${2 * i}`).sort().slice(0, 8);
    for (const { name, options } of CONFIGS) {
      const index = await built(options, vectors, (i) => `dup-${i}`);
      const hits = index.search(special, 8);
      if (options.kind === 'flat') {
        assert.deepEqual(
          hits.map((hit) => hit.id),
          expected,
          name,
        );
      } else {
        // HNSW may find any 8 of the 30 copies, but lists them by id too.
        const ids = hits.map((hit) => hit.id);
        assert.ok(ids.every((id) => Number(id.slice(4)) % 2 === 0), name);
        assert.deepEqual(ids, ids.toSorted(), name);
      }
    }
  });

  test('HNSW recall@10 against exact search is at least 0.9', async () => {
    const hnsw = await built(FAISS_HNSW);
    assert.equal(hnsw.kind, 'hnsw');
    assert.equal(hnsw.backend, 'faiss');
    let recall = 0;
    for (const query of queries) recall += recallAt(hnsw.search(query, 10), exactSearch(reference, query, 10));
    recall /= queries.length;
    assert.ok(recall >= 0.9, `recall@10 = ${recall}`);
  });

  test('empty index returns [] (no faiss abort), k larger than size returns everything, k < 1 returns []', async () => {
    for (const { name, options } of CONFIGS) {
      const index = createVectorIndex(options);
      assert.deepEqual(index.search(queries[0], 10), [], name);
      index.upsert(corpus.slice(0, 5).map((vector, i) => ({ id: idOf(i), vector })));
      const hits = index.search(queries[0], 50);
      assert.equal(hits.length, 5, name);
      assert.deepEqual(new Set(hits.map((hit) => hit.id)), new Set(index.ids()), name);
      assert.deepEqual(index.search(queries[0], 0), [], name);
      index.remove(index.ids());
      assert.equal(index.size, 0, name);
      assert.deepEqual(index.search(queries[0], 3), [], name);
    }
  });
});

describe('accept filter', () => {
  const reference = new Map(corpus.map((vector, i) => [idOf(i), vector]));
  for (const { name, options } of CONFIGS) {
    test(`${name}: returns only accepted ids and still k of them`, async () => {
      const index = await built(options);
      const everyFifth = (id: string) => Number(/\d+/.exec(id)![0]) % 5 === 0;
      let recall = 0;
      for (const query of queries.slice(0, 20)) {
        const hits = index.search(query, 10, everyFifth);
        assert.equal(hits.length, 10);
        assert.ok(hits.every((hit) => everyFifth(hit.id)));
        const exact = exactSearch(reference, query, 10, everyFifth);
        if (options.kind === 'hnsw') recall += recallAt(hits, exact) / 20;
        else assertSameHits(hits, exact);
      }
      if (options.kind === 'hnsw') assert.ok(recall >= 0.9, `filtered recall@10 = ${recall}`);

      const few = new Set([idOf(3), idOf(1500), idOf(1999)]);
      const rare = index.search(queries[0], 10, (id) => few.has(id));
      assert.deepEqual(new Set(rare.map((hit) => hit.id)), few, 'a rare filter still finds every accepted id');
      assert.deepEqual(index.search(queries[0], 10, () => false), []);
    });
  }
});

describe('deletions and replacement', () => {
  const removedIds = new Set(Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 4 === 1).map(idOf));
  const remaining = corpus.map((vector, i) => ({ id: idOf(i), vector })).filter((item) => !removedIds.has(item.id));

  for (const { name, options } of CONFIGS) {
    test(`${name}: removed ids are gone, size drops, results equal a fresh index of the remaining vectors`, async () => {
      const index = await built(options);
      index.search(queries[0], 10); // make sure an HNSW graph exists before the removal
      assert.equal(index.remove([...removedIds, 'no-such-id', idOf(1)]), removedIds.size);
      assert.equal(index.size, COUNT - removedIds.size);
      assert.equal(index.remove(removedIds), 0, 'removing again removes nothing');
      for (const id of removedIds) assert.equal(index.has(id), false);
      assert.deepEqual(index.ids(), remaining.map((item) => item.id));

      // A quarter removed: HNSW builds a new graph, the same one a fresh index of the remaining vectors gets.
      await graphBuilt(index);
      const fresh = createVectorIndex(options);
      fresh.upsert(remaining);
      await graphBuilt(fresh);
      for (const query of queries) {
        const hits = index.search(query, 20);
        assert.ok(hits.every((hit) => !removedIds.has(hit.id)));
        assertSameHits(hits, fresh.search(query, 20), 0);
      }
      for (const id of [idOf(1), idOf(5), idOf(1997)]) {
        const ownVector = corpus[Number(/\d+/.exec(id)![0])];
        assert.ok(!index.search(ownVector, 50).some((hit) => hit.id === id), `${id} is still found by its own vector`);
      }
    });

    test(`${name}: a few removals (kept as tombstones in HNSW) never come back and k is still met`, async () => {
      const index = await built(options);
      index.search(queries[0], 10);
      const gone = new Set(Array.from({ length: 50 }, (_, i) => idOf(i * 40)));
      index.remove(gone);
      const reference = new Map(corpus.map((vector, i) => [idOf(i), vector] as const).filter(([id]) => !gone.has(id)));
      let recall = 0;
      for (const query of queries) {
        const hits = index.search(query, 10);
        assert.equal(hits.length, 10);
        assert.ok(hits.every((hit) => !gone.has(hit.id)));
        recall += recallAt(hits, exactSearch(reference, query, 10)) / queries.length;
      }
      for (const id of gone) {
        assert.ok(!index.search(corpus[Number(/\d+/.exec(id)![0])], 5).some((hit) => hit.id === id));
      }
      assert.ok(recall >= (options.kind === 'hnsw' ? 0.9 : 1), `recall@10 = ${recall}`);
    });

    test(`${name}: a relabelled vector is found under its new id only, after removals and a save too`, async () => {
      const index = await built(options);
      index.search(queries[0], 1);
      const moves = Array.from({ length: 40 }, (_, i): [string, string] => [idOf(i * 13), `moved-${i}`]);
      assert.equal(index.relabel([...moves, [idOf(1), idOf(2)], ['no-such-id', 'moved-x']]), moves.length);
      index.remove(Array.from({ length: 30 }, (_, i) => idOf(i * 11 + 5)));
      assert.equal(index.has(idOf(13)), false);
      assert.equal(index.has('moved-1'), true);
      for (const [i, [, to]] of moves.entries()) {
        const own = corpus[i * 13];
        const [top] = index.search(own, 1);
        assert.equal(top?.id, to, `${to} is its own nearest vector`);
        assert.deepEqual(index.vectorOf(to), own);
      }
      const dir = freshDir();
      await index.save(dir);
      const loaded = await loadVectorIndex(dir, options);
      assert.deepEqual(loaded.ids(), index.ids());
      for (const query of queries) assertSameHits(loaded.search(query, 10), index.search(query, 10), 0);
    });

    test(`${name}: upsert of an existing id replaces its vector`, async () => {
      const index = await built(options);
      index.search(queries[0], 1);
      const [replacement] = randomUnitVectors(1, DIMS, 99);
      const id = idOf(123);
      index.upsert([{ id, vector: replacement }]);
      assert.equal(index.size, COUNT);
      const top = index.search(replacement, 1)[0];
      assert.equal(top.id, id);
      assert.ok(Math.abs(top.score - 1) < 1e-5);
      const old = index.search(corpus[123], 5);
      assert.notEqual(old[0].id, id, 'the old vector no longer matches itself');
      const hit = index.search(corpus[123], COUNT).find((h) => h.id === id);
      const expected = corpus[123].reduce((sum, v, i) => sum + v * replacement[i], 0);
      assert.ok(hit && Math.abs(hit.score - expected) < 1e-5);
    });
  }

  test('vectors of the wrong size or with NaN throw a clear Error, change nothing, and the process survives', async () => {
    for (const { name, options } of CONFIGS) {
      const index = await built(options, corpus.slice(0, 10));
      const before = index.ids();
      assert.throws(
        () => index.upsert([{ id: 'fine', vector: corpus[11] }, { id: 'short', vector: new Float32Array(DIMS - 1) }]),
        (error: Error) => /"short".*63 dimensions.*64/.test(error.message),
        name,
      );
      assert.throws(() => index.upsert([{ id: 'nan', vector: new Float32Array(DIMS).fill(Number.NaN) }]), /non-finite/, name);
      assert.throws(() => index.upsert([{ id: 'plain', vector: [...corpus[0]] as unknown as Float32Array }]), /Float32Array/, name);
      assert.throws(() => index.search(new Float32Array(DIMS + 1), 3), /query.*65 dimensions/i, name);
      assert.deepEqual(index.ids(), before, name);
      assert.equal(index.search(corpus[0], 1)[0].id, idOf(0), name);
    }
  });
});

describe('8-bit quantised faiss flat index (above quantiseThreshold)', () => {
  const nativeHead = async (dir: string) => {
    const header = JSON.parse(await fs.readFile(path.join(dir, 'vector-index.json'), 'utf8')) as { nativeFile: string };
    return (await fs.readFile(path.join(dir, header.nativeFile))).toString('latin1', 0, 4);
  };

  test('re-scored SQ8 top-k equals exact top-k (ids and exact scores) on 6,000 x 384 generated vectors', async () => {
    const dims = 384;
    const vectors = randomUnitVectors(6000, dims, 7);
    const probes = randomUnitVectors(40, dims, 8);
    const options: VectorIndexOptions = { dims, backend: 'faiss', kind: 'flat', hnswThreshold: 1e9, quantiseThreshold: 1000 };
    const index = createVectorIndex(options);
    const reference = new Map(vectors.map((vector, i) => [idOf(i), vector]));
    index.upsert([...reference].map(([id, vector]) => ({ id, vector })));
    let recall = 0;
    for (const probe of probes) {
      const expected = exactSearch(reference, probe, 50);
      const hits = index.search(probe, 50);
      recall += recallAt(hits, expected) / probes.length;
      // Every hit carries its exact score, whatever the 8-bit estimate was.
      for (const hit of hits) assert.equal(hit.score, exactSearch(new Map([[hit.id, reference.get(hit.id)!]]), probe, 1)[0].score);
    }
    assert.ok(recall >= 0.999, `recall@50 = ${recall}`);
    const dir = freshDir();
    await index.save(dir);
    assert.equal(await nativeHead(dir), 'IxSQ');
  });

  test('switches to 8-bit at the threshold and back to exact at half of it; saves and loads either form', async () => {
    const options: VectorIndexOptions = { ...FAISS_FLAT, quantiseThreshold: 500 };
    const index = createVectorIndex(options);
    const reference = new Map<string, Float32Array>();
    const add = (from: number, to: number) => {
      const items = corpus.slice(from, to).map((vector, i) => ({ id: idOf(from + i), vector }));
      index.upsert(items);
      for (const { id, vector } of items) reference.set(id, vector);
    };
    const savedForm = async () => {
      const dir = freshDir();
      await index.save(dir);
      const loaded = await loadVectorIndex(dir, options);
      for (const query of queries.slice(0, 5)) assertSameHits(loaded.search(query, 10), exactSearch(reference, query, 10));
      return nativeHead(dir);
    };
    add(0, 499);
    assert.equal(await savedForm(), 'IxFI');
    add(499, 500);
    assert.equal(await savedForm(), 'IxSQ');
    const removed = [...reference.keys()].slice(0, 240);
    index.remove(removed);
    for (const id of removed) reference.delete(id);
    assert.equal(await savedForm(), 'IxSQ', 'hysteresis: still 8-bit above half the threshold');
    const more = [...reference.keys()].slice(0, 20);
    index.remove(more);
    for (const id of more) reference.delete(id);
    assert.equal(await savedForm(), 'IxFI');
    for (const query of queries) assertSameHits(index.search(query, 10), exactSearch(reference, query, 10));
  });
});

describe('property: interleaved upserts and removes match a reference Map', () => {
  const POOL = Array.from({ length: 30 }, (_, i) => `id-${i}`);
  const PROPERTY_DIMS = 8;
  const command = fc.oneof(
    fc.record({ op: fc.constant('upsert' as const), ids: fc.subarray(POOL, { minLength: 1, maxLength: 12 }), seed: fc.integer({ min: 1, max: 1e6 }) }),
    fc.record({ op: fc.constant('remove' as const), ids: fc.subarray(POOL, { minLength: 1, maxLength: 12 }) }),
    fc.record({ op: fc.constant('relabel' as const), pairs: fc.array(fc.tuple(fc.constantFrom(...POOL), fc.constantFrom(...POOL)), { minLength: 1, maxLength: 6 }) }),
  );
  const configs: Array<{ name: string; options: VectorIndexOptions; exact: boolean }> = [
    { name: 'faiss flat', options: { dims: PROPERTY_DIMS, backend: 'faiss', kind: 'flat', hnswThreshold: 1e9 }, exact: true },
    { name: 'faiss flat 8-bit (threshold 12)', options: { dims: PROPERTY_DIMS, backend: 'faiss', kind: 'flat', hnswThreshold: 1e9, quantiseThreshold: 12 }, exact: true },
    { name: 'TS flat', options: { dims: PROPERTY_DIMS, backend: 'flat', kind: 'flat', hnswThreshold: 1e9 }, exact: true },
    { name: 'faiss HNSW', options: { dims: PROPERTY_DIMS, backend: 'faiss', kind: 'hnsw', hnswThreshold: 1e9 }, exact: false },
    { name: 'faiss auto (threshold 12)', options: { dims: PROPERTY_DIMS, backend: 'faiss', kind: 'auto', hnswThreshold: 12 }, exact: false },
  ];

  for (const { name, options, exact } of configs) {
    test(name, () => {
      fc.assert(
        fc.property(fc.array(command, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 1e6 }), (commands, querySeed) => {
          const index = createVectorIndex(options);
          const reference = new Map<string, Float32Array>();
          const probes = randomUnitVectors(3, PROPERTY_DIMS, querySeed);
          // Every upsert draws fresh vectors: exact score ties (order among equals) have a test of their own.
          let draw = 0;
          for (const step of commands) {
            if (step.op === 'upsert') {
              const vectors = randomUnitVectors(step.ids.length, PROPERTY_DIMS, step.seed * 1000 + ++draw);
              index.upsert(step.ids.map((id, i) => ({ id, vector: vectors[i] })));
              step.ids.forEach((id, i) => {
                reference.delete(id);
                reference.set(id, vectors[i]);
              });
            } else if (step.op === 'remove') {
              const expected = step.ids.filter((id) => reference.has(id)).length;
              assert.equal(index.remove(step.ids), expected);
              for (const id of step.ids) reference.delete(id);
            } else {
              // A moved vector keeps its place (its row), under the new id; a move onto an id in use is refused.
              let expected = 0;
              for (const [from, to] of step.pairs) {
                if (!reference.has(from) || reference.has(to)) continue;
                const renamed = [...reference].map(([id, vector]): [string, Float32Array] => [id === from ? to : id, vector]);
                reference.clear();
                for (const [id, vector] of renamed) reference.set(id, vector);
                expected++;
              }
              assert.equal(index.relabel(step.pairs), expected);
            }
            assert.deepEqual(index.ids(), [...reference.keys()]);
            assert.equal(index.size, reference.size);
            for (const probe of probes) {
              const accept = (id: string) => id.endsWith('1') || id.endsWith('4');
              for (const filter of [undefined, accept]) {
                const hits = index.search(probe, 5, filter);
                const expectedHits = exactSearch(reference, probe, 5, filter);
                if (exact) {
                  assertSameHits(hits, expectedHits);
                } else {
                  // Approximate: only live, accepted ids, with their true scores.
                  assert.ok(hits.length <= expectedHits.length);
                  for (const hit of hits) {
                    const vector = reference.get(hit.id);
                    assert.ok(vector, `${hit.id} is not live`);
                    assert.ok(!filter || filter(hit.id));
                    const score = vector.reduce((sum, v, i) => sum + v * probe[i], 0);
                    assert.ok(Math.abs(score - hit.score) < 1e-5);
                  }
                }
              }
            }
          }
        }),
        { numRuns: 60 },
      );
    });
  }
});

describe('a faiss flat or 8-bit index built from the store in turns', () => {
  /** 40,000 random vectors of 96 dimensions (more than a turn's work for faiss's add) and 10 probes. */
  const largeStore = (seed: number, quantiseThreshold: number) => {
    const dims = 96;
    const options: VectorIndexOptions = { dims, backend: 'faiss', kind: 'flat', hnswThreshold: 1e9, quantiseThreshold };
    return { dims, many: randomUnitVectors(40_000, dims, seed), probes: randomUnitVectors(10, dims, seed + 1), options, index: createVectorIndex(options) };
  };

  test('the switch to 8-bit on a large store is built in turns: searches stay exact, the loop turns, changes meanwhile are kept', async () => {
    const { many, probes, options, index } = largeStore(11, 30_000);
    const reference = new Map<string, Float32Array>();
    const upsert = (from: number, to: number) => {
      const items = many.slice(from, to).map((vector, i) => ({ id: idOf(from + i), vector }));
      index.upsert(items);
      for (const { id, vector } of items) reference.set(id, vector);
    };
    upsert(0, 29_999);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      // Crossing the threshold starts the 8-bit build: 30,000 rows, more than one turn's work.
      upsert(29_999, 30_000);
      for (const probe of probes.slice(0, 3)) assertSameHits(index.search(probe, 10), exactSearch(reference, probe, 10));
      // Changes while it builds: rows appended, replaced and removed.
      await new Promise((resolve) => setImmediate(resolve));
      upsert(30_000, 31_000);
      index.upsert([{ id: idOf(5), vector: many[39_999]! }]);
      reference.set(idOf(5), many[39_999]!);
      const gone = [idOf(7), idOf(20_000), idOf(30_500)];
      index.remove(gone);
      for (const id of gone) reference.delete(id);
      for (const probe of probes.slice(3, 6)) assertSameHits(index.search(probe, 10), exactSearch(reference, probe, 10));
      await index.settled();
    } finally {
      clearInterval(ticker);
    }
    assert.ok(ticks >= 2, `the event loop ran ${ticks} times while the index was built`);
    assert.equal(index.size, reference.size);
    for (const probe of probes) assertSameHits(index.search(probe, 10), exactSearch(reference, probe, 10));
    const dir = freshDir();
    await index.save(dir);
    const loaded = await loadVectorIndex(dir, options);
    for (const probe of probes) assertSameHits(loaded.search(probe, 10), exactSearch(reference, probe, 10));
  });

  test('a flat index losing many rows at once is built again (faiss would check every row against every label): answers stay exact', async () => {
    const { dims, many, probes, options, index } = largeStore(21, 1e9);
    index.upsert(many.map((vector, i) => ({ id: idOf(i), vector })));
    const reference = new Map(many.map((vector, i) => [idOf(i), vector]));
    index.search(probes[0]!, 1);
    // 1,500 labels of 40,000 rows: 60 million pairs for removeIds.
    const gone = Array.from({ length: 1500 }, (_, i) => idOf(i * 26));
    index.remove(gone);
    for (const id of gone) reference.delete(id);
    for (const probe of probes.slice(0, 4)) assertSameHits(index.search(probe, 10), exactSearch(reference, probe, 10));
    // More removed and added while it may still build: neither brought back nor lost.
    const more = [idOf(1), idOf(39_999)];
    index.remove(more);
    for (const id of more) reference.delete(id);
    const [added] = randomUnitVectors(1, dims, 23);
    index.upsert([{ id: 'added', vector: added! }]);
    reference.set('added', added!);
    await index.settled();
    assert.equal(index.size, reference.size);
    for (const probe of [...probes, added!]) assertSameHits(index.search(probe, 10), exactSearch(reference, probe, 10));
    const dir = freshDir();
    await index.save(dir);
    const loaded = await loadVectorIndex(dir, options);
    assert.equal(loaded.nativeRebuilt, false);
    for (const probe of probes) assertSameHits(loaded.search(probe, 10), exactSearch(reference, probe, 10));
  });
});

describe('HNSW graphs built in the background', () => {
  const reference = new Map(corpus.map((vector, i) => [idOf(i), vector]));

  test('searches are answered, exactly, while the first graph is built in another process; the event loop keeps turning', async () => {
    const many = randomUnitVectors(4_000, DIMS, 7);
    const index = createVectorIndex(FAISS_HNSW);
    index.upsert(many.map((vector, i) => ({ id: idOf(i), vector })));
    const exactReference = new Map(many.map((vector, i) => [idOf(i), vector]));
    // The first search starts the build and is answered by an exact scan.
    assertSameHits(index.search(queries[0], 10), exactSearch(exactReference, queries[0], 10));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const started = performance.now();
    try {
      for (const query of queries.slice(1, 5)) assertSameHits(index.search(query, 10), exactSearch(exactReference, query, 10));
      await index.settled();
    } finally {
      clearInterval(ticker);
    }
    const ms = performance.now() - started;
    assert.ok(ticks >= Math.min(5, ms / 50), `the loop ticked ${ticks} times in ${ms.toFixed(0)} ms of building`);
    let recall = 0;
    for (const query of queries) recall += recallAt(index.search(query, 10), exactSearch(exactReference, query, 10)) / queries.length;
    assert.ok(recall >= 0.9, `recall@10 with the graph = ${recall}`);
  });

  test('vectors added, replaced and removed while a graph is built are neither lost nor brought back', async () => {
    const index = createVectorIndex(FAISS_HNSW);
    index.upsert(corpus.map((vector, i) => ({ id: idOf(i), vector })));
    index.search(queries[0], 1); // starts the build from the vectors as they are now
    const gone = Array.from({ length: 30 }, (_, i) => idOf(i * 13));
    index.remove(gone);
    const [replacement, added] = randomUnitVectors(2, DIMS, 1234);
    index.upsert([{ id: idOf(500), vector: replacement }, { id: 'added-while-building', vector: added }]);
    await index.settled();
    assert.equal(index.search(replacement, 1)[0].id, idOf(500));
    assert.equal(index.search(added, 1)[0].id, 'added-while-building');
    assert.ok(!index.search(corpus[500], 20).some((hit) => hit.id === idOf(500) && Math.abs(hit.score - 1) < 1e-4), 'the old vector of a replaced id is gone');
    for (const id of gone) assert.ok(!index.search(corpus[Number(/\d+/.exec(id)![0])], 10).some((hit) => hit.id === id), `${id} came back`);
  });

  test('rows sent to the builder in slices while removals move rows past a slice: each live vector found once, removed ones never', async () => {
    // 12,000 x 64 is three slices of rows; changes land between them (the rows go out in turns of the loop).
    const many = randomUnitVectors(12_000, DIMS, 31);
    const index = createVectorIndex(FAISS_HNSW);
    index.upsert(many.map((vector, i) => ({ id: idOf(i), vector })));
    const live = new Map(many.map((vector, i) => [idOf(i), vector]));
    index.search(queries[0], 1); // starts the build
    let building = true;
    const settled = index.settled().then(() => (building = false));
    const extra = randomUnitVectors(2000, DIMS, 32);
    const gone: string[] = [];
    // A change in every turn of the loop until the graph is in: some land between the slices being sent.
    for (let round = 0; building && round < 2000; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      // A low label: every later row moves down, some below the next slice to be sent (they are left to the exact scan).
      const removed = idOf(round * 3);
      index.remove([removed]);
      live.delete(removed);
      gone.push(removed);
      index.upsert([{ id: `extra-${round}`, vector: extra[round] }]);
      live.set(`extra-${round}`, extra[round]);
    }
    await settled;
    for (const [id, vector] of [...live].filter((_, i) => i % 40 === 0)) {
      const hits = index.search(vector, 3);
      assert.equal(hits[0]?.id, id, `${id} is its own nearest vector`);
      assert.equal(new Set(hits.map((hit) => hit.id)).size, hits.length, 'no id twice');
    }
    for (const query of queries.slice(0, 10)) {
      const hits = index.search(query, 50);
      assert.equal(new Set(hits.map((hit) => hit.id)).size, hits.length, 'no id twice');
      assert.ok(hits.every((hit) => live.has(hit.id)), 'no removed id');
      assert.ok(recallAt(hits.slice(0, 10), exactSearch(live, query, 10)) >= 0.8);
    }
    for (const id of gone) assert.ok(!index.search(many[Number(/\d+/.exec(id)![0])], 5).some((hit) => hit.id === id), `${id} came back`);
  });

  test('the graph builder runs below our priority with one OpenMP thread per core, and labels its graph with the ids sent', async () => {
    const store = await VectorStore.fromRows(DIMS, corpus.map((_, i) => idOf(i)), Float32Array.from(corpus.flatMap((vector) => [...vector])));
    const job = buildHnswGraph(requireFaiss(), store);
    job.hold();
    while (job.pid === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    const pid = job.pid;
    if (process.platform === 'linux') {
      // Between fork and exec /proc shows our environment: wait for the builder's own command line.
      for (let i = 0; i < 400 && !(await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes('hnswGraphWorker'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const environ = (await fs.readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
      assert.ok(environ.includes(`OMP_NUM_THREADS=${Math.min(os.availableParallelism(), 8)}`), 'one OpenMP thread per core');
    }
    assert.ok(os.getPriority(pid) >= 10, `the builder's niceness is ${os.getPriority(pid)}`);
    const built = await job.graph;
    try {
      assert.equal(built.index.ntotal(), COUNT);
      assert.deepEqual(built.ids, store.ids());
      const { labels } = built.index.search(Array.from(corpus[123]), 1);
      assert.equal(built.ids[labels[0]], idOf(123));
    } finally {
      await built.release();
    }
  });

  test('vectors added after the graph are found exactly while store labels move under them (removals, more adds)', async () => {
    const index = await built(FAISS_HNSW);
    const fresh = randomUnitVectors(25, DIMS, 977);
    const find = (i: number) => {
      const [hit] = index.search(fresh[i], 1);
      assert.equal(hit?.id, `fresh-${i}`, `fresh-${i} is its own nearest vector`);
      assert.ok(Math.abs(hit.score - 1) < 1e-4, `fresh-${i} scored ${hit.score}`);
    };
    index.upsert(fresh.slice(0, 20).map((vector, i) => ({ id: `fresh-${i}`, vector })));
    for (let i = 0; i < 20; i++) find(i);
    // Removing graph vectors stored before them moves their labels down; the removed pending ones leave the scan.
    index.remove([...Array.from({ length: 15 }, (_, i) => idOf(i * 7)), 'fresh-3']);
    for (let i = 0; i < 20; i++) if (i !== 3) find(i);
    assert.ok(!index.search(fresh[3], 5).some((hit) => hit.id === 'fresh-3'));
    index.upsert(fresh.slice(20).map((vector, i) => ({ id: `fresh-${20 + i}`, vector })));
    for (let i = 0; i < 25; i++) if (i !== 3) find(i);
  });

  test('a graph older than the latest changes is saved with its row map, and loads to the same answers', async () => {
    const index = await built(FAISS_HNSW);
    const gone = Array.from({ length: 60 }, (_, i) => idOf(i * 31));
    index.remove(gone);
    const fresh = randomUnitVectors(40, DIMS, 4321);
    index.upsert(fresh.map((vector, i) => ({ id: `new-${i}`, vector })));
    const dir = freshDir();
    await index.save(dir);
    const header = JSON.parse(await fs.readFile(path.join(dir, 'vector-index.json'), 'utf8')) as { nativeRows: number[] | null; count: number };
    assert.equal(header.nativeRows?.length, COUNT, 'one row per graph label');
    assert.equal(header.nativeRows!.filter((row) => row === -1).length, gone.length);
    const loaded = await loadVectorIndex(dir, FAISS_HNSW);
    for (const query of [...queries, ...fresh.slice(0, 5)]) {
      const hits = loaded.search(query, 10);
      assertSameHits(hits, index.search(query, 10), 0);
      assert.ok(hits.every((hit) => !gone.includes(hit.id)));
    }
    // A row map that does not fit the saved vectors only costs the graph, never the index.
    header.nativeRows![0] = COUNT + 5;
    await fs.writeFile(path.join(dir, 'vector-index.json'), JSON.stringify(header));
    const withoutGraph = await loadVectorIndex(dir, FAISS_HNSW);
    const live = new Map([...reference].filter(([id]) => !gone.includes(id)).concat(fresh.map((vector, i) => [`new-${i}`, vector])));
    assertSameHits(withoutGraph.search(queries[0], 10), exactSearch(live, queries[0], 10));
  });
});

describe('save and load', () => {
  for (const { name, options } of CONFIGS) {
    test(`${name}: round trip gives identical search results`, async () => {
      const index = await built(options);
      index.remove(Array.from({ length: 100 }, (_, i) => idOf(i * 7)));
      index.upsert([{ id: idOf(10), vector: queries[49] }]);
      index.search(queries[0], 10);
      const dir = path.join(freshDir(), 'nested', 'vectors');
      await index.save(dir);
      const loaded = await loadVectorIndex(dir, options);
      assert.equal(loaded.backend, index.backend);
      assert.equal(loaded.kind, index.kind);
      assert.equal(loaded.size, index.size);
      assert.deepEqual(loaded.ids(), index.ids());
      for (const query of queries) assertSameHits(loaded.search(query, 10), index.search(query, 10), 0);

      // The vectors file is the source of truth: any backend can load it.
      const asTsFlat = await loadVectorIndex(dir, TS_FLAT);
      assert.equal(asTsFlat.backend, 'flat');
      const asFaissFlat = await loadVectorIndex(dir, FAISS_FLAT);
      for (const query of queries.slice(0, 10)) assertSameHits(asTsFlat.search(query, 10), asFaissFlat.search(query, 10));
    });
  }

  test('the file of a faiss flat index is made by Cairn in pieces, byte for byte what faiss writes (generated shapes)', async () => {
    const faiss = requireFaiss();
    const dir = freshDir();
    await fs.mkdir(dir, { recursive: true });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 24 }), fc.integer({ min: 0, max: 40 }), fc.integer(), async (dims, rows, seed) => {
        const random = seededRandom(seed);
        const vectors = Float32Array.from({ length: rows * dims }, () => random() * 2 - 1);
        const reference = new faiss.IndexFlatIP(dims);
        if (rows > 0) reference.add(Array.from(vectors));
        const theirs = path.join(dir, `faiss-${++n}.index`);
        reference.write(theirs);
        assert.deepEqual(Buffer.concat([...faissFlatFile(dims, vectors)]), await fs.readFile(theirs));
      }),
      { numRuns: 60, seed: 11 },
    );
    // A saved index's file is the one its rows make, and faiss reads it back to the same answers.
    const index = await built(FAISS_FLAT);
    index.remove(Array.from({ length: 50 }, (_, i) => idOf(i * 3)));
    const saved = freshDir();
    await index.save(saved);
    const header = JSON.parse(await fs.readFile(path.join(saved, 'vector-index.json'), 'utf8')) as { nativeFile: string; vectorsFile: string };
    const native = await fs.readFile(path.join(saved, header.nativeFile));
    const rows = new Float32Array(new Uint8Array(await fs.readFile(path.join(saved, header.vectorsFile))).buffer);
    assert.deepEqual(native, Buffer.concat([...faissFlatFile(DIMS, rows)]));
    const read = faiss.Index.read(path.join(saved, header.nativeFile));
    assert.equal(read.ntotal(), index.size);
    const loaded = await loadVectorIndex(saved, FAISS_FLAT);
    assert.equal(loaded.nativeRebuilt, false, 'the file written in pieces is used as faiss\'s own');
    for (const query of queries.slice(0, 10)) assertSameHits(loaded.search(query, 10), index.search(query, 10), 0);
  });

  test('a flat index whose rows cannot go through a temporary file (a full disk) adds them through faiss, to the same answers', async () => {
    const tmpdir = process.env.TMPDIR;
    process.env.TMPDIR = path.join(freshDir(), 'missing', 'folder');
    let index: VectorIndex;
    try {
      index = await built(FAISS_FLAT);
      index.remove(Array.from({ length: 40 }, (_, i) => idOf(i * 11)));
    } finally {
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    }
    const reference = await built(TS_FLAT);
    reference.remove(Array.from({ length: 40 }, (_, i) => idOf(i * 11)));
    for (const query of queries.slice(0, 10)) assertSameHits(index.search(query, 10), reference.search(query, 10));
    const dir = freshDir();
    await index.save(dir);
    for (const query of queries.slice(0, 5)) assertSameHits((await loadVectorIndex(dir, FAISS_FLAT)).search(query, 10), reference.search(query, 10));
  });

  test('an empty index round-trips', async () => {
    for (const { name, options } of CONFIGS) {
      const dir = freshDir();
      await createVectorIndex(options).save(dir);
      const loaded = await loadVectorIndex(dir, options);
      assert.equal(loaded.size, 0, name);
      assert.deepEqual(loaded.search(queries[0], 5), [], name);
    }
  });

  test('saving again replaces the previous generation and leaves only the current files', async () => {
    const dir = freshDir();
    const index = await built(FAISS_HNSW, corpus.slice(0, 300));
    await index.save(dir);
    index.remove([idOf(0)]);
    await Promise.all([index.save(dir), index.save(dir)]);
    assert.deepEqual((await fs.readdir(dir)).sort(), ['vector-index.json', 'vectors-3.f32', 'vectors-3.faiss']);
    assert.equal((await loadVectorIndex(dir, FAISS_HNSW)).size, 299);
  });

  test('files of an interrupted save (never committed by the header) are ignored, then cleaned up', async () => {
    const dir = freshDir();
    const index = await built(FAISS_FLAT, corpus.slice(0, 50));
    await index.save(dir);
    await fs.writeFile(path.join(dir, 'vectors-2.f32'), Buffer.alloc(12));
    await fs.writeFile(path.join(dir, 'vectors-2.faiss.tmp'), 'partial');
    await fs.writeFile(path.join(dir, 'vector-index.json.tmp'), '{"trunc');
    const loaded = await loadVectorIndex(dir, FAISS_FLAT);
    assertSameHits(loaded.search(queries[0], 10), index.search(queries[0], 10), 0);
    await loaded.save(dir);
    assert.deepEqual((await fs.readdir(dir)).sort(), ['vector-index.json', 'vectors-3.f32', 'vectors-3.faiss']);
  });

  test('an HNSW graph is saved by linking the file it was built or loaded as, not written again on the event loop', async () => {
    const index = await built(FAISS_HNSW, corpus.slice(0, 1500));
    const [first, second, third] = [freshDir(), freshDir(), freshDir()];
    await index.save(first);
    index.remove([idOf(3)]);
    await index.save(second);
    const inode = async (dir: string) => (await fs.stat(path.join(dir, 'vectors-1.faiss'))).ino;
    assert.equal(await inode(second), await inode(first), 'the second save links the first one\'s graph file');
    const loaded = await loadVectorIndex(second, FAISS_HNSW);
    await loaded.save(third);
    assert.equal(await inode(third), await inode(second), 'a loaded graph is saved by linking the file it was read from');
    for (const query of queries.slice(0, 10)) assertSameHits((await loadVectorIndex(third, FAISS_HNSW)).search(query, 10), index.search(query, 10), 0);
  });

  test('a flat faiss index built afresh on loading (8-bit codes saved, float vectors kept now) says so until it is saved', async () => {
    const vectors = corpus.slice(0, 600);
    const coded = await built(FAISS_SQ8, vectors);
    const [old, resaved] = [freshDir(), freshDir()];
    await coded.save(old);
    assert.equal((await loadVectorIndex(old, FAISS_SQ8)).nativeRebuilt, false, 'the saved codes are used as they are');
    const loaded = await loadVectorIndex(old, FAISS_FLAT);
    assert.equal(loaded.nativeRebuilt, true);
    await loaded.save(resaved);
    assert.equal(loaded.nativeRebuilt, false);
    assert.equal((await fs.readFile(path.join(resaved, 'vectors-1.faiss'))).toString('latin1', 0, 4), FAISS_FLAT_FOURCC);
    const reloaded = await loadVectorIndex(resaved, FAISS_FLAT);
    assert.equal(reloaded.nativeRebuilt, false, 'the float index written by the save is used');
    for (const query of queries.slice(0, 5)) assertSameHits(reloaded.search(query, 10), coded.search(query, 10));
    // An HNSW graph rebuilt on loading is not reported: saving it would make an opening wait for its build.
    const graphDir = freshDir();
    await (await built(FAISS_HNSW, vectors)).save(graphDir);
    await fs.rm(path.join(graphDir, 'vectors-1.faiss'));
    assert.equal((await loadVectorIndex(graphDir, FAISS_HNSW)).nativeRebuilt, false);
  });

  test('a faiss file whose digest the caller has checked is judged by that digest, not hashed again', async () => {
    const index = await built(FAISS_HNSW, corpus.slice(0, 1500));
    const [saved, trusted, distrusted] = [freshDir(), freshDir(), freshDir()];
    await index.save(saved);
    const graph = await fs.readFile(path.join(saved, 'vectors-1.faiss'));
    const digest = { bytes: graph.length, sha256: createHash('sha256').update(graph).digest('hex') };
    const inode = async (dir: string) => (await fs.stat(path.join(dir, 'vectors-1.faiss'))).ino;
    await (await loadVectorIndex(saved, FAISS_HNSW, new Map([['vectors-1.faiss', digest]]))).save(trusted);
    assert.equal(await inode(trusted), await inode(saved), 'the checked graph was used (and linked by the save)');
    // The file is intact, so only the caller's digest can make the index set it aside and build the graph anew.
    const wrong = { bytes: digest.bytes, sha256: '0'.repeat(64) };
    const rebuilt = await graphBuilt(await loadVectorIndex(saved, FAISS_HNSW, new Map([['vectors-1.faiss', wrong]])));
    await rebuilt.save(distrusted);
    assert.notEqual(await inode(distrusted), await inode(saved), 'a graph whose checked digest disagrees with the header is built anew');
    for (const query of queries.slice(0, 10)) assertSameHits(rebuilt.search(query, 10), index.search(query, 10), 0);
  });
  test('a graph file that no longer holds the graph is not linked: the graph is written afresh', async () => {
    const index = await built(FAISS_HNSW, corpus.slice(0, 1500));
    const [first, second] = [freshDir(), freshDir()];
    await index.save(first);
    const file = path.join(first, 'vectors-1.faiss');
    const bytes = await fs.readFile(file);
    await fs.rm(file);
    await fs.writeFile(file, Buffer.concat([bytes.subarray(0, 100), Buffer.from('damaged'), bytes.subarray(107)]));
    await index.save(second);
    assert.notEqual((await fs.stat(path.join(second, 'vectors-1.faiss'))).ino, (await fs.stat(file)).ino);
    assert.ok((await fs.readFile(path.join(second, 'vectors-1.faiss'))).equals(bytes), 'the same graph, written by faiss');
  });

  test('a save whose index changed meanwhile is abandoned, and the last committed save stays', async () => {
    const dir = freshDir();
    const index = await built(TS_FLAT, corpus.slice(0, 100));
    await index.save(dir);
    const snapshot = { backend: 'flat' as const, kind: 'flat' as const, dims: DIMS, ids: ['x'], vectors: new Float32Array(DIMS), native: null, unchanged: () => false };
    await assert.rejects(saveIndexFiles(dir, () => snapshot), /changed while it was being saved/);
    assert.deepEqual((await fs.readdir(dir)).sort(), ['vector-index.json', 'vectors-1.f32']);
    assert.deepEqual((await loadVectorIndex(dir, TS_FLAT)).ids(), index.ids());
  });

  test('a header of many thousand ids, written in pieces, loads whole', async () => {
    const options: VectorIndexOptions = { dims: 2, backend: 'flat', kind: 'flat', hnswThreshold: 1e9 };
    const index = createVectorIndex(options);
    index.upsert(Array.from({ length: 12_345 }, (_, i) => ({ id: `n "${i}".md#${i % 7}`, vector: Float32Array.of(Math.cos(i), Math.sin(i)) })));
    const dir = freshDir();
    const digests = await index.save(dir);
    const header = await fs.readFile(path.join(dir, 'vector-index.json'));
    assert.equal(digests['vector-index.json']?.sha256, createHash('sha256').update(header).digest('hex'), 'the digest returned is the file\'s');
    assert.deepEqual((await loadVectorIndex(dir, options)).ids(), index.ids());
  });

  test('the saved HNSW graph carries the tuned efSearch (faiss-node has no setter; the default 16 caps recall)', async () => {
    const dir = freshDir();
    await (await built(FAISS_HNSW, corpus.slice(0, 200))).save(dir);
    const bytes = await fs.readFile(path.join(dir, 'vectors-1.faiss'));
    const offset = hnswParamsOffset(bytes);
    assert.notEqual(offset, null);
    assert.equal(bytes.readInt32LE(offset! + 4), HNSW_EF_SEARCH);
    assert.equal(hnswParamsOffset(Buffer.from('IHNf not an index')), null);
  });

  test('a faiss file damaged in a way that makes faiss abort (huge vector length) is never handed to faiss', async () => {
    const dir = freshDir();
    const index = await built(FAISS_HNSW, corpus.slice(0, 1200));
    await index.save(dir);
    const nativeFile = path.join(dir, 'vectors-1.faiss');
    const bytes = await fs.readFile(nativeFile);
    bytes.writeBigUInt64LE(1n << 38n, 4 + 4 + 8 + 8 + 8 + 1 + 4); // length of HNSW assign_probas: std::bad_alloc in faiss
    await fs.writeFile(nativeFile, bytes);
    const loaded = await graphBuilt(await loadVectorIndex(dir, FAISS_HNSW));
    assertSameHits(loaded.search(queries[0], 10), index.search(queries[0], 10), 0);
  });

  test('a missing or damaged faiss file is rebuilt from the vectors file', async () => {
    for (const options of [FAISS_FLAT, FAISS_HNSW]) {
      const dir = freshDir();
      const index = await built(options, corpus.slice(0, 1200));
      await index.save(dir);
      const nativeFile = path.join(dir, 'vectors-1.faiss');
      const { size } = await fs.stat(nativeFile);
      await fs.writeFile(nativeFile, Buffer.alloc(size, 7)); // right size, garbage
      const fromGarbage = await graphBuilt(await loadVectorIndex(dir, options));
      await fs.rm(nativeFile);
      const fromMissing = await graphBuilt(await loadVectorIndex(dir, options));
      for (const query of queries.slice(0, 10)) {
        assertSameHits(fromGarbage.search(query, 10), index.search(query, 10), 0);
        assertSameHits(fromMissing.search(query, 10), index.search(query, 10), 0);
      }
    }
  });

  describe('damaged files throw VectorIndexCorruptError, never crash', () => {
    const options = FAISS_FLAT;
    async function savedDir(): Promise<string> {
      const dir = freshDir();
      await (await built(options, corpus.slice(0, 100))).save(dir);
      return dir;
    }
    async function assertCorrupt(dir: string, file: string, reason: RegExp, loadOptions = options): Promise<void> {
      await assert.rejects(loadVectorIndex(dir, loadOptions), (error: unknown) => {
        assert.ok(error instanceof VectorIndexCorruptError, String(error));
        assert.equal(error.file, path.join(dir, file));
        assert.match(error.reason, reason);
        return true;
      });
    }
    const editHeader = async (dir: string, edit: (header: Record<string, unknown>) => void) => {
      const file = path.join(dir, 'vector-index.json');
      const header = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
      edit(header);
      await fs.writeFile(file, JSON.stringify(header));
    };

    test('truncated vectors file', async () => {
      const dir = await savedDir();
      await fs.truncate(path.join(dir, 'vectors-1.f32'), 100 * DIMS * 4 - 10);
      await assertCorrupt(dir, 'vectors-1.f32', /25590 bytes, expected 100 x 64 x 4 = 25600/);
    });

    test('header with a wrong count', async () => {
      const dir = await savedDir();
      await editHeader(dir, (header) => (header.count = 99));
      await assertCorrupt(dir, 'vector-index.json', /count is 99 but 100 ids/);
      await editHeader(dir, (header) => {
        header.count = 101;
        (header.ids as string[]).push('extra');
      });
      await assertCorrupt(dir, 'vectors-1.f32', /expected 101 x 64/);
    });

    test('missing header, missing vectors file, a directory that does not exist', async () => {
      const dir = await savedDir();
      await fs.rm(path.join(dir, 'vectors-1.f32'));
      await assertCorrupt(dir, 'vectors-1.f32', /missing/);
      await fs.rm(path.join(dir, 'vector-index.json'));
      await assertCorrupt(dir, 'vector-index.json', /missing/);
      await assertCorrupt(path.join(dir, 'nowhere'), 'vector-index.json', /missing/);
    });

    test('header that is not JSON, of another version, with other dims, or with duplicate ids', async () => {
      const dir = await savedDir();
      await assertCorrupt(dir, 'vector-index.json', /saved with 64 dimensions, expected 32/, { ...options, dims: 32 });
      await editHeader(dir, (header) => (header.version = 2));
      await assertCorrupt(dir, 'vector-index.json', /version 2, expected 1/);
      await editHeader(dir, (header) => {
        header.version = 1;
        (header.ids as string[])[1] = (header.ids as string[])[0];
      });
      await assertCorrupt(dir, 'vector-index.json', /not unique/);
      await fs.writeFile(path.join(dir, 'vector-index.json'), '{"format": "cairn-vec');
      await assertCorrupt(dir, 'vector-index.json', /not valid JSON/);
    });

    test('a changed byte in the vectors file (checksum), and non-finite values', async () => {
      const dir = await savedDir();
      const file = path.join(dir, 'vectors-1.f32');
      const bytes = await fs.readFile(file);
      bytes.writeFloatLE(0.5, 4 * DIMS * 3);
      await fs.writeFile(file, bytes);
      await assertCorrupt(dir, 'vectors-1.f32', /checksum/);
      bytes.writeFloatLE(Number.NaN, 4 * DIMS * 3);
      await fs.writeFile(file, bytes);
      await editHeader(dir, (header) => (header.vectorsSha256 = createHash('sha256').update(bytes).digest('hex')));
      await assertCorrupt(dir, 'vectors-1.f32', /non-finite value in row 3/);
    });
  });
});
