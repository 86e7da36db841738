import { defaultConfig, type ChunkingConfig } from '../../core/config/schema.js';
import { createChunker } from '../../core/chunking/createChunker.js';
import { BasicTokenCounter } from '../../core/chunking/tokenCounter.js';
import type { Chunk } from '../../core/chunking/types.js';

export function chunkingConfig(overrides: Partial<ChunkingConfig> = {}): ChunkingConfig {
  return { ...defaultConfig().chunking, ...overrides };
}

/** Chunks one note with the real chunker (tree-sitter grammar included). */
export async function chunkText(text: string, overrides: Partial<ChunkingConfig> = {}, window = 510, path = 'note.md'): Promise<Chunk[]> {
  const chunker = await createChunker(chunkingConfig(overrides), new BasicTokenCounter(window));
  return chunker.chunk({ path, text, mtimeMs: 0 }).chunks;
}

export const words = (n: number, seed = 0): string =>
  Array.from({ length: n }, (_, i) => ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'][(i * 7 + seed) % 8]).join(' ');

/** A paragraph of `sentences` sentences of about 60 characters each. */
export const paragraph = (sentences: number, seed = 0): string =>
  Array.from({ length: sentences }, (_, i) => `Sentence ${seed}.${i} says ${words(8, seed + i)}.`).join(' ');
