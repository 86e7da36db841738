/**
 * Trains a static embedding table for retrieval: a text embeds as
 * normalise(sum of its tokens' rows), exactly what the BERT-shaped ONNX model
 * plus transformers.js mean pooling + normalisation computes (the mean's 1/n
 * does not change the direction). Loss: symmetric InfoNCE with in-batch
 * negatives (query -> passage and passage -> query cross-entropy over the
 * batch's cosine matrix / temperature). Optimiser: lazy Adam that updates only
 * the rows a batch touched, so a step costs the batch, not the vocabulary.
 * Plain Float32Array maths, one thread, deterministic for a given seed.
 */

import { seededRandom } from '../random/seededRandom.js';

export interface EmbeddingTable {
  /** Row-major, rows x dims. */
  rows: Float32Array;
  dims: number;
  /** Token ids that stay zero ([PAD], [UNK], [CLS] ...): they must not move the mean. */
  frozen: ReadonlySet<number>;
}

/** A pair already tokenised into row ids (special and unknown tokens dropped). */
export interface TokenPair {
  q: Int32Array;
  p: Int32Array;
}

export interface TrainOptions {
  temperature: number;
  batchSize: number;
  epochs: number;
  learningRate: number;
  seed: number;
  /** Pull of every touched row back towards its initial value (per step, scaled by the learning rate): keeps words that training sees in the same space as those it does not. */
  anchor: number;
  /** Called after each epoch (e.g. held-out figures). */
  onEpoch?: (epoch: number, meanLoss: number) => void;
  /** Called every `logEvery` steps. */
  onStep?: (step: number, loss: number) => void;
  logEvery?: number;
}

export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/**
 * Sums the rows of each id list into `out` (n x dims) and normalises in place;
 * returns the pre-normalisation lengths (needed by the backward pass).
 */
export function encode(table: EmbeddingTable, seqs: readonly Int32Array[], out: Float32Array): Float32Array {
  const { rows, dims } = table;
  const norms = new Float32Array(seqs.length);
  out.fill(0, 0, seqs.length * dims);
  seqs.forEach((ids, i) => {
    const o = i * dims;
    for (const id of ids) {
      const r = id * dims;
      for (let k = 0; k < dims; k++) out[o + k] += rows[r + k];
    }
    let s = 0;
    for (let k = 0; k < dims; k++) s += out[o + k] * out[o + k];
    const n = Math.sqrt(s);
    norms[i] = n;
    const inv = n > 0 ? 1 / n : 0;
    for (let k = 0; k < dims; k++) out[o + k] *= inv;
  });
  return norms;
}

/**
 * Symmetric InfoNCE over the batch: loss and its gradient with respect to the
 * unit query vectors Q and passage vectors P (both n x dims, row i of Q matches row i of P).
 */
export function infoNce(Q: Float32Array, P: Float32Array, n: number, dims: number, temperature: number) {
  const S = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let d = 0;
      for (let k = 0; k < dims; k++) d += Q[i * dims + k] * P[j * dims + k];
      S[i * n + j] = d / temperature;
    }
  }
  // dS = (rowSoftmax - I + colSoftmax - I) / (2n)
  const dS = new Float64Array(n * n);
  let loss = 0;
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j < n; j++) max = Math.max(max, S[i * n + j]);
    let z = 0;
    for (let j = 0; j < n; j++) z += Math.exp(S[i * n + j] - max);
    loss += Math.log(z) + max - S[i * n + i];
    for (let j = 0; j < n; j++) dS[i * n + j] += Math.exp(S[i * n + j] - max) / z / (2 * n);
    dS[i * n + i] -= 1 / (2 * n);
  }
  for (let j = 0; j < n; j++) {
    let max = -Infinity;
    for (let i = 0; i < n; i++) max = Math.max(max, S[i * n + j]);
    let z = 0;
    for (let i = 0; i < n; i++) z += Math.exp(S[i * n + j] - max);
    loss += Math.log(z) + max - S[j * n + j];
    for (let i = 0; i < n; i++) dS[i * n + j] += Math.exp(S[i * n + j] - max) / z / (2 * n);
    dS[j * n + j] -= 1 / (2 * n);
  }
  const gQ = new Float32Array(n * dims);
  const gP = new Float32Array(n * dims);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const g = dS[i * n + j] / temperature;
      if (g === 0) continue;
      for (let k = 0; k < dims; k++) {
        gQ[i * dims + k] += g * P[j * dims + k];
        gP[j * dims + k] += g * Q[i * dims + k];
      }
    }
  }
  return { loss: loss / (2 * n), gQ, gP };
}

/** Lazy Adam on table rows: moments are kept for every row but updated only where a batch had a gradient. */
class SparseAdam {
  private readonly m: Float32Array;
  private readonly v: Float32Array;
  private t = 0;
  constructor(size: number, private readonly lr: number, private readonly b1 = 0.9, private readonly b2 = 0.999, private readonly eps = 1e-8) {
    this.m = new Float32Array(size);
    this.v = new Float32Array(size);
  }
  step(table: EmbeddingTable, init: Float32Array, grad: Float32Array, touched: Iterable<number>, anchor: number) {
    this.t++;
    const { rows, dims } = table;
    const c1 = 1 - this.b1 ** this.t;
    const c2 = 1 - this.b2 ** this.t;
    for (const id of touched) {
      for (let k = id * dims, end = k + dims; k < end; k++) {
        const g = grad[k];
        this.m[k] = this.b1 * this.m[k] + (1 - this.b1) * g;
        this.v[k] = this.b2 * this.v[k] + (1 - this.b2) * g * g;
        rows[k] -= this.lr * ((this.m[k] / c1) / (Math.sqrt(this.v[k] / c2) + this.eps) + anchor * (rows[k] - init[k]));
        grad[k] = 0;
      }
    }
  }
}

