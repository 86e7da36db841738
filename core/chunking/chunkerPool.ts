import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChunkingConfig } from '../config/schema.js';
import type { ChunkReply, ChunkRequest, ChunkWorkerInit } from './chunkWorker.js';
import { BasicTokenCounter, ModelTokenCounter, type TokenCounter } from './tokenCounter.js';
import type { ChunkedNote, NoteChunker, NoteInput, OutlineUse } from './types.js';

/** A note not chunked in this long is taken to hang its worker; generous, since a 20 MB note may take a while. */
const NOTE_TIMEOUT_MS = 120_000;
/** Chunk workers at most, whatever the core count: each holds a parser, a tokenizer and a note's chunks (tens of MB). */
const MAX_WORKERS = 8;
/** A pool's extra workers (all but the first, which answers live edits at once) end after this long without work. */
const SPARE_IDLE_MS = 30_000;
/**
 * The first worker ends after this long without work: an idle worker holds its isolate, parser and WASM memory
 * (80–100 MB after a large vault), and a new one takes a fraction of a second to start, which a lone edit after a
 * quiet spell pays once; a burst of edits keeps the worker.
 */
const FIRST_IDLE_MS = 120_000;

interface Pending {
  request: ChunkRequest;
  resolve(result: ChunkedNote): void;
  reject(error: Error): void;
  keepOutline?(encoded: string): void;
}

/**
 * Chunks in one worker thread (`chunkWorker.ts`), one note at a time, in order (`NoteChunkerPool` runs several). The
 * indexer's thread stays free (chunking a large note takes seconds), and a note that faults the parser only costs the worker: after a fault
 * the worker is replaced by a fresh one (new WASM memory); a note that killed or hung its worker is chunked again
 * as plain text, and fails with a reason naming what happened only if that crashes too.
 */
export class WorkerNoteChunker implements NoteChunker {
  private worker?: Worker;
  private workerReady = false;
  /** Requests sent to the current worker and not answered yet, oldest (the one being chunked) first. */
  private readonly pending: Pending[] = [];
  private nextId = 0;
  private watchdog?: NodeJS.Timeout;
  private idleTimer?: NodeJS.Timeout;
  private closed = false;

  /** `idleStopMs`: end the thread (and free its memory) after this long without work; the next note starts another. */
  constructor(
    private readonly init: ChunkWorkerInit,
    private readonly timeoutMs = NOTE_TIMEOUT_MS,
    private readonly idleStopMs?: number,
  ) {}

  /** Requests not answered yet: how busy this worker is. */
  get queued(): number {
    return this.pending.length;
  }

  /** Whether a worker thread is running now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  chunk(note: NoteInput, outline?: OutlineUse): Promise<ChunkedNote> {
    if (this.closed) return Promise.reject(new Error('the chunker is closed'));
    return new Promise((resolve, reject) => {
      const request: ChunkRequest = { id: this.nextId++, note, ...(outline?.cached ? { cachedOutline: outline.cached } : {}), ...(outline?.keep ? { wantOutline: true } : {}) };
      const pending: Pending = { request, resolve, reject, ...(outline?.keep ? { keepOutline: outline.keep } : {}) };
      this.pending.push(pending);
      this.send(pending);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.pending.splice(0)) p.reject(new Error('the chunker is closed'));
    await this.stop();
  }

  private send(pending: Pending): void {
    clearTimeout(this.idleTimer);
    const worker = this.ensureWorker();
    worker.ref();
    worker.postMessage(pending.request);
    if (this.pending[0] === pending) this.arm();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.init);
    worker.on('message', (reply: ChunkReply) => this.answered(worker, reply));
    worker.on('error', (error) => this.crashed(worker, error.message));
    worker.on('exit', (code) => this.crashed(worker, `its thread exited with code ${code}`));
    this.worker = worker;
    this.workerReady = false;
    return worker;
  }

  private answered(worker: Worker, reply: ChunkReply): void {
    if (worker !== this.worker) return;
    if ('ready' in reply) {
      this.workerReady = true;
      if (this.pending.length) this.arm();
      return;
    }
    if (this.pending[0]?.request.id !== reply.id) return;
    const done = this.pending.shift()!;
    if ('result' in reply) {
      if (reply.outline) done.keepOutline?.(reply.outline);
      done.resolve(reply.result);
    } else done.reject(new Error(reply.error));
    if (reply.recycle) this.restart();
    else if (this.pending.length) this.arm();
    else {
      clearTimeout(this.watchdog);
      // An idle worker does not keep the process alive.
      worker.unref();
      if (this.idleStopMs !== undefined) {
        this.idleTimer = setTimeout(() => this.pending.length === 0 && void this.stop(), this.idleStopMs);
        this.idleTimer.unref();
      }
    }
  }

  /** The worker died or hung on the oldest request: retry that one as plain text (once), and the rest as they were. */
  private crashed(worker: Worker, reason: string): void {
    if (worker !== this.worker) return;
    const victim = this.pending[0];
    if (victim) {
      const why = `the chunk worker failed on it (${reason}): indexed as plain text`;
      if (victim.request.plainReason) {
        this.pending.shift();
        victim.reject(new Error(`could not be chunked: ${reason}`));
      } else {
        victim.request = { ...victim.request, plainReason: why };
      }
    }
    this.restart();
  }

