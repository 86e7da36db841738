// Vector index backends on random unit vectors: add, HNSW build, query p50/p95, save/load, removals, file sizes.
// Usage: node --import tsx bench/vector.bench.ts [--sizes 10000,50000] [--dims 100,384] [--queries 200] [--clustered]
// Random unit vectors are the worst case for HNSW (no neighbourhood structure); --clustered draws them
// around 1 centre per 100 vectors instead, closer to how text embeddings spread.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createVectorIndex, faissStatus, loadVectorIndex, type VectorHit, type VectorIndex, type VectorIndexOptions } from '../core/indices/vector/vectorIndex.js';
import { seededRandom } from '../core/random/seededRandom.js';

const args = process.argv.slice(2);
const listArg = (name: string, fallback: number[]) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1].split(',').map(Number) : fallback;
};
const sizes = listArg('sizes', [10_000, 50_000]);
const dimsList = listArg('dims', [100, 384]);
const queryCount = listArg('queries', [200])[0];
const clustered = args.includes('--clustered');
const K = 10;
const ADD_BATCH = 1000;
/** Removals a call: a few hundred (as re-chunking removed them), or about a batch of 500 notes' changed chunks. */
const SMALL_REMOVALS = 200;
const BATCH_REMOVALS = 1250;

function normalise(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v);
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

function unitVectors(count: number, dims: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const centres = clustered ? Array.from({ length: Math.max(1, Math.round(count / 100)) }, () => Float32Array.from({ length: dims }, gaussian)) : [];
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: dims }, gaussian);
    if (clustered) {
      const centre = centres[Math.floor(random() * centres.length)];
      for (let i = 0; i < dims; i++) v[i] = centre[i] + 0.6 * v[i];
    }
    return normalise(v);
  });
}

const ms = (from: number) => performance.now() - from;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const fmt = (milliseconds: number) => (milliseconds >= 1000 ? `${(milliseconds / 1000).toFixed(2)} s` : `${milliseconds.toFixed(milliseconds < 10 ? 2 : 0)} ms`);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

async function dirFiles(dir: string): Promise<string> {
  const names = (await fs.readdir(dir)).sort();
  const sizesOf = await Promise.all(names.map(async (name) => `${name.replace(/-\d+\./, '.')} ${mb((await fs.stat(path.join(dir, name))).size)}`));
  return sizesOf.join(', ');
}

const configs: Array<{ name: string; options: Omit<VectorIndexOptions, 'dims'> }> = [
  { name: 'faiss flat', options: { backend: 'faiss', kind: 'flat', hnswThreshold: Infinity } },
  { name: 'faiss HNSW', options: { backend: 'faiss', kind: 'hnsw', hnswThreshold: Infinity } },
  { name: 'TS flat', options: { backend: 'flat', kind: 'flat', hnswThreshold: Infinity } },
];

console.log(`faiss: ${JSON.stringify(faissStatus())}, OMP_NUM_THREADS=${process.env.OMP_NUM_THREADS}, ${os.cpus().length} CPUs, node ${process.version}`);
console.log(`${clustered ? 'clustered' : 'uniformly random'} unit vectors, k=${K}, ${queryCount} queries, upserts in batches of ${ADD_BATCH}\n`);
const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-vector-bench-'));
try {
  for (const dims of dimsList) {
    for (const size of sizes) {
      // One draw, so clustered queries share the data's centres.
      const vectors = unitVectors(size + queryCount, dims, 1);
      const queries = vectors.splice(size);
      let exact: VectorHit[][] | undefined;
      console.log(`== ${size.toLocaleString('en')} x ${dims}`);
      for (const { name, options } of configs) {
        const index = createVectorIndex({ dims, ...options });
        let started = performance.now();
        for (let i = 0; i < size; i += ADD_BATCH) {
          index.upsert(vectors.slice(i, i + ADD_BATCH).map((vector, j) => ({ id: `chunk-${i + j}`, vector })));
        }
        const addTime = ms(started);
        started = performance.now();
        index.search(queries[0], K); // starts the HNSW graph build (in a child process; searches are exact meanwhile)
        const firstSearch = ms(started);
        started = performance.now();
        await index.settled();
        const buildTime = ms(started);

        const times: number[] = [];
        const results: VectorHit[][] = [];
        for (const query of queries) {
          started = performance.now();
          results.push(index.search(query, K));
          times.push(ms(started));
        }
        times.sort((a, b) => a - b);
        exact ??= results;
        const recall = results.reduce((sum, hits, q) => {
          const truth = new Set(exact![q].map((hit) => hit.id));
          return sum + hits.filter((hit) => truth.has(hit.id)).length / K;
        }, 0) / queryCount;

        const dir = path.join(tmpRoot, `${dims}-${size}-${name.replace(/\W+/g, '-')}`);
        started = performance.now();
        await index.save(dir);
        const saveTime = ms(started);
        started = performance.now();
        const loaded = await loadVectorIndex(dir, { dims, ...options });
        const loadTime = ms(started);
        if (loaded.size !== size) throw new Error(`loaded ${loaded.size} vectors, expected ${size}`);
        started = performance.now();
        loaded.search(queries[0], K);
        const loadedFirstSearch = ms(started);
        // A quarter of the vectors removed, as a re-chunk removes them: a few hundred a call, or a batch of notes'
        // worth a call (each call compacts the whole store).
        const gone = Array.from({ length: Math.floor(size / 4) }, (_, i) => `chunk-${i * 4 + 1}`);
        const removalTime = (target: VectorIndex, step: number) => {
          const from = performance.now();
          for (let i = 0; i < gone.length; i += step) target.remove(gone.slice(i, i + step));
          return ms(from);
        };
        const [removeSmall, removeBatched] = [removalTime(index, SMALL_REMOVALS), removalTime(loaded, BATCH_REMOVALS)];

        console.log(
          `${name.padEnd(11)} add ${fmt(addTime).padStart(8)}` +
            (options.kind === 'hnsw' ? `  first search ${fmt(firstSearch)}, graph build ${fmt(buildTime).padStart(8)} (off the event loop)` : '') +
            `  query p50 ${fmt(percentile(times, 0.5))} p95 ${fmt(percentile(times, 0.95))}` +
            `  recall@10 ${recall.toFixed(3)}` +
            `  save ${fmt(saveTime)}  load ${fmt(loadTime)} (+ first search ${fmt(loadedFirstSearch)})` +
            `  remove 1/4: ${fmt(removeSmall)} by ${SMALL_REMOVALS}, ${fmt(removeBatched)} by ${BATCH_REMOVALS.toLocaleString('en')}` +
            `  files: ${await dirFiles(dir)}`,
        );
        await fs.rm(dir, { recursive: true, force: true });
      }
      console.log();
    }
  }
} finally {
  await fs.rm(tmpRoot, { recursive: true, force: true });
}
