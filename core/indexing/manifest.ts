import { lstat, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ChunkingConfig } from '../config/schema.js';
import type { IndexManifestSummary } from '../contract/status.js';
import { writeFileAtomic } from './atomicWrite.js';
import { isFileDigest, type FileDigest } from '../embedding/fileDigest.js';
import { DEFAULT_JOURNAL_FILE_FORMAT } from '../parse/pageNames.js';

/**
 * Bumped when the layout of the persisted index changes. 3: the manifest holds each file's SHA-256. 4: chunk texts
 * in a text store beside the notes file (notes.texts.jsonl), read when shown. 5: the keyword index's document tables
 * and title map a few thousand entries a line (keywordIndexFile.ts).
 */
export const SCHEMA_VERSION = 5;
export const MANIFEST_FILE = 'manifest.json';
/** `IndexIdentity.embedding.table` of an index embedded with the model's own table, not one adapted to the vault. */
export const SHIPPED_TABLE = 'shipped';

/** What an index was built with. Any difference on open means the index no longer matches: rebuild. */
export interface IndexIdentity {
  schemaVersion: number;
  chunkerVersion: number;
  chunking: ChunkingConfig;
  /** `table`: "shipped", or the hash of the table adapted to this vault (an index of a manifest without it used the shipped one). */
  embedding: { modelId: string; dims: number; dtype: string; fingerprint: string; tokenWindow: number; table: string };
  grammarVersion: string;
  vaultPath: string;
  /** The Logseq graph's journal file-name format (logseq/config.edn); journal pages are dated by it. */
  journalFormat: string;
}

export interface Manifest extends IndexIdentity, IndexManifestSummary {
  /** The persisted files this manifest vouches for (paths relative to the generation folder), checked on open. */
  files: Record<string, FileDigest>;
}

/** The manifest, nothing (no index yet), or why it cannot be used (`damage`: treated as no index). */
export async function loadManifest(dir: string): Promise<{ manifest?: Manifest; damage?: string }> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    return { damage: code === 'EISDIR' ? 'a folder' : `cannot be read: ${code ?? (error as Error).message}` };
  }
  let value: Partial<Manifest> | null;
  try {
    value = JSON.parse(text) as Partial<Manifest> | null;
  } catch (error) {
    return { damage: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { damage: 'not a JSON object' };
  // An index of another schema is rebuilt for that reason (rebuildReason): its file list is not checked here.
  if (value.schemaVersion !== SCHEMA_VERSION) return { manifest: value as Manifest };
  if (!Number.isSafeInteger(value.generation) || value.generation! < 1) return { damage: `bad generation ${JSON.stringify(value.generation)}` };
  const files = value.files as Record<string, unknown> | undefined;
  if (typeof files !== 'object' || files === null || !Object.values(files).every(isFileDigest)) return { damage: 'bad file list' };
  // Names inside the generation folder only: a damaged (or planted) manifest never has a file outside it read.
  const outside = Object.keys(files).find((name) => !name.split('/').every((part) => /^[\w.-]+$/.test(part) && part !== '.' && part !== '..'));
  if (outside !== undefined) return { damage: `lists a file outside its folder: ${JSON.stringify(outside)}` };
  return { manifest: value as Manifest };
}

/** The manifest when it can be used (status reports). */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  return (await loadManifest(dir)).manifest;
}

/**
 * Written last, after every file it lists, so that it only ever describes complete files. Whatever is in its
 * place and is not a file (a folder: damage) is removed first, or every save would fail on it.
 */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const file = path.join(dir, MANIFEST_FILE);
  const existing = await lstat(file).catch(() => undefined);
  if (existing && !existing.isFile()) await rm(file, { recursive: true, force: true });
  await writeFileAtomic(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Whether `stored` differs from `current` in the chunking config alone: every note is then chunked again, but the
 * chunks that come out as they were keep their place in the keyword and vector indices.
 */
export function onlyChunkingChanged(stored: IndexIdentity | undefined, current: IndexIdentity): boolean {
  return stored !== undefined && rebuildReason(stored, current) !== undefined && rebuildReason(stored, { ...current, chunking: { ...stored.chunking } }) === undefined;
}

/** Why an index built as `stored` cannot serve `current`, or undefined when it can. */
export function rebuildReason(stored: IndexIdentity | undefined, current: IndexIdentity): string | undefined {
  if (!stored) return 'no index yet';
  if (stored.schemaVersion !== current.schemaVersion) return `index format changed (${stored.schemaVersion} → ${current.schemaVersion})`;
  if (stored.vaultPath !== current.vaultPath) return `vault moved (${stored.vaultPath} → ${current.vaultPath})`;
  if (stored.chunkerVersion !== current.chunkerVersion) return `chunker changed (version ${stored.chunkerVersion} → ${current.chunkerVersion})`;
  const storedJournalFormat = stored.journalFormat ?? DEFAULT_JOURNAL_FILE_FORMAT;
  if (storedJournalFormat !== current.journalFormat) return `Logseq journal file-name format changed (${storedJournalFormat} → ${current.journalFormat})`;
  if (stored.grammarVersion !== current.grammarVersion) return `Markdown grammar changed (${stored.grammarVersion} → ${current.grammarVersion})`;
  const changedChunking = (Object.keys(current.chunking) as Array<keyof ChunkingConfig>).filter((key) => stored.chunking?.[key] !== current.chunking[key]);
  if (changedChunking.length) {
    return `chunking config changed (${changedChunking.map((key) => `${key}: ${JSON.stringify(stored.chunking?.[key])} → ${JSON.stringify(current.chunking[key])}`).join(', ')})`;
  }
  const a = stored.embedding;
  const b = current.embedding;
  if (a?.modelId !== b.modelId || a.dtype !== b.dtype) return `embedding model changed (${a?.modelId} ${a?.dtype} → ${b.modelId} ${b.dtype})`;
  const storedTable = a.table ?? SHIPPED_TABLE;
  if (storedTable !== b.table) {
    return b.table === SHIPPED_TABLE ? `back to the shipped embedding table of ${b.modelId}` : `${b.modelId} adapted to this vault's vocabulary (table ${b.table})`;
  }
  if (a.dims !== b.dims || a.fingerprint !== b.fingerprint) return `embedding model files changed (${a.modelId})`;
  if (a.tokenWindow !== b.tokenWindow) return `token window changed (${a.tokenWindow} → ${b.tokenWindow})`;
  return undefined;
}
