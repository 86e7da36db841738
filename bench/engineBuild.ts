// The heavy half of engine.bench.ts, in a process of its own: index, rebuild and query latency on a real vault.
// Its data folder is then used by the parent for the ready-to-query measurement.
import type { IndexSummary } from '../core/app/index.js';
import type { SearchMode } from '../core/contract/search.js';
import { argValue, mb, openVault, percentile, random, rssSampler, withLoopHold } from './support.js';

const args = process.argv.slice(2);
const vault = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!vault) {
  console.error('usage: npm run bench -- <vault> [--data-dir DIR] [--queries N]');
  process.exit(2);
}
const queryCount = Number(argValue(args, '--queries') ?? 300);
const dataDir = argValue(args, '--data-dir')!;
const rss = rssSampler();

// withLoopHold: how long the event loop was held at once (searches, and the server in browser mode, wait that long).

const describe = (label: string, s: IndexSummary, heldMs: number) => {
  const p = s.phaseSeconds;
  console.log(`${label.padEnd(14)} ${s.seconds.toFixed(1)} s: ${s.notes} notes, ${s.chunks} chunks, ${s.embedded} embedded, ${s.cached} cached; event loop held at most ${heldMs.toFixed(0)} ms`);
  console.log(`${''.padEnd(14)} scan ${p.scan.toFixed(1)} s · chunk ${p.chunk.toFixed(1)} s (${(s.changedNotes / Math.max(p.chunk, 1e-3)).toFixed(0)} notes/s) · embed ${p.embed.toFixed(1)} s (${(s.embedded / Math.max(p.embed, 1e-3)).toFixed(0)} chunks/s) · index ${p.index.toFixed(1)} s · persist ${p.persist.toFixed(1)} s`);
};

const opened = await openVault(vault, dataDir);
describe('cold index', ...(await withLoopHold(() => opened.index())));
describe('warm rebuild', ...(await withLoopHold(() => opened.rebuild(() => {}, 'benchmark'))));
describe('reconcile', ...(await withLoopHold(() => opened.index())));

// Queries: 1-4 words drawn from the vault's own chunks.
const rand = random(7);
const ids = opened.snapshot().chunkIds;
const queries: string[] = [];
while (queries.length < queryCount) {
  const chunk = (await opened.sectionChunks(ids[Math.floor(rand() * ids.length)]))![0];
  const words = chunk.text.match(/\p{L}{4,}/gu) ?? [];
  if (words.length < 4) continue;
  const n = 1 + Math.floor(rand() * 4);
  const start = Math.floor(rand() * (words.length - n));
  queries.push(words.slice(start, start + n).join(' '));
}
// Queries are timed once background work (an HNSW graph above hnsw_threshold) is done; the first search also
// brings the query-expansion vocabulary up to date, so it is not timed.
await opened.search({ query: queries[0], k: 10 });
await opened.settled();
for (const mode of ['keyword', 'vector', 'hybrid'] as SearchMode[]) {
  const times: number[] = [];
  // Each mode from cold: a query's vector is kept for the next search of the same text.
  opened.forgetEmbeddedTexts();
  for (const query of queries) {
    const t = performance.now();
    await opened.search({ query, mode, k: 10 });
    times.push(performance.now() - t);
  }
  console.log(`${`${mode} query`.padEnd(14)} p50 ${percentile(times, 50).toFixed(1)} ms · p95 ${percentile(times, 95).toFixed(1)} ms (${queries.length} queries)`);
}
const workerRss = (opened as unknown as { embedder?: { workerMaxRss: number } }).embedder?.workerMaxRss ?? 0;
await opened.close();

rss.stop();
console.log(`peak RSS       main ${mb(rss.peak())}, embedding worker ${mb(workerRss)}`);
