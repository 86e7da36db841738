// Query latency on an index bench:scale already built (no indexing): keyword, vector and hybrid p50 / p95 over the
// size's sample queries, with the slowest five. For measuring a change to searching without a cold index of the size.
// Usage: node --import tsx bench/scale/queryLatency.ts <vault> <data-dir> <samples.json> [modes, e.g. keyword,hybrid]
import { readFile } from 'node:fs/promises';
import type { SearchMode } from '../../core/contract/search.js';
import { openVault, percentile } from '../support.js';
import type { VaultSamples } from './generateVault.js';
import { benchConfig, stageArgs, timeSearches } from './stageSupport.js';

const [vault, dataDir, samples, modes] = stageArgs('queryLatency.ts <vault> <data-dir> <samples.json> [modes]', 3);
const { queries } = JSON.parse(await readFile(samples, 'utf8')) as VaultSamples;
const t0 = performance.now();
const opened = await openVault(vault, dataDir, benchConfig);
await opened.search({ query: queries[0], k: 10 });
await opened.settled();
console.log(`open ${((performance.now() - t0) / 1000).toFixed(1)} s`);
for (const [mode, times] of await timeSearches(opened, queries, modes ? (modes.split(',') as SearchMode[]) : undefined)) {
  const worst = times.map((t, i) => [t, queries[i]] as const).sort((a, b) => b[0] - a[0]).slice(0, 5);
  console.log(`${mode} p50 ${percentile(times, 50).toFixed(1)} p95 ${percentile(times, 95).toFixed(1)} ms; worst ${worst.map(([t, q]) => `${t.toFixed(0)} "${q}"`).join(', ')}`);
}
await opened.close();
