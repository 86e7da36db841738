import type { ChunkingConfig } from '../config/schema.js';
import { MarkdownOutliner } from '../parse/markdownTree.js';
import { HeaderBasedChunker, WholeNoteChunker } from './noteChunker.js';
import type { TokenCounter } from './tokenCounter.js';
import type { Chunker } from './types.js';

/** The one place where `[chunking] strategy` chooses a chunker. */
export async function createChunker(config: ChunkingConfig, tokens: TokenCounter): Promise<Chunker> {
  const outliner = await MarkdownOutliner.create();
  switch (config.strategy) {
    case 'header_based':
      return new HeaderBasedChunker(outliner, config, tokens);
    case 'none':
      return new WholeNoteChunker(outliner, config, tokens);
  }
}
