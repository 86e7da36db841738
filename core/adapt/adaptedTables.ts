/**
 * The tables adapted to one vault, kept in its data folder (never in the vault):
 *
 *   <dataDir>/adapted/state.json        which table is in force, for which shipped model, and how it was made
 *   <dataDir>/adapted/trained-on.txt    the chunk hashes it was trained on (one per line): the share of the vault
 *                                       changed since decides when to adapt again
 *   <dataDir>/adapted/t<ms>/<model>/    the adapted model folder, laid out like the shipped one
 *
 * state.json is written last (atomically), so it only ever names a complete folder; older folders and their
 * embedding caches are deleted after it.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { writeFileAtomic } from '../indexing/atomicWrite.js';

const ADAPTED_DIR = 'adapted';
const STATE_FILE = 'state.json';
const TRAINED_ON_FILE = 'trained-on.txt';
const SHIPPED_CACHE_FILE = 'embeddings.bin';

export interface AdaptationState {
  /** The shipped model adapted, and its fingerprint: a table made from other files is never used. */
  base: string;
  baseFingerprint: string;
  /** Folder under adapted/ holding the adapted model, or null when the last attempt found too little text to learn from. */
  table: string | null;
  tableHash?: string;
  /** Why there is no table (too little text). */
  reason?: string;
  adaptedAt: string;
  seconds?: number;
  pairs?: { train: number; heldOut: number };
  heldOutMrr?: { before: number; after: number };
  steps?: number;
  /** How many chunks the vault had when it was adapted. */
  chunks: number;
}

/** The adaptation in force for a shipped model, and where its model folder's parent is (createEmbedder's `modelsDir`). */
export interface AdaptedTable {
  state: AdaptationState;
  /** Set when a table is in force. */
  modelsDir?: string;
  trainedOn: ReadonlySet<string>;
}

const adaptedDir = (dataDir: string) => path.join(dataDir, ADAPTED_DIR);

/** The embedding cache file of a table: the shipped table keeps the file it always had, so adapting never re-embeds it. */
export function embeddingCacheFile(dataDir: string, tableHash?: string): string {
  return path.join(dataDir, tableHash ? `embeddings-${tableHash}.bin` : SHIPPED_CACHE_FILE);
}

/** What adaptation is recorded for `base` (undefined: never adapted, adapted from other files, or the folder is gone). */
export async function readAdaptation(dataDir: string, base: { model: string; fingerprint: string }): Promise<AdaptedTable | undefined> {
  let state: AdaptationState;
  try {
    state = JSON.parse(await readFile(path.join(adaptedDir(dataDir), STATE_FILE), 'utf8')) as AdaptationState;
  } catch {
    return undefined; // none yet, or unreadable: adapting again replaces it
  }
  if (typeof state !== 'object' || state === null || state.base !== base.model || state.baseFingerprint !== base.fingerprint) return undefined;
  const trainedOn = new Set((await readFile(path.join(adaptedDir(dataDir), TRAINED_ON_FILE), 'utf8').catch(() => '')).split('\n').filter(Boolean));
  if (state.table === null) return { state, trainedOn };
  if (typeof state.table !== 'string' || !/^t\d+$/.test(state.table) || typeof state.tableHash !== 'string' || !/^[0-9a-f]{8,64}$/.test(state.tableHash)) return undefined;
  const modelsDir = path.join(adaptedDir(dataDir), state.table);
  if (!existsSync(path.join(modelsDir, base.model, 'config.json'))) return undefined;
  return { state, modelsDir, trainedOn };
}

/** A new, unused folder for the next table: `modelsDir` for createEmbedder, `outDir` for the model itself. */
export function newTableFolder(dataDir: string, model: string, now = Date.now()): { name: string; modelsDir: string; outDir: string } {
  let stamp = now;
  while (existsSync(path.join(adaptedDir(dataDir), `t${stamp}`))) stamp++;
  const name = `t${stamp}`;
  const modelsDir = path.join(adaptedDir(dataDir), name);
  return { name, modelsDir, outDir: path.join(modelsDir, model) };
}

/** A temporary copy of the index's notes file for the trainer to read while the index keeps saving new generations. */
export function notesSnapshotFile(dataDir: string, name: string): string {
  return path.join(adaptedDir(dataDir), `${name}.notes.jsonl`);
}

/** Puts `state` in force (written last), then deletes every other table folder and their embedding caches. */
export async function recordAdaptation(dataDir: string, state: AdaptationState, trainedOn: Iterable<string>): Promise<void> {
  const dir = adaptedDir(dataDir);
  await writeFileAtomic(path.join(dir, TRAINED_ON_FILE), `${[...trainedOn].join('\n')}\n`);
  await writeFileAtomic(path.join(dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
  await removeTablesExcept(dataDir, state.table, state.tableHash);
}

/** Deletes table folders other than `keep` (leftovers of a crash, replaced tables) and caches of tables other than `keepHash`. */
export async function removeTablesExcept(dataDir: string, keep: string | null, keepHash: string | undefined): Promise<void> {
  const dir = adaptedDir(dataDir);
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (/^t\d+(\.notes\.jsonl)?$/.test(entry) && entry !== keep) await rm(path.join(dir, entry), { recursive: true, force: true });
  }
  for (const entry of await readdir(dataDir).catch(() => [] as string[])) {
    const match = /^embeddings-([0-9a-f]+)\.bin$/.exec(entry);
    if (match && match[1] !== keepHash) await rm(path.join(dataDir, entry), { force: true });
  }
}

/** Share of `current` chunk hashes the table was not trained on (new or changed text), 0..1. */
export function changedShare(trainedOn: ReadonlySet<string>, current: Iterable<string>): number {
  let total = 0;
  let unseen = 0;
  for (const hash of current) {
    total++;
    if (!trainedOn.has(hash)) unseen++;
  }
  return total === 0 ? 0 : unseen / total;
}
