// What a search allocates, by function: V8's sampling heap profiler (objects the young and old collections freed
// included) over the size's sample queries on an index bench:scale already built. Garbage a query leaves is what
// its young-generation collections, the tail of hybrid latency, are paid for.
// Usage: node --import tsx bench/scale/queryAllocations.ts <vault> <data-dir> <samples.json> [mode, default hybrid]
import { Session } from 'node:inspector/promises';
import { readFile } from 'node:fs/promises';
import type { SearchMode } from '../../core/contract/search.js';
import { openVault } from '../support.js';
import type { VaultSamples } from './generateVault.js';
import { benchConfig, stageArgs } from './stageSupport.js';

interface SampledNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampledNode[];
}

const [vault, dataDir, samples, modeArg] = stageArgs('queryAllocations.ts <vault> <data-dir> <samples.json> [mode]', 3);
const mode = (modeArg ?? 'hybrid') as SearchMode;
const { queries } = JSON.parse(await readFile(samples, 'utf8')) as VaultSamples;
const opened = await openVault(vault, dataDir, benchConfig);
await opened.search({ query: queries[0], k: 10 });
await opened.settled();
// Warmed up (the code optimised), then from cold: no query's vectors kept from the warm-up.
for (const query of queries.slice(0, 30)) await opened.search({ query, k: 10, mode });
opened.forgetEmbeddedTexts();

const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
for (const query of queries) await opened.search({ query, k: 10, mode });
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();
await opened.close();

const own = new Map<string, number>();
const below = new Map<string, number>();
const walk = (node: SampledNode, stack: string[]): void => {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = `${functionName || '(anonymous)'} ${url.slice(url.lastIndexOf('/') + 1)}${lineNumber > 0 ? `:${lineNumber + 1}` : ''}`;
  const path = [...stack, name];
  own.set(name, (own.get(name) ?? 0) + node.selfSize);
  for (const frame of new Set(path)) below.set(frame, (below.get(frame) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child, path);
};
walk(profile.head as SampledNode, []);
const perQuery = (bytes: number) => `${(bytes / queries.length / 1024).toFixed(1).padStart(8)} KB`;
const top = (table: Map<string, number>, n: number) => [...table].sort((a, b) => b[1] - a[1]).slice(0, n);
const total = [...own.values()].reduce((a, b) => a + b, 0);
console.log(`${mode}: ${(total / queries.length / 2 ** 20).toFixed(2)} MB allocated a query (${queries.length} queries)`);
console.log('allocated in the function itself, a query:');
for (const [name, bytes] of top(own, 20)) console.log(`${perQuery(bytes)}  ${name}`);
console.log('allocated in it and what it called, a query:');
for (const [name, bytes] of top(below, 30)) console.log(`${perQuery(bytes)}  ${name}`);