  /** Replaces the worker, sending it what the old one had not answered. */
  private restart(): void {
    void this.stop();
    if (this.closed) return;
    for (const p of this.pending) this.send(p);
  }

  private async stop(): Promise<void> {
    clearTimeout(this.watchdog);
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  /** Starts the clock on the oldest request, once the worker is ready. */
  private arm(): void {
    clearTimeout(this.watchdog);
    if (!this.workerReady) return;
    const worker = this.worker;
    const id = this.pending[0]?.request.id;
    this.watchdog = setTimeout(() => {
      if (worker && this.worker === worker && this.pending[0]?.request.id === id) this.crashed(worker, `no result after ${this.timeoutMs / 1000} s`);
    }, this.timeoutMs);
    this.watchdog.unref();
  }
}

/** Starts a chunk worker: from TypeScript sources (tests, bin/cairn) through tsx; built (Electron), the .js beside this code. */
function startWorker(init: ChunkWorkerInit): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(`./chunkWorker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSources) return new Worker(fileURLToPath(entry), { workerData: init });
  // A worker thread does not inherit tsx when it was registered through its API (bin/cairn): register it there too.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: init });
}

/**
 * Chunk workers side by side, one per spare core (the tree-sitter parse is the cost): each note goes to the worker with
 * the fewest notes waiting (the first on a tie), so all are busy while the caller keeps enough notes in flight
 * (`workers` × 2 or more), and a single edit goes to the first. Workers start on their first note; the spare ones
 * end when idle for `spareIdleMs`, the first when idle for the longer `firstIdleMs`. Each is isolated from the others'
 * faults as `WorkerNoteChunker` says.
 */
export class NoteChunkerPool implements NoteChunker {
  private readonly lanes: WorkerNoteChunker[];

  constructor(init: ChunkWorkerInit, workers = defaultWorkerCount(), spareIdleMs = SPARE_IDLE_MS, firstIdleMs = FIRST_IDLE_MS) {
    this.lanes = Array.from({ length: Math.max(1, workers) }, (_, i) => new WorkerNoteChunker(init, NOTE_TIMEOUT_MS, i === 0 ? firstIdleMs : spareIdleMs));
  }

  get workers(): number {
    return this.lanes.length;
  }

  /** Worker threads running now. */
  get running(): number {
    return this.lanes.filter((lane) => lane.running).length;
  }

  chunk(note: NoteInput, outline?: OutlineUse): Promise<ChunkedNote> {
    const idlest = this.lanes.reduce((best, lane) => (lane.queued < best.queued ? lane : best));
    return idlest.chunk(note, outline);
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

/**
 * One chunk worker per core the process may use but one, at least one and at most `MAX_WORKERS`: while a vault is
 * indexed the main thread (keyword indexing, searches) and the embedding process need a core too. On two cores a
 * second worker made a 50k-chunk index no faster and its peak memory 40–120 MB higher.
 */
export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(os.availableParallelism() - 1, MAX_WORKERS));
}

/**
 * The indexer's chunker: chunks in worker threads, counting tokens there as `tokens` does (the basic count, or the
 * model's own tokenizer read from its folder).
 */
export function createNoteChunker(config: ChunkingConfig, tokens: TokenCounter): NoteChunkerPool {
  if (tokens instanceof ModelTokenCounter) return new NoteChunkerPool({ config, window: tokens.window, tokenizerDir: tokens.tokenizerDir });
  if (tokens instanceof BasicTokenCounter) return new NoteChunkerPool({ config, window: tokens.window });
  throw new Error('a chunk worker can count tokens only with BasicTokenCounter or ModelTokenCounter');
}
