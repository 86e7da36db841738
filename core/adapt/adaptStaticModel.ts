/**
 * Adapts a static embedding table (the bundled cairn-glove-100d kind) to one vault: contrastive training on pairs
 * mined from the vault's own indexed text (vaultPairs.ts), in a child process (adaptWorker.ts) so the caller's
 * event loop never waits on it. The adapted model is written into a temporary sibling of `outDir` and renamed in
 * only when complete: a crash, a kill or an abort leaves nothing at `outDir` (and whatever was there before).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AdaptProgress } from '../contract/status.js';
import { describeExit, forkWorkerProcess } from '../process/workerProcess.js';
import type { AdaptJob, AdaptReply, AdaptRequest, TrainingSettings } from './adaptWorker.js';

export interface AdaptOptions {
  /** The shipped static model's folder. */
  baseModelDir: string;
  /** e.g. 'cairn-glove-100d'. */
  baseModelId: string;
  /** Recorded in the adapted config.json. */
  baseFingerprint: string;
  /** An index's notes.jsonl. */
  notesFile: string;
  /** Final folder of the adapted model; written into a temp sibling, then renamed in. */
  outDir: string;
  seed?: number;
  /** Training steps at most (early stopping may end sooner). */
  steps?: number;
  /** Aborting kills the child; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  onProgress?: (p: AdaptProgress) => void;
  /**
   * Measurement knobs (bench/adapt.bench.ts); the defaults are the measured choice. `generalPairsFile` defaults to
   * the base model's adapt-general-pairs.jsonl.gz when it has one (null: none).
   */
  tuning?: Partial<Omit<TrainingSettings, 'steps'>>;
}

export interface AdaptResult {
  outDir: string;
  tableHash: string;
  /** Steps trained for the table kept (the best on the held-out pairs). */
  steps: number;
  pairs: { train: number; heldOut: number };
  heldOutMrr: { before: number; after: number };
  seconds: number;
  peakRssBytes: number;
}

/** The vault gave fewer mined pairs than adaptation needs: there is nothing to learn from. */
export class TooLittleTextError extends Error {
  constructor(
    message: string,
    readonly pairs: number,
    readonly minimum: number,
  ) {
    super(message);
    this.name = 'TooLittleTextError';
  }
}

export const DEFAULT_SEED = 12;

/**
 * General pairs shipped in the base model's folder (scripts/models/build-adapt-general-pairs.ts): mixed in one to
 * one with the vault's own pairs, they held up better against forgetting than a pull towards the shipped rows
 * (which cost most of the gain), and raised vector recall on both dev sets.
 */
export const GENERAL_PAIRS_FILE = 'adapt-general-pairs.jsonl.gz';

/**
 * Chosen by measurement with bench/adapt.bench.ts and `cairn eval` on the two dev sets: batch 256 ranks as well
 * as 512 at under half the time; held-out early stopping ends most runs before 300 steps.
 */
export const DEFAULT_SETTINGS: TrainingSettings = {
  steps: 300,
  batchSize: 256,
  learningRate: 1e-3,
  temperature: 0.05,
  anchor: 0,
  generalShare: 1,
  generalPairsFile: null,
  evalEvery: 20,
  patience: 3,
  minPairs: 200,
  mining: {},
};

export function adaptStaticModel(o: AdaptOptions): Promise<AdaptResult> {
  const started = performance.now();
  const outDir = path.resolve(o.outDir);
  const tmpDir = path.join(path.dirname(outDir), `.${path.basename(outDir)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const job: AdaptJob = {
    baseModelDir: path.resolve(o.baseModelDir),
    baseModelId: o.baseModelId,
    baseFingerprint: o.baseFingerprint,
    notesFile: path.resolve(o.notesFile),
    tmpDir,
    seed: o.seed ?? DEFAULT_SEED,
    settings: { ...DEFAULT_SETTINGS, ...o.tuning, steps: o.steps ?? DEFAULT_SETTINGS.steps, generalPairsFile: generalPairsFile(o) },
  };
  if (o.signal?.aborted) return Promise.reject(o.signal.reason);

  const worker = forkWorkerProcess(import.meta.url, 'adaptWorker');
  // The temp folder is removed only once the child is gone: a killed child must not write into it afterwards.
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => resolve());
    // A child that could not be spawned never exits.
    worker.once('error', () => worker.pid === undefined && resolve());
  });
  const run = new Promise<Extract<AdaptReply, { type: 'done' }>['summary']>((resolve, reject) => {
    let settled = false;
    const finish = (error: unknown, summary?: Extract<AdaptReply, { type: 'done' }>['summary']) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      if (error !== undefined) {
        if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
        reject(error);
      } else resolve(summary!);
    };
    // Killed outright: a child in the middle of a training step would not see a polite request before it ends.
    const onAbort = () => finish(o.signal!.reason);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: AdaptReply) => {
      if (reply.type === 'progress') {
        if (!settled) o.onProgress?.({ phase: reply.phase, done: reply.done, total: reply.total });
      } else if (reply.type === 'done') finish(undefined, reply.summary);
      else if (reply.tooLittleText) finish(new TooLittleTextError(reply.message, reply.tooLittleText.pairs, reply.tooLittleText.minimum));
      else finish(new Error(`vault adaptation failed: ${reply.message}`));
    });
    worker.on('error', (e) => finish(e));
    worker.on('exit', (code, signal) => finish(new Error(`vault adaptation worker ${describeExit(worker, code, signal)}`)));
    worker.send({ type: 'start', job } satisfies AdaptRequest);
  });

  return run.then(
    async (summary) => {
      await moveInto(tmpDir, outDir);
      return {
        outDir,
        tableHash: summary.tableHash,
        steps: summary.steps,
        pairs: summary.pairs,
        heldOutMrr: summary.heldOutMrr,
        seconds: (performance.now() - started) / 1000,
        peakRssBytes: summary.peakRssBytes,
      };
    },
    async (error: unknown) => {
      await exited;
      await rm(tmpDir, { recursive: true, force: true });
      throw error;
    },
  );
}

function generalPairsFile(o: AdaptOptions): string | null {
  if (o.tuning?.generalPairsFile !== undefined) return o.tuning.generalPairsFile && path.resolve(o.tuning.generalPairsFile);
  const shipped = path.resolve(o.baseModelDir, GENERAL_PAIRS_FILE);
  return existsSync(shipped) ? shipped : null;
}

/** Renames the finished folder into place; an older folder there is moved aside first and removed after. */
async function moveInto(tmpDir: string, outDir: string): Promise<void> {
  const old = `${tmpDir}.old`;
  let replaced = false;
  try {
    await rename(outDir, old);
    replaced = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      await rm(tmpDir, { recursive: true, force: true });
      throw e;
    }
  }
  try {
    await rename(tmpDir, outDir);
  } catch (e) {
    if (replaced) await rename(old, outDir).catch(() => {});
    await rm(tmpDir, { recursive: true, force: true });
    throw e;
  }
  if (replaced) await rm(old, { recursive: true, force: true });
}
