/**
 * The adaptation worker: a child process (forked by adaptStaticModel.ts) that mines a vault's pairs, trains the
 * static table on them and writes the adapted model folder. A few hundred steps of dense maths on the caller's
 * event loop would stall searches for seconds, hence a process; killing it is how adaptation is cancelled.
 *
 * Protocol: the parent sends one { type: 'start', job }; the worker posts progress and then 'done' or 'failed',
 * and exits.
 */
import { createHash } from 'node:crypto';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { MODEL_SEARCH_FILE } from '../embedding/fusionDefaults.js';
import { fromTokenizersJs, WholeWordEncoder } from '../embedding/wholeWordEncoder.js';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Tokenizer } from '@huggingface/tokenizers';
import { seededRandom } from '../random/seededRandom.js';
import { ContrastiveTrainer, pairMrr, shuffle, type EmbeddingTable, type TokenPair } from './contrastiveTrainer.js';
import { SPECIAL_TOKENS, writeBertEmbeddingModel } from './staticModelWriter.js';
import { Q8_ONNX_FILE, readStaticTable } from './staticTable.js';
import { mineNotesFile, type MiningOptions, type Tokenize } from './vaultPairs.js';

export interface TrainingSettings {
  steps: number;
  batchSize: number;
  learningRate: number;
  temperature: number;
  /** Pull of touched rows towards the shipped table (see ContrastiveTrainer). */
  anchor: number;
  /** General pairs mixed in against forgetting, as a share of the vault's training pairs; 0 = none. */
  generalShare: number;
  /** The general pairs file (jsonl.gz of { q, p }); null = none. */
  generalPairsFile: string | null;
  /** Held-out MRR checked every this many steps; the best table is kept. */
  evalEvery: number;
  /** Stop after this many checks without a better held-out MRR. */
  patience: number;
  /** Fewer mined training pairs than this: nothing to learn. */
  minPairs: number;
  mining: Partial<MiningOptions>;
}

export interface AdaptJob {
  baseModelDir: string;
  baseModelId: string;
  baseFingerprint: string;
  notesFile: string;
  /** The temporary folder to write the model into (the parent renames it into place). */
  tmpDir: string;
  seed: number;
  settings: TrainingSettings;
}

export interface AdaptSummary {
  tableHash: string;
  steps: number;
  pairs: { train: number; heldOut: number };
  heldOutMrr: { before: number; after: number };
  peakRssBytes: number;
  /** Loss of the first and the last step (diagnostics). */
  loss: { first: number; last: number };
}

export type AdaptRequest = { type: 'start'; job: AdaptJob };
export type AdaptReply =
  | { type: 'progress'; phase: 'mining' | 'training' | 'writing'; done: number; total: number }
  | { type: 'done'; summary: AdaptSummary }
  | { type: 'failed'; message: string; tooLittleText?: { pairs: number; minimum: number } };

export class TooFewPairs extends Error {
  constructor(readonly pairs: number, readonly minimum: number) {
    super(`the vault gave ${pairs} training pairs, fewer than the ${minimum} adaptation needs`);
  }
}

const maxRss = () => process.resourceUsage().maxRSS * 1024;

async function loadTokenize(modelDir: string, vocab: readonly string[]): Promise<Tokenize> {
  const read = async (name: string) => JSON.parse(await readFile(path.join(modelDir, name), 'utf8')) as object;
  const tokenizer = new Tokenizer(await read('tokenizer.json'), await read('tokenizer_config.json'));
  // The embedding worker's encoder: the tokenizer's ids several times faster (most of mining's time was tokenising).
  const encoder = WholeWordEncoder.of(fromTokenizersJs(tokenizer));
  const ids = encoder ? (text: string) => encoder.ids(text) : (text: string) => tokenizer.encode(text, { add_special_tokens: false }).ids;
  // Special tokens and [UNK] are zero rows: they do not move a text's vector, so training leaves them out.
  const zeroRows = new Set<number>(SPECIAL_TOKENS.map((t) => vocab.indexOf(t)));
  return (text) => Int32Array.from(ids(text).filter((id: number) => !zeroRows.has(id)));
}

/** General (query, passage) pairs shipped with the model, tokenised; `count` of them, a seeded sample. */
async function generalPairs(file: string, tokenize: Tokenize, count: number, seed: number, maxTokens: number): Promise<TokenPair[]> {
  const lines = gunzipSync(await readFile(file)).toString('utf8').split('\n').filter(Boolean);
  const picked = shuffle(lines, seededRandom(seed ^ 0x5eed)).slice(0, count);
  return picked
    .map((l) => JSON.parse(l) as { q: string; p: string })
    .map(({ q, p }) => ({ q: tokenize(q).slice(0, maxTokens), p: tokenize(p).slice(0, maxTokens) }))
    .filter((pair) => pair.q.length > 0 && pair.p.length > 0);
}

