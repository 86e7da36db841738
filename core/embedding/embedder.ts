/**
 * The embedding model as the indexer sees it: `createEmbedder` finds the model (bundled folder, earlier
 * download, or the Hugging Face hub), loads it in a worker process (embeddingWorker.ts, which says why a process
 * and not a worker thread), and returns an `Embedder` that embeds batches there plus the model's own token counter
 * for the chunker. What a model folder holds and how it is checked is in modelFolder.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BasicTokenCounter, ModelTokenCounter, type TokenCounter } from '../chunking/tokenCounter.js';
import type { FusionDefaults } from '../config/rankingPolicy.js';
import type { ModelPrefixes } from '../contract/models.js';
import { describeExit, keepAlive, stopWorker } from '../process/workerProcess.js';
import type { WorkerInit, WorkerReply } from './embeddingWorker.js';
import { sendRequest, startWorker, type ReadyReply } from './embeddingWorkerStart.js';
import { readFusionDefaults } from './fusionDefaults.js';
import { NO_PREFIXES } from './modelCatalog.js';
import { defaultHubUrl } from './modelDownload.js';
import {
  checkModelId,
  EMBEDDING_DTYPES,
  EmbeddingModelError,
  inspectModelFolder,
  isCompleteModelFolder,
  isKnownDtype,
  onnxFileFor,
  prefixedFingerprint,
  readModelPrefixes,
  USE_BUNDLED,
  type ModelKind,
} from './modelFolder.js';

export interface EmbeddingProgress {
  done: number;
  total: number;
}

export interface Embedder {
  /** As configured, e.g. 'cairn-glove-100d' or 'Xenova/bge-small-en-v1.5'. */
  readonly modelId: string;
  readonly dims: number;
  readonly dtype: string;
  /** Identifies the exact model files (hash of config.json + tokenizer.json + onnx file size); part of the cache key and manifest. */
  readonly fingerprint: string;
  /** The model's own token counter and window: the chunker's TokenCounter. */
  readonly tokens: TokenCounter;
  /** The batch size in use (the configured one, or the default for the model kind). */
  readonly batchSize: number;
  /** Fusion defaults that come with the model (its cairn.json); absent for test doubles: the generic ones apply. */
  readonly searchDefaults?: FusionDefaults;
  /** Peak resident memory of the worker process so far, in bytes (diagnostics; the worker is not in process.memoryUsage()). */
  readonly workerMaxRss: number;
  /**
   * Embeds in the worker process, in batches; never blocks the caller's event loop. Returns unit vectors in input
   * order. The vectors of one call are views into one buffer (received from the worker in one piece).
   */
  embed(texts: readonly string[], onProgress?: (p: EmbeddingProgress) => void, signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * Embeds passages (chunk texts for the index): as `embed`, with the model's passage prefix instead of its query
   * prefix. Absent (test doubles, models without prefixes): `embed` serves both.
   */
  embedPassages?(texts: readonly string[], onProgress?: (p: EmbeddingProgress) => void, signal?: AbortSignal): Promise<Float32Array[]>;
  /** The query and passage prefixes in force (bge's query instruction, e5's "query: " / "passage: "); part of the fingerprint. */
  readonly prefixes?: ModelPrefixes;
  close(): Promise<void>;
}

export interface EmbedderOptions {
  /** `[embedding] model`: a folder name in the bundled models folder, or a Hugging Face hub id. */
  model: string;
  /** `[embedding] dtype`: which ONNX file, e.g. 'q8' → onnx/model_quantized.onnx. */
  dtype: string;
  /** `[embedding] batch_size`; 0 = the default for the model kind. */
  batchSize: number;
  /** `[embedding] max_tokens`; 0 = the model's window. */
  maxTokens: number;
  /** The app data folder: hub downloads go to <dataRoot>/models. */
  dataRoot: string;
  /** The bundled models folder; default <repo>/models. Tests point it at a temporary folder. */
  modelsDir?: string;
  /** Hugging Face hub address; default defaultHubUrl(): CAIRN_HUB_URL, else https://huggingface.co/ (tests serve a model locally; mirrors). */
  hubUrl?: string;
  /** Give up loading after this long without progress (download progress restarts it). Default 30 s. */
  loadTimeoutMs?: number;
}

