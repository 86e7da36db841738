import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChunkingConfig } from '../config/schema.js';
import { writeFileAtomic } from './atomicWrite.js';

/** Bumped when the layout of the persisted index changes. */
export const SCHEMA_VERSION = 2;
export const MANIFEST_FILE = 'manifest.json';

/** What an index was built with. Any difference on open means the index no longer matches: rebuild. */
export interface IndexIdentity {
  schemaVersion: number;
  chunkerVersion: number;
  chunking: ChunkingConfig;
  embedding: { modelId: string; dims: number; dtype: string; fingerprint: string; tokenWindow: number };
  grammarVersion: string;
  vaultPath: string;
}

export interface Manifest extends IndexIdentity {
  /** The folder (g<generation>) holding the files this manifest describes. */
  generation: number;
  /** The persisted files this manifest vouches for, with their sizes: a file of another size is a torn write. */
  files: Record<string, number>;
  notes: number;
  chunks: number;
  builtAt: string;
  updatedAt: string;
}

export async function readManifest(dir: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as Manifest;
  } catch {
    return undefined;
  }
}

/** Written last, after every file it lists, so that it only ever describes complete files. */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  await writeFileAtomic(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Why an index built as `stored` cannot serve `current`, or undefined when it can. */
export function rebuildReason(stored: IndexIdentity | undefined, current: IndexIdentity): string | undefined {
  if (!stored) return 'no index yet';
  if (stored.schemaVersion !== current.schemaVersion) return `index format changed (${stored.schemaVersion} → ${current.schemaVersion})`;
  if (stored.vaultPath !== current.vaultPath) return `vault moved (${stored.vaultPath} → ${current.vaultPath})`;
  if (stored.chunkerVersion !== current.chunkerVersion) return `chunker changed (version ${stored.chunkerVersion} → ${current.chunkerVersion})`;
  if (stored.grammarVersion !== current.grammarVersion) return `Markdown grammar changed (${stored.grammarVersion} → ${current.grammarVersion})`;
  const changedChunking = (Object.keys(current.chunking) as Array<keyof ChunkingConfig>).filter((key) => stored.chunking?.[key] !== current.chunking[key]);
  if (changedChunking.length) {
    return `chunking config changed (${changedChunking.map((key) => `${key}: ${JSON.stringify(stored.chunking?.[key])} → ${JSON.stringify(current.chunking[key])}`).join(', ')})`;
  }
  const a = stored.embedding;
  const b = current.embedding;
  if (a?.modelId !== b.modelId || a.dtype !== b.dtype) return `embedding model changed (${a?.modelId} ${a?.dtype} → ${b.modelId} ${b.dtype})`;
  if (a.dims !== b.dims || a.fingerprint !== b.fingerprint) return `embedding model files changed (${a.modelId})`;
  if (a.tokenWindow !== b.tokenWindow) return `token window changed (${a.tokenWindow} → ${b.tokenWindow})`;
  return undefined;
}
