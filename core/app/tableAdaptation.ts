// Learning a vault's vocabulary: whether its shipped static table can be adapted, and one adaptation run (training
// in a child process on the last saved index, recorded in the data folder). The open vault decides when (vault.ts).
import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { adaptStaticModel, TooLittleTextError } from '../adapt/adaptStaticModel.js';
import type { AdaptProgress } from '../contract/status.js';
import { newTableFolder, notesSnapshotFile, recordAdaptation, removeTablesExcept, type AdaptationState, type AdaptedTable } from '../adapt/adaptedTables.js';
import { describeLocalModel, type EmbedderOptions } from '../embedding/embedder.js';
import { notesFileOf } from '../indexing/indexState.js';
import { textsFileBeside } from '../indexing/textStore.js';
import { readManifest } from '../indexing/manifest.js';

/** A shipped static model this vault can adapt (`[embedding] adapt` on), with its files' fingerprint. */
export interface AdaptableModel {
  model: string;
  dir: string;
  fingerprint: string;
}

export type AdaptOutcome = { adapted: true; state: AdaptationState } | { adapted: false; reason: string };

/** The configured model when it is a shipped static table on disk in q8 (what adaptation reads and writes), else undefined. */
export async function adaptableModel(options: EmbedderOptions): Promise<AdaptableModel | undefined> {
  if (options.dtype !== 'q8') return undefined;
  const local = await describeLocalModel(options).catch(() => undefined);
  // A table already adapted (to some vault) is not adapted again: adaptation starts from the shipped rows.
  if (local?.kind !== 'static-word-embeddings' || local.adapted) return undefined;
  return { model: options.model, dir: local.dir, fingerprint: local.fingerprint };
}

export interface AdaptRun {
  dataDir: string;
  base: AdaptableModel;
  /** The table in force (kept when this run fails). */
  current: AdaptedTable | undefined;
  /** The hashes of the chunks to train on: the index as it is when training starts. */
  chunkHashes: () => string[];
  onProgress?: (p: AdaptProgress) => void;
  signal?: AbortSignal;
}

/**
 * Trains a copy of the shipped table on pairs mined from the last saved index and records it; returns the outcome
 * and the table now recorded (undefined when nothing was recorded). A failure or an abort leaves the table in force.
 */
export async function adaptTable(run: AdaptRun): Promise<{ outcome: AdaptOutcome; recorded?: AdaptedTable }> {
  const { dataDir, base } = run;
  const manifest = await readManifest(dataDir);
  if (!manifest) return { outcome: { adapted: false, reason: 'the vault is not indexed yet' } };
  const trainedOn = run.chunkHashes();
  const folder = newTableFolder(dataDir, base.model);
  const notes = notesSnapshotFile(dataDir, folder.name);
  await mkdir(path.dirname(notes), { recursive: true });
  try {
    // A copy: the index may save new generations (and delete this one) while the trainer reads.
    await copyFile(notesFileOf(dataDir, manifest), notes);
    await copyFile(textsFileBeside(notesFileOf(dataDir, manifest)), textsFileBeside(notes));
    const result = await adaptStaticModel({
      baseModelDir: base.dir,
      baseModelId: base.model,
      baseFingerprint: base.fingerprint,
      notesFile: notes,
      outDir: folder.outDir,
      signal: run.signal,
      onProgress: run.onProgress,
    });
    const state: AdaptationState = {
      base: base.model,
      baseFingerprint: base.fingerprint,
      table: folder.name,
      tableHash: result.tableHash,
      adaptedAt: new Date().toISOString(),
      seconds: result.seconds,
      steps: result.steps,
      pairs: result.pairs,
      heldOutMrr: result.heldOutMrr,
      chunks: trainedOn.length,
    };
    await recordAdaptation(dataDir, state, trainedOn);
    return { outcome: { adapted: true, state }, recorded: { state, modelsDir: folder.modelsDir, trainedOn: new Set(trainedOn) } };
  } catch (error) {
    if (!(error instanceof TooLittleTextError)) {
      // The table in force stays; a half-written folder of this attempt goes.
      await removeTablesExcept(dataDir, run.current?.state.table ?? null, run.current?.state.tableHash).catch(() => {});
      throw error;
    }
    const state: AdaptationState = { base: base.model, baseFingerprint: base.fingerprint, table: null, reason: error.message, adaptedAt: new Date().toISOString(), chunks: trainedOn.length };
    await recordAdaptation(dataDir, state, trainedOn);
    return { outcome: { adapted: false, reason: error.message }, recorded: { state, trainedOn: new Set(trainedOn) } };
  } finally {
    await rm(notes, { force: true });
    await rm(textsFileBeside(notes), { force: true });
  }
}
