import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChunkingConfig } from '../config/schema.js';
import type { ChunkReply, ChunkRequest, ChunkWorkerInit } from './chunkWorker.js';
import { BasicTokenCounter, ModelTokenCounter, type TokenCounter } from './tokenCounter.js';
import type { ChunkedNote, NoteChunker, NoteInput } from './types.js';

/** A note not chunked in this long is taken to hang its worker; generous, since a 20 MB note may take a while. */
const NOTE_TIMEOUT_MS = 120_000;

interface Pending {
  request: ChunkRequest;
  resolve(result: ChunkedNote): void;
  reject(error: Error): void;
}

/**
 * Chunks in a worker thread (`chunkWorker.ts`), one note at a time, in order. The indexer's thread stays free
 * (chunking a large note takes seconds), and a note that faults the parser only costs the worker: after a fault
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
  private closed = false;

  constructor(
    private readonly init: ChunkWorkerInit,
    private readonly timeoutMs = NOTE_TIMEOUT_MS,
  ) {}

  chunk(note: NoteInput): Promise<ChunkedNote> {
    if (this.closed) return Promise.reject(new Error('the chunker is closed'));
    return new Promise((resolve, reject) => {
      const pending = { request: { id: this.nextId++, note }, resolve, reject };
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
    if ('result' in reply) done.resolve(reply.result);
    else done.reject(new Error(reply.error));
    if (reply.recycle) this.restart();
    else if (this.pending.length) this.arm();
    else {
      clearTimeout(this.watchdog);
      // An idle worker does not keep the process alive.
      worker.unref();
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
 * The indexer's chunker: chunks in a worker thread, counting tokens there as `tokens` does (the basic count, or the
 * model's own tokenizer read from its folder).
 */
export function createNoteChunker(config: ChunkingConfig, tokens: TokenCounter): NoteChunker {
  if (tokens instanceof ModelTokenCounter) return new WorkerNoteChunker({ config, window: tokens.window, tokenizerDir: tokens.tokenizerDir });
  if (tokens instanceof BasicTokenCounter) return new WorkerNoteChunker({ config, window: tokens.window });
  throw new Error('a chunk worker can count tokens only with BasicTokenCounter or ModelTokenCounter');
}