const BUNDLED_MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const LOAD_TIMEOUT_MS = 30_000;
// One inference thread leaves the second core of a 2-core machine to the UI and the indexer. Measured there with
// the bundled model (bench/embed.bench.ts, dendron-vault): 1 thread 1,680-1,720 chunks/s, 2 threads 1,070-1,520;
// the static model is a table lookup and tokenisation (JavaScript, one thread anyway) dominates.
const INTRA_OP_THREADS = 1;
// Per model kind, texts sorted by length before batching: at most this many texts a batch, and (static model) at
// most so many characters, counting each text of a batch as long as its longest. Static model, measured through the
// worker on 2 cores (10,014 PowerShell-docs passages of 700 characters): batch 1 3,930-4,030 chunks/s, 4
// 4,060-4,210, 8 4,170-4,400, 16 4,110-4,440, 32 4,190-4,220: flat, since padding costs nothing in the pooling
// (meanPooling.ts). Short texts gain from large batches: the 150 or so sentences a hybrid search's second stage
// embeds take a median of 16-18 ms in batches of 4 and 10.5-11.7 ms in batches of 32 (each batch is a tokenizer
// call, a model run and a message). Long ones cost memory in large batches (all 47,126 PowerShell passages, the
// worker's peak: 291-295 MB in batches of 4, 329-339 MB in batches of 32, 290-322 MB in batches of 32 under the
// character cap, all in 17-20 s), hence the cap: a batch of passages of 2,000 characters holds 4, one of sentences
// 32. Transformer models gain from batching; 8 is the usual transformers.js choice (not measurable here: the hub is
// unreachable).
const DEFAULT_BATCH: Readonly<Record<ModelKind, { texts: number; chars: number }>> = {
  'static-word-embeddings': { texts: 32, chars: 8_000 },
  transformer: { texts: 8, chars: 0 },
};
// tokenizer_config.json says 1e30 when a model sets no limit; BERT-style models read 512 positions.
const ABSURD_MAX_LENGTH = 1_000_000;
const FALLBACK_MAX_LENGTH = 512;
export async function createEmbedder(options: EmbedderOptions): Promise<Embedder> {
  const { model: modelId, dtype } = options;
  checkModelId(modelId);
  if (!isKnownDtype(dtype)) {
    throw new EmbeddingModelError(`[embedding] dtype = "${dtype}" is not one of ${EMBEDDING_DTYPES.join(', ')}.`);
  }
  const downloadsDir = path.join(options.dataRoot, 'models');
  const loadTimeoutMs = options.loadTimeoutMs ?? LOAD_TIMEOUT_MS;

  let root = await localModelRoot(options);
  if (!root) {
    if (!options.dataRoot) throw new EmbeddingModelError(`embedding model "${modelId}" is not bundled and no app data folder was given to download it into; ${USE_BUNDLED}.`);
    await downloadModel(modelId, dtype, downloadsDir, options.hubUrl ?? defaultHubUrl(), loadTimeoutMs);
    root = downloadsDir;
  }

  // The worker starts at once: its process and transformers.js load (some 0.3 s) while the folder is checked here.
  const init: WorkerInit = { modelId, dtype, localModelPath: root, intraOpThreads: INTRA_OP_THREADS };
  const checked = new AbortController();
  const starting = startWorker(init, loadTimeoutMs, checked.signal);
  // Rejections are awaited below, after the folder's own check, whose error says more.
  starting.catch(() => undefined);
  const described = async () => {
    const folder = await inspectModelFolder(path.join(root, modelId), modelId, dtype);
    const searchDefaults = await readFusionDefaults(folder.dir).catch((e: Error) => {
      throw new EmbeddingModelError(`embedding model "${modelId}": ${e.message}`, { cause: e });
    });
    const prefixes = await readModelPrefixes(folder.dir, modelId).catch((e: Error) => {
      throw new EmbeddingModelError(`embedding model "${modelId}": ${e.message}`, { cause: e });
    });
    return { folder, searchDefaults, prefixes };
  };
  const { folder, searchDefaults, prefixes } = await described().catch((e: Error) => {
    checked.abort();
    throw e;
  });
  const started = await starting.catch((e: Error) => {
    throw new EmbeddingModelError(
      `embedding model "${modelId}" in ${folder.dir} could not be loaded (${e.message}). Check that the folder holds config.json, tokenizer.json and ${folder.onnxFile}, or ${USE_BUNDLED}.`,
      { cause: e },
    );
  });
  const { ready } = started;
  const modelWindow = Math.max(1, usableMaxLength(ready.maxLength) - ready.specialTokens);
  const window = options.maxTokens > 0 ? Math.min(options.maxTokens, modelWindow) : modelWindow;
  const counter = (w: number) =>
    ready.basicCountIsExact
      ? Promise.resolve(new BasicTokenCounter(w))
      : ModelTokenCounter.load(path.join(root, modelId), w).catch(async (e: Error) => {
          await stopWorker(started.worker);
          throw new EmbeddingModelError(`embedding model "${modelId}": its tokenizer could not be loaded for token counting (${e.message}).`, { cause: e });
        });
  let tokens: TokenCounter = await counter(window);
  // The passage prefix takes part of the window: chunks are cut to what is left.
  const prefixTokens = prefixes.passage ? tokens.count(prefixes.passage) : 0;
  if (prefixTokens > 0) tokens = await counter(Math.max(1, window - prefixTokens));
  // A batch size set in the config is taken as it is; the default one comes with its character cap.
  const batchSize = options.batchSize > 0 ? options.batchSize : DEFAULT_BATCH[folder.kind].texts;
  const batchChars = options.batchSize > 0 ? 0 : DEFAULT_BATCH[folder.kind].chars;
  const fingerprint = prefixedFingerprint(folder.fingerprint, prefixes);
  const embedder = new WorkerEmbedder(modelId, ready.dims, dtype, fingerprint, tokens, batchSize, batchChars, init, loadTimeoutMs, started, prefixes);
  return Object.assign(embedder, { searchDefaults });
}

