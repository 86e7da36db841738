// Scale stage 1 (a fresh process): cold index of the generated vault into an empty data folder, then keyword, vector
// and hybrid query latency on queries made from generated titles and headings.
import { readFile } from 'node:fs/promises';
import { openVault, percentile, withLoopHold } from '../support.js';
import type { VaultSamples } from './generateVault.js';
import { benchConfig, reportResult, stageArgs, timeSearches } from './stageSupport.js';

const [vault, dataDir, samples] = stageArgs('indexAndQuery.ts <vault> <data-dir> <samples.json>', 3);
const { queries } = JSON.parse(await readFile(samples, 'utf8')) as VaultSamples;

const opened = await openVault(vault, dataDir, benchConfig);
const [summary, indexHeldMs] = await withLoopHold(() => opened.index());
console.error(`cold index ${summary.seconds.toFixed(1)} s: ${summary.notes} notes, ${summary.chunks} chunks`);

// As bench/engineBuild.ts: the first search brings the query vocabulary up to date and background work (an HNSW
// graph above hnsw_threshold) is waited for, so neither is timed.
await opened.search({ query: queries[0], k: 10 });
await opened.settled();
const [latency, searchHeldMs] = await withLoopHold(async () => {
  const byMode: Record<string, { p50: number; p95: number }> = {};
  for (const [mode, times] of await timeSearches(opened, queries)) byMode[mode] = { p50: percentile(times, 50), p95: percentile(times, 95) };
  return byMode;
});
await opened.close();
reportResult({ summary, indexHeldMs, latency, queries: queries.length, searchHeldMs });
