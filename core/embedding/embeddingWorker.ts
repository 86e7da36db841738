/**
 * The embedding worker: a child process (forked by embedder.ts) that loads one transformers.js
 * feature-extraction pipeline and embeds batches on request, so tokenisation and ONNX inference never run on the
 * caller's event loop. Requests are handled one at a time, in arrival order.
 *
 * Why a process and not a worker thread: onnxruntime-node 1.21 (the version transformers.js 3.8 pins) keeps
 * per-process native state, so a second worker thread in the same process aborts the process when it runs a
 * model, and a worker started after another one ended cannot load the binding ("Module did not self-register").
 * A process can be restarted after a crash, several embedders can coexist, and a native fault in onnxruntime
 * ends only this process.
 */
import { env, mean_pooling, pipeline, Tensor, type DataType, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { meanPooledUnitVectors } from './meanPooling.js';
import { batchesOf } from './textBatches.js';
import { countsOneTokenPerBasicToken } from './modelFolder.js';
import { shapeOf, WholeWordEncoder, type LibraryTokenizer } from './wholeWordEncoder.js';

/** How the worker finds the model: offline from a folder, or downloaded from the hub into a cache folder. */
export interface WorkerInit {
  modelId: string;
  dtype: string;
  /** Load `<localModelPath>/<modelId>` with remote access disabled. */
  localModelPath?: string;
  /** Download from the hub into `<cacheDir>/<modelId>`. */
  download?: { cacheDir: string; hubUrl: string };
  intraOpThreads: number;
}

export type WorkerRequest =
  | { type: 'init'; init: WorkerInit }
  /** `batchChars`: at most this many characters a batch, each text counted as long as the batch's longest; 0 = no cap. */
  | { type: 'embed'; id: number; texts: readonly string[]; batchSize: number; batchChars: number }
  | { type: 'cancel'; id: number }
  /** Test hook: throw an uncaught error, exactly like a crash. */
  | { type: 'crash' };

export type WorkerReply =
  /** Download progress while loading: the parent's load timeout restarts on each. */
  | { type: 'loading'; file: string }
  /** `basicCountIsExact`: BasicTokenCounter gives the tokenizer's exact count for ordinary text (and never less). */
  | { type: 'ready'; dims: number; maxLength: number; specialTokens: number; basicCountIsExact: boolean; maxRss: number }
  | { type: 'load-failed'; message: string }
  | { type: 'progress'; id: number; done: number; total: number }
  /** `vectors` holds texts.length * dims floats in input order. `maxRss`: this process's peak resident memory, bytes. */
  | { type: 'result'; id: number; vectors: Float32Array; maxRss: number }
  | { type: 'failed'; id: number; message: string };

const send = process.send?.bind(process);
if (!send) throw new Error('embeddingWorker.ts runs as a child process forked with an IPC channel (see embedder.ts)');
const post = (reply: WorkerReply) => void send(reply);
const errorText = (e: unknown) => (e instanceof Error ? (e.cause instanceof Error ? `${e.message} (${e.cause.message})` : e.message) : String(e));
const maxRss = () => process.resourceUsage().maxRSS * 1024;

// Download progress arrives per network chunk; a few messages a second are enough to keep the timeout alive.
const LOADING_MESSAGE_INTERVAL_MS = 250;

async function loadExtractor(init: WorkerInit): Promise<FeatureExtractionPipeline> {
  if (init.localModelPath) {
    env.allowLocalModels = true;
    env.localModelPath = init.localModelPath;
    env.allowRemoteModels = false;
    // No file cache for local models: a stale cached copy must never shadow the folder's files.
    env.useFSCache = false;
  } else if (init.download) {
    // Remote only: skips the "Unable to load from local path" probe for every file.
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = init.download.hubUrl;
    env.useFSCache = true;
    env.cacheDir = init.download.cacheDir;
  }
  let lastLoadingMessage = 0;
  const extractor = await pipeline('feature-extraction', init.modelId, {
    dtype: init.dtype as DataType,
    // Inference on one core leaves the other one to the UI and the indexer (see INTRA_OP_THREADS in embedder.ts).
    session_options: { intraOpNumThreads: init.intraOpThreads, interOpNumThreads: 1 },
    progress_callback: (info) => {
      const now = Date.now();
      if (now - lastLoadingMessage < LOADING_MESSAGE_INTERVAL_MS) return;
      lastLoadingMessage = now;
      post({ type: 'loading', file: 'file' in info ? info.file : '' });
    },
  });
  return extractor as FeatureExtractionPipeline;
}

/** Tokenises as the pipeline's tokenizer does: by the whole-word encoder when the tokenizer is of its kind. */
type Tokenize = (texts: string[]) => { attention_mask: Tensor };

function tokenizerOf(extractor: FeatureExtractionPipeline): Tokenize {
  const encoder = WholeWordEncoder.of(extractor.tokenizer as unknown as LibraryTokenizer);
  if (!encoder) return (texts) => extractor.tokenizer(texts, { padding: true, truncation: true }) as { attention_mask: Tensor };
  return (texts) => {
    const { dims, ...data } = encoder.encode(texts);
    return Object.fromEntries(Object.entries(data).map(([key, values]) => [key, new Tensor('int64', values, dims)])) as { attention_mask: Tensor };
  };
}

/**
 * One batch through the tokenizer and the pipeline's model, pooled as its { pooling: 'mean', normalize: true } does
 * (meanPooling.ts says why not by the pipeline itself). Returns [texts, dims] unit vectors.
 */
async function embedBatch(extractor: FeatureExtractionPipeline, tokenize: Tokenize, texts: string[]): Promise<{ vectors: Float32Array; dims: number }> {
  const inputs = tokenize(texts);
  const outputs = (await extractor.model(inputs)) as Record<string, Tensor>;
  try {
    const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
    if (!hidden || hidden.dims.length !== 3) throw new Error(`the model gave no token vectors (outputs: ${Object.keys(outputs).join(', ')})`);
    const [batch, tokens, dims] = hidden.dims as [number, number, number];
    if (!(hidden.data instanceof Float32Array)) {
      // A half-precision model's output: the library's own pooling (what its pipeline runs) handles every type.
      return { vectors: Float32Array.from(mean_pooling(hidden, inputs.attention_mask).normalize(2, -1).data as ArrayLike<number>), dims };
    }
    return { vectors: meanPooledUnitVectors(hidden.data, inputs.attention_mask.data as ArrayLike<bigint>, batch, tokens, dims), dims };
  } finally {
    for (const tensor of Object.values(outputs)) tensor.dispose();
  }
}

async function embedBatches(extractor: FeatureExtractionPipeline, tokenize: Tokenize, dims: number, request: Extract<WorkerRequest, { type: 'embed' }>) {
  const { id, texts } = request;
  // Texts of similar length share a batch, so little of each batch is padding; results go back to input order.
  const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
  const vectors = new Float32Array(texts.length * dims);
  let done = 0;
  for (const batch of batchesOf(order, (i) => texts[i]!.length, Math.max(1, request.batchSize), request.batchChars)) {
    if (cancelled.delete(id)) return;
    const output = await embedBatch(extractor, tokenize, batch.map((i) => texts[i]!));
    if (output.dims !== dims) throw new Error(`model returned ${output.dims}-d vectors, expected ${dims}`);
    batch.forEach((original, k) => vectors.set(output.vectors.subarray(k * dims, (k + 1) * dims), original * dims));
    done += batch.length;
    post({ type: 'progress', id, done, total: order.length });
  }
  post({ type: 'result', id, vectors, maxRss: maxRss() });
}

const cancelled = new Set<number>();
let queue: Promise<void> = Promise.resolve();

async function start(init: WorkerInit) {
  let extractor: FeatureExtractionPipeline;
  let dims: number;
  let basicCountIsExact = false;
  let tokenize: Tokenize;
  try {
    extractor = await loadExtractor(init);
    tokenize = tokenizerOf(extractor);
    // One probe gives the real output width (config.json's hidden_size need not be it).
    dims = (await embedBatch(extractor, tokenize, [''])).dims;
    basicCountIsExact = countsOneTokenPerBasicToken(shapeOf(extractor.tokenizer as unknown as LibraryTokenizer));
  } catch (e) {
    post({ type: 'load-failed', message: errorText(e) });
    return;
  }
  const tokenizer = extractor.tokenizer;
  post({ type: 'ready', dims, maxLength: Number(tokenizer.model_max_length), specialTokens: tokenizer.encode('').length, basicCountIsExact, maxRss: maxRss() });
  process.on('message', (request: WorkerRequest) => {
    switch (request.type) {
      case 'embed':
        queue = queue.then(() =>
          embedBatches(extractor, tokenize, dims, request).catch((e: unknown) => post({ type: 'failed', id: request.id, message: errorText(e) })),
        );
        break;
      case 'cancel':
        cancelled.add(request.id);
        // An id cancelled after its request finished would stay behind; drop it once the queue has moved past.
        queue = queue.then(() => void cancelled.delete(request.id));
        break;
      case 'crash':
        setImmediate(() => {
          throw new Error('crash requested by the test hook');
        });
        break;
    }
  });
}

// The parent gone (closed, crashed, killed) means nobody needs this process any more.
process.on('disconnect', () => process.exit(0));
process.once('message', (request: WorkerRequest) => {
  if (request.type === 'init') void start(request.init);
});