/** The folder holding the model's folder when it is on disk (bundled, or downloaded on an earlier run), else undefined. */
async function localModelRoot(options: EmbedderOptions): Promise<string | undefined> {
  const bundledDir = options.modelsDir ?? BUNDLED_MODELS_DIR;
  const downloadsDir = path.join(options.dataRoot, 'models');
  if (existsSync(path.join(bundledDir, options.model, 'config.json'))) return bundledDir;
  // Downloaded on an earlier run: loads offline, no network access at all.
  if (options.dataRoot && (await isCompleteModelFolder(path.join(downloadsDir, options.model), options.dtype))) return downloadsDir;
  return undefined;
}

/** Whether the model's files are on disk where `createEmbedder` looks (bundled or downloaded): existence only, nothing read. */
export async function hasLocalModel(options: EmbedderOptions): Promise<boolean> {
  checkModelId(options.model);
  return isKnownDtype(options.dtype) && (await localModelRoot(options)) !== undefined;
}

/** A model already on disk, as `createEmbedder` would load it: its folder, kind and fingerprint (no worker started). */
export async function describeLocalModel(options: EmbedderOptions): Promise<{ dir: string; kind: ModelKind; fingerprint: string; adapted: boolean } | undefined> {
  checkModelId(options.model);
  if (!isKnownDtype(options.dtype)) return undefined;
  const root = await localModelRoot(options);
  if (!root) return undefined;
  const { dir, kind, fingerprint, adapted } = await inspectModelFolder(path.join(root, options.model), options.model, options.dtype);
  return { dir, kind, fingerprint, adapted };
}

function usableMaxLength(maxLength: number): number {
  return Number.isFinite(maxLength) && maxLength > 2 && maxLength <= ABSURD_MAX_LENGTH ? maxLength : FALLBACK_MAX_LENGTH;
}