/** Adds the gradient of each unit vector (through the normalisation) to the rows of its ids. */
function backpropRows(seqs: readonly Int32Array[], unit: Float32Array, norms: Float32Array, gUnit: Float32Array, dims: number, grad: Float32Array, touched: Set<number>, frozen: ReadonlySet<number>) {
  const gx = new Float32Array(dims);
  seqs.forEach((ids, i) => {
    const o = i * dims;
    if (norms[i] === 0) return;
    let gu = 0;
    for (let k = 0; k < dims; k++) gu += gUnit[o + k] * unit[o + k];
    for (let k = 0; k < dims; k++) gx[k] = (gUnit[o + k] - gu * unit[o + k]) / norms[i];
    for (const id of ids) {
      if (frozen.has(id)) continue;
      touched.add(id);
      const r = id * dims;
      for (let k = 0; k < dims; k++) grad[r + k] += gx[k];
    }
  });
}

/**
 * One optimiser over one table: `step(batch)` trains on one batch of pairs (rows updated in place) and returns
 * its loss. Callers that choose their own batches (vault adaptation: fixed step budget, early stopping) use it
 * directly; `train` runs epochs over a pair list with it.
 */
export class ContrastiveTrainer {
  /** The rows as they were when training started: what `anchor` pulls towards. */
  readonly initial: Float32Array;
  private readonly grad: Float32Array;
  private readonly adam: SparseAdam;
  private Q = new Float32Array(0);
  private P = new Float32Array(0);

  constructor(
    readonly table: EmbeddingTable,
    private readonly o: Pick<TrainOptions, 'temperature' | 'learningRate' | 'anchor'>,
  ) {
    this.initial = Float32Array.from(table.rows);
    this.grad = new Float32Array(table.rows.length);
    this.adam = new SparseAdam(table.rows.length, o.learningRate);
  }

  step(batch: readonly TokenPair[]): number {
    const { dims } = this.table;
    if (this.Q.length < batch.length * dims) {
      this.Q = new Float32Array(batch.length * dims);
      this.P = new Float32Array(batch.length * dims);
    }
    const qs = batch.map((b) => b.q);
    const ps = batch.map((b) => b.p);
    const qn = encode(this.table, qs, this.Q);
    const pn = encode(this.table, ps, this.P);
    const { loss, gQ, gP } = infoNce(this.Q, this.P, batch.length, dims, this.o.temperature);
    const touched = new Set<number>();
    backpropRows(qs, this.Q, qn, gQ, dims, this.grad, touched, this.table.frozen);
    backpropRows(ps, this.P, pn, gP, dims, this.grad, touched, this.table.frozen);
    this.adam.step(this.table, this.initial, this.grad, [...touched].sort((a, b) => a - b), this.o.anchor);
    return loss;
  }
}

/** Trains `table.rows` in place. Pairs whose query or passage has no known token should be dropped by the caller. */
export function train(table: EmbeddingTable, pairs: TokenPair[], o: TrainOptions): { steps: number; lastEpochLoss: number } {
  const trainer = new ContrastiveTrainer(table, o);
  const random = seededRandom(o.seed);
  const order = pairs.map((_, i) => i);
  let steps = 0;
  let lastEpochLoss = NaN;
  for (let epoch = 1; epoch <= o.epochs; epoch++) {
    shuffle(order, random);
    let sum = 0;
    let batches = 0;
    // The last partial batch is dropped: fewer in-batch negatives would make its loss incomparable.
    for (let start = 0; start + o.batchSize <= order.length; start += o.batchSize) {
      const loss = trainer.step(order.slice(start, start + o.batchSize).map((i) => pairs[i]));
      steps++;
      sum += loss;
      batches++;
      if (o.onStep && o.logEvery && steps % o.logEvery === 0) o.onStep(steps, loss);
    }
    lastEpochLoss = sum / Math.max(1, batches);
    o.onEpoch?.(epoch, lastEpochLoss);
  }
  return { steps, lastEpochLoss };
}

/** MRR@10 of finding each query's own passage among all passages of the list (held-out check). */
export function pairMrr(table: EmbeddingTable, pairs: readonly TokenPair[]): number {
  const n = pairs.length;
  const { dims } = table;
  const Q = new Float32Array(n * dims);
  const P = new Float32Array(n * dims);
  encode(table, pairs.map((p) => p.q), Q);
  encode(table, pairs.map((p) => p.p), P);
  let mrr = 0;
  for (let i = 0; i < n; i++) {
    const score = (j: number) => {
      let d = 0;
      for (let k = 0; k < dims; k++) d += Q[i * dims + k] * P[j * dims + k];
      return d;
    };
    const own = score(i);
    let better = 0;
    for (let j = 0; j < n && better < 10; j++) if (j !== i && score(j) > own) better++;
    if (better < 10) mrr += 1 / (better + 1);
  }
  return mrr / n;
}
