// Child of engine.bench.ts: opens a persisted index and answers one hybrid query, as a fresh process would.
import { openVault } from './support.js';

const [vault, dataDir, query] = process.argv.slice(2);
const opened = await openVault(vault, dataDir);
const { results } = await opened.search({ query, mode: 'hybrid', k: 10 });
process.stdout.write(`${JSON.stringify({ results: results.length, pendingRebuild: opened.status().pendingRebuild ?? null })}\n`);
await opened.close();