export async function runAdaptJob(job: AdaptJob, post: (reply: AdaptReply) => void): Promise<AdaptSummary> {
  const s = job.settings;
  const base = await readStaticTable(job.baseModelDir);
  const tokenize = await loadTokenize(job.baseModelDir, base.vocab);

  let lastPost = 0;
  const mined = await mineNotesFile(job.notesFile, tokenize, { ...s.mining, seed: job.seed }, (done, total) => {
    if (done === total || Date.now() - lastPost > 200) {
      lastPost = Date.now();
      post({ type: 'progress', phase: 'mining', done, total });
    }
  });
  if (mined.train.length < s.minPairs || mined.heldOut.length === 0) {
    throw new TooFewPairs(mined.train.length, s.minPairs);
  }
  const trainSet = [...mined.train];
  if (s.generalPairsFile && s.generalShare > 0) {
    trainSet.push(...(await generalPairs(s.generalPairsFile, tokenize, Math.round(s.generalShare * mined.train.length), job.seed, s.mining.maxTokens ?? 510)));
  }

  const specials = new Set<number>(SPECIAL_TOKENS.map((t) => base.vocab.indexOf(t)));
  const table: EmbeddingTable = { rows: base.rows, dims: base.dims, frozen: specials };
  const trainer = new ContrastiveTrainer(table, { temperature: s.temperature, learningRate: s.learningRate, anchor: s.anchor });
  const before = pairMrr(table, mined.heldOut);
  let best = { mrr: before, step: 0 };
  const bestRows = Float32Array.from(table.rows);
  const random = seededRandom(job.seed);
  const batchSize = Math.min(s.batchSize, trainSet.length);
  const order = shuffle(trainSet.map((_, i) => i), random);
  let cursor = 0;
  let first = NaN;
  let last = NaN;
  let sinceBest = 0;
  let steps = 0;
  while (steps < s.steps) {
    // Epochs over a fresh shuffle; a batch never spans two epochs (no pair twice in one batch).
    if (cursor + batchSize > order.length) {
      shuffle(order, random);
      cursor = 0;
    }
    last = trainer.step(order.slice(cursor, cursor + batchSize).map((i) => trainSet[i]));
    cursor += batchSize;
    steps++;
    if (steps === 1) first = last;
    if (steps % s.evalEvery === 0 || steps === s.steps) {
      const mrr = pairMrr(table, mined.heldOut);
      if (mrr > best.mrr) {
        best = { mrr, step: steps };
        bestRows.set(table.rows);
        sinceBest = 0;
      } else if (++sinceBest >= s.patience) break;
      post({ type: 'progress', phase: 'training', done: steps, total: s.steps });
    }
  }
  post({ type: 'progress', phase: 'training', done: s.steps, total: s.steps });

  post({ type: 'progress', phase: 'writing', done: 0, total: 1 });
  await writeBertEmbeddingModel(job.tmpDir, { vocab: base.vocab, embeddings: bestRows, dims: base.dims }, { variants: ['q8'] });
  // The shipped model's own files, byte for byte: the tokenizer and the licence notices; its search defaults as adapted.
  const baseFiles = await readdir(job.baseModelDir);
  for (const f of baseFiles.filter((f) => f === 'tokenizer.json' || f === 'tokenizer_config.json' || /^LICENSE-.*\.md$/.test(f))) {
    await copyFile(path.join(job.baseModelDir, f), path.join(job.tmpDir, f));
  }
  if (baseFiles.includes(MODEL_SEARCH_FILE)) await writeFile(path.join(job.tmpDir, MODEL_SEARCH_FILE), adaptedSearchDefaults(await readFile(path.join(job.baseModelDir, MODEL_SEARCH_FILE), 'utf8')));
  const tableHash = createHash('sha256').update(await readFile(path.join(job.tmpDir, Q8_ONNX_FILE))).digest('hex').slice(0, 16);
  const pairs = { train: mined.train.length, heldOut: mined.heldOut.length };
  const heldOutMrr = { before: round(before), after: round(best.mrr) };
  // The shipped config.json plus what this table is: its bytes (and so the model fingerprint) differ per table.
  const config = JSON.parse(await readFile(path.join(job.baseModelDir, 'config.json'), 'utf8')) as { cairn: Record<string, unknown> };
  config.cairn.adapted = { base: job.baseModelId, baseFingerprint: job.baseFingerprint, tableHash, seed: job.seed, steps: best.step, pairs, heldOutMrr };
  await writeFile(path.join(job.tmpDir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  post({ type: 'progress', phase: 'writing', done: 1, total: 1 });
  return { tableHash, steps: best.step, pairs, heldOutMrr, peakRssBytes: maxRss(), loss: { first, last } };
}

function round(x: number) {
  return Math.round(x * 10000) / 10000;
}

const send = process.send?.bind(process);
if (send) {
  const post = (reply: AdaptReply) => void send(reply);
  // The parent gone (closed, crashed, killed) means nobody waits for the table.
  process.on('disconnect', () => process.exit(0));
  process.once('message', (request: AdaptRequest) => {
    if (request.type !== 'start') return;
    runAdaptJob(request.job, post).then(
      (summary) => send({ type: 'done', summary } satisfies AdaptReply, () => process.exit(0)),
      (e: unknown) => {
        const reply: AdaptReply = { type: 'failed', message: e instanceof Error ? e.message : String(e) };
        if (e instanceof TooFewPairs) reply.tooLittleText = { pairs: e.pairs, minimum: e.minimum };
        send(reply, () => process.exit(1));
      },
    );
  });
}

/**
 * The adapted folder's cairn.json: the shipped one with its `adaptedFusion` (the fusion weights the model's makers
 * measured for an adapted table, whose vector ranking is much stronger) in place of `fusion`, when it has one.
 */
function adaptedSearchDefaults(shipped: string): string {
  const value = JSON.parse(shipped) as { fusion?: unknown; adaptedFusion?: unknown; aboutAdapted?: unknown };
  if (value.adaptedFusion === undefined) return shipped;
  const { adaptedFusion, aboutAdapted, ...rest } = value;
  return `${JSON.stringify({ ...rest, ...(aboutAdapted ? { about: aboutAdapted } : {}), fusion: adaptedFusion }, null, 2)}\n`;
}
