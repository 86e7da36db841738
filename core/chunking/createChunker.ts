import type { ChunkingConfig } from '../config/schema.js';
import { HeaderBasedChunker, WholeNoteChunker } from './noteChunker.js';
import { SafeOutliner, type Outliner } from './safeOutliner.js';
import type { TokenCounter } from './tokenCounter.js';
import type { Chunker } from './types.js';

/** The one place where `[chunking] strategy` chooses a chunker. It chunks in this thread (see `createNoteChunker` for the indexer's). */
export async function createChunker(config: ChunkingConfig, tokens: TokenCounter, outliner?: Outliner): Promise<Chunker> {
  outliner ??= await SafeOutliner.create();
  switch (config.strategy) {
    case 'header_based':
      return new HeaderBasedChunker(outliner, config, tokens);
    case 'none':
      return new WholeNoteChunker(outliner, config, tokens);
  }
}
