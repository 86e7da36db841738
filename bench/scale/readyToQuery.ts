// Scale stage 2 (a fresh process, as a user's next start): open the persisted index and answer one hybrid query.
// The parent times process start → this result line; the event-loop hold covers loading and the first answer.
import { openVault, withLoopHold } from '../support.js';
import { benchConfig, reportResult, stageArgs } from './stageSupport.js';

const [vault, dataDir, query] = stageArgs('readyToQuery.ts <vault> <data-dir> <query>', 3);
const started = performance.now();
const [answer, loadHeldMs] = await withLoopHold(async () => {
  const opened = await openVault(vault, dataDir, benchConfig);
  const openSeconds = (performance.now() - started) / 1000;
  const { results } = await opened.search({ query, mode: 'hybrid', k: 10 });
  return { opened, openSeconds, results: results.length };
});
reportResult({ results: answer.results, openSeconds: answer.openSeconds, loadHeldMs, pendingRebuild: answer.opened.status().pendingRebuild ?? null });
await answer.opened.close();