/**
 * Downloads a hub model into <downloadsDir>/<modelId> through a worker that loads it from a private staging
 * folder, then moves the files in: an interrupted download never leaves a partial file where the next run
 * would trust it.
 */
async function downloadModel(modelId: string, dtype: string, downloadsDir: string, hubUrl: string, timeoutMs: number) {
  await mkdir(downloadsDir, { recursive: true });
  const staging = await mkdtemp(path.join(downloadsDir, '.download-'));
  try {
    const init: WorkerInit = { modelId, dtype, download: { cacheDir: staging, hubUrl }, intraOpThreads: INTRA_OP_THREADS };
    const { worker } = await startWorker(init, timeoutMs);
    await stopWorker(worker);
    await moveMissingFiles(path.join(staging, modelId), path.join(downloadsDir, modelId));
  } catch (e) {
    const reason = (e as Error).message;
    const offline = /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|no progress/i.test(reason);
    const advice = offline
      ? `Connect once to download it, or ${USE_BUNDLED}.`
      : `Check that "${modelId}" is a Hugging Face model with ONNX weights (${onnxFileFor(dtype)}), or ${USE_BUNDLED}.`;
    throw new EmbeddingModelError(
      `embedding model "${modelId}" is not in ${downloadsDir} and could not be downloaded from the Hugging Face hub (${reason}). ${advice}`,
      { cause: e },
    );
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Moves every file of `from` that `to` lacks (a second dtype of a model already downloaded adds its onnx file). */
async function moveMissingFiles(from: string, to: string) {
  for (const entry of await readdir(from, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const source = path.join(entry.parentPath, entry.name);
    const target = path.join(to, path.relative(from, source));
    if (existsSync(target)) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await rename(source, target);
  }
}

/** What a text is to the model: a query, or a passage to be found (models trained with instructions prefix each differently). */
export type TextRole = 'query' | 'passage';

/** The texts with `prefix` in front of each (the same array when there is none). */
export function withPrefix(texts: readonly string[], prefix: string): readonly string[] {
  return prefix ? texts.map((t) => prefix + t) : texts;
}

interface PendingEmbed {
  count: number;
  onProgress?: (p: EmbeddingProgress) => void;
  resolve(vectors: Float32Array[]): void;
  reject(error: unknown): void;
}

class WorkerEmbedder implements Embedder {
  private worker: ChildProcess | undefined;
  private restarting: Promise<ChildProcess> | undefined;
  private readonly pending = new Map<number, PendingEmbed>();
  private nextId = 1;
  private closed = false;
  workerMaxRss: number;

  constructor(
    readonly modelId: string,
    readonly dims: number,
    readonly dtype: string,
    readonly fingerprint: string,
    readonly tokens: TokenCounter,
    readonly batchSize: number,
    /** At most this many characters a batch (each text counted as long as the batch's longest); 0 = no cap. */
    private readonly batchChars: number,
    private readonly init: WorkerInit,
    private readonly loadTimeoutMs: number,
    started: { worker: ChildProcess; ready: ReadyReply },
    readonly prefixes: ModelPrefixes = { ...NO_PREFIXES },
  ) {
    this.workerMaxRss = started.ready.maxRss;
    this.attach(started.worker);
  }

  embed(texts: readonly string[], onProgress?: (p: EmbeddingProgress) => void, signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embedRaw(withPrefix(texts, this.prefixes.query), onProgress, signal);
  }

  embedPassages(texts: readonly string[], onProgress?: (p: EmbeddingProgress) => void, signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embedRaw(withPrefix(texts, this.prefixes.passage), onProgress, signal);
  }

  private async embedRaw(texts: readonly string[], onProgress?: (p: EmbeddingProgress) => void, signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    this.throwIfClosed();
    if (texts.length === 0) return [];
    // A live worker gets the request in this turn: the caller works on while it embeds (see scoreUnits).
    const worker = this.worker ?? (await this.liveWorker());
    signal?.throwIfAborted();
    this.throwIfClosed();
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.has(id)) return;
        this.settle(id);
        sendRequest(worker, { type: 'cancel', id });
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        count: texts.length,
        onProgress,
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
      keepAlive(worker, true);
      sendRequest(worker, { type: 'embed', id, texts, batchSize: this.batchSize, batchChars: this.batchChars });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failAll(new EmbeddingModelError(`the embedder for model "${this.modelId}" was closed while embedding.`));
    const worker = this.worker ?? (await this.restarting?.catch(() => undefined));
    this.worker = undefined;
    if (worker) await stopWorker(worker);
  }

  /** Test hook: makes the worker throw an uncaught error, as a real crash would. */
  crashWorkerForTesting(): void {
    if (this.worker) sendRequest(this.worker, { type: 'crash' });
  }

  private throwIfClosed() {
    if (this.closed) throw new EmbeddingModelError(`the embedder for model "${this.modelId}" is closed.`);
  }

  private attach(worker: ChildProcess) {
    this.worker = worker;
    worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    worker.on('error', (e: Error) => this.onWorkerGone(worker, `failed (${e.message})`));
    // 'close' rather than 'exit': by then stderr is read to the end.
    worker.on('close', (code: number | null, signal: string | null) => this.onWorkerGone(worker, describeExit(worker, code, signal)));
    keepAlive(worker, false);
  }

  private onReply(reply: WorkerReply) {
    if (reply.type !== 'progress' && reply.type !== 'result' && reply.type !== 'failed') return;
    const request = this.pending.get(reply.id);
    if (!request) return; // cancelled
    if (reply.type === 'progress') {
      try {
        request.onProgress?.({ done: reply.done, total: reply.total });
      } catch (e) {
        this.settle(reply.id);
        if (this.worker) sendRequest(this.worker, { type: 'cancel', id: reply.id });
        request.reject(e);
      }
      return;
    }
    this.settle(reply.id);
    if (reply.type === 'failed') {
      request.reject(new EmbeddingModelError(`embedding model "${this.modelId}" failed to embed ${request.count} text(s): ${reply.message}`));
      return;
    }
    const { vectors } = reply;
    this.workerMaxRss = Math.max(this.workerMaxRss, reply.maxRss);
    if (vectors.length !== request.count * this.dims) {
      request.reject(new EmbeddingModelError(`embedding model "${this.modelId}" returned ${vectors.length} floats for ${request.count} text(s) of ${this.dims} dims.`));
      return;
    }
    request.resolve(Array.from({ length: request.count }, (_, i) => vectors.subarray(i * this.dims, (i + 1) * this.dims)));
  }

  private settle(id: number) {
    this.pending.delete(id);
    if (this.pending.size === 0 && this.worker) keepAlive(this.worker, false);
  }

  private onWorkerGone(worker: ChildProcess, what: string) {
    if (this.worker !== worker) return; // closed, or the 'exit' that follows an 'error'
    this.worker = undefined;
    this.failAll(new EmbeddingModelError(`the embedding worker for model "${this.modelId}" ${what}; the next embed() call starts a new one.`));
  }

  private failAll(error: Error) {
    const requests = [...this.pending.values()];
    this.pending.clear();
    for (const request of requests) request.reject(error);
  }

  /** The running worker, or a new one after a crash (the model files are local by now). */
  private liveWorker(): Promise<ChildProcess> {
    if (this.worker) return Promise.resolve(this.worker);
    this.restarting ??= startWorker(this.init, this.loadTimeoutMs)
      .then(
        ({ worker, ready }) => {
          if (ready.dims !== this.dims || this.closed) {
            void stopWorker(worker);
            throw new EmbeddingModelError(
              this.closed
                ? `the embedder for model "${this.modelId}" is closed.`
                : `embedding model "${this.modelId}" changed on disk: it now returns ${ready.dims}-d vectors instead of ${this.dims}; restart Cairn.`,
            );
          }
          this.attach(worker);
          return worker;
        },
        (e: Error) => {
          throw new EmbeddingModelError(`embedding model "${this.modelId}" could not be restarted after its worker ended (${e.message}).`, { cause: e });
        },
      )
      .finally(() => (this.restarting = undefined));
    return this.restarting;
  }
}
