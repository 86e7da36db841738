// The chunk worker thread: chunks notes with its own tree-sitter instance, so a note that faults the WASM parser
// (or exhausts memory) costs this thread, never the indexer's. See chunkerPool.ts.
import { parentPort, workerData } from 'node:worker_threads';
import type { ChunkingConfig } from '../config/schema.js';
import { createChunker } from './createChunker.js';
import { ReusingOutliner } from './reusingOutliner.js';
import { SafeOutliner } from './safeOutliner.js';
import { BasicTokenCounter, ModelTokenCounter } from './tokenCounter.js';
import { lowerThreadPriority } from '../process/priority.js';
import type { ChunkedNote, NoteInput } from './types.js';

export interface ChunkWorkerInit {
  config: ChunkingConfig;
  /** The token window. */
  window: number;
  /** The model folder whose tokenizer counts tokens; without one, `BasicTokenCounter` (exact for whole-word vocabularies). */
  tokenizerDir?: string;
}

export interface ChunkRequest {
  id: number;
  note: NoteInput;
  /** Chunk as plain text for this reason: the note crashed a worker before. */
  plainReason?: string;
  /** The note's encoded outline from the cache: no parse. */
  cachedOutline?: string;
  /** Reply with the outline when the note is parsed (for the cache). */
  wantOutline?: boolean;
}

/** `ready` once the parser is loaded (the timeout of a note counts from then), then one reply per request. */
export type ChunkReply = { ready: true } | ({ id: number; recycle: boolean } & ({ result: ChunkedNote; outline?: string } | { error: string }));

const { config, window, tokenizerDir } = workerData as ChunkWorkerInit;
// Chunking is background work: the indexer's thread, which answers searches, goes first (see priority.ts).
lowerThreadPriority();
const safe = await SafeOutliner.create();
const outliner = new ReusingOutliner(safe);
const tokens = tokenizerDir ? await ModelTokenCounter.load(tokenizerDir, window) : new BasicTokenCounter(window);
const chunker = await createChunker(config, tokens, outliner);

parentPort!.on('message', ({ id, note, plainReason, cachedOutline, wantOutline }: ChunkRequest) => {
  safe.plainReason = plainReason;
  outliner.cached = cachedOutline;
  let reply: ChunkReply;
  try {
    const result = chunker.chunk(note);
    const outline = wantOutline ? outliner.parsed : undefined;
    reply = { id, result, ...(outline ? { outline } : {}), recycle: safe.faults > 0 };
  } catch (error) {
    reply = { id, error: (error as Error).message, recycle: true };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true } satisfies ChunkReply);
