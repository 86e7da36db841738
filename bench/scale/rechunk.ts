// Scale stage 4 (a fresh process): what a chunking change costs. Opens the persisted index with another
// `[chunking] max_chunk_chars`, which makes the next index() rebuild it (cached embeddings are reused), and times that.
import { openVault, withLoopHold } from '../support.js';
import { benchConfig, reportResult, stageArgs } from './stageSupport.js';

const [vault, dataDir, maxChunkChars] = stageArgs('rechunk.ts <vault> <data-dir> <max-chunk-chars>', 3);
const opened = await openVault(vault, dataDir, (config) => {
  benchConfig(config);
  config.chunking.max_chunk_chars = Number(maxChunkChars);
});
const reason = opened.status().pendingRebuild;
if (!reason) throw new Error(`changing max_chunk_chars to ${maxChunkChars} did not call for a rebuild`);
const [summary, heldMs] = await withLoopHold(() => opened.index());
await opened.close();
reportResult({ summary, heldMs, reason });
