import { TimeSlices } from '../../process/timeSlices.js';
import { addRows, searchOne } from './faissRows.js';
import { addFlatRows, emptyFlatIndex, faissFlatFile } from './faissFlatFile.js';
import { TsFlatEngine } from './flatBackend.js';
import type { FaissIndex, FaissModule } from './faissRuntime.js';
import type { VectorStore } from './vectorStore.js';
import { compareLabelHits, type AcceptId, type LabelHit, type NativeIndexWriter, type SearchEngine, type VectorHit } from './vectorTypes.js';

export const FAISS_FLAT_FOURCC = 'IxFI';
export const FAISS_SQ8_FOURCC = 'IxSQ';
/**
 * Candidates taken from the 8-bit index per hit wanted, and at least this many, before exact re-scoring. Measured
 * on generated unit vectors (test/vector-index.test.ts): the exact top 50 was always among the SQ8 top 200.
 */
const RESCORE_FACTOR = 4;
const MIN_RESCORED = 64;
/** Float candidates asked of faiss beyond the k wanted, so that the exact k-th is mostly known above faiss's last. */
const FLOAT_MARGIN = 16;
/** SQ8 learns each dimension's range from a sample of rows (spread over the store); outliers are clipped, re-scoring repairs the order. */
const TRAINING_ROWS = 2048;
/**
 * Rows added between two looks at the clock while an index is built from the store: 8-bit codes, float rows (a copy:
 * 10,000 of them took 14-16 ms alone, but 60 ms inside a re-chunk at 50k, its longest hold; 1,000 at a time took as
 * long in all, at most 8 ms a step alone).
 */
const CODED_ROWS_PER_STEP = 2000;
const FLOAT_ROWS_PER_STEP = 1000;
/**
 * faiss's removeIds checks every row of a flat index against every label removed (about 0.6 ns a pair on the project
 * machine: 7,500 labels of 51,293 rows held the event loop for 204 ms). Past this many pairs, about 50 ms, the index
 * is built again from the store in turns instead, searched exactly meanwhile. Not for fewer: the index it replaces
 * keeps its memory until the garbage collector finds it (faiss-node frees an index only then; at 40 million pairs a
 * re-chunk at 50k peaked some 50 MB higher). The indexer removes in a turn of its own, so the 50 ms are not added to
 * another pass's.
 */
const REMOVE_IN_PLACE_PAIRS = 80_000_000;

/**
 * Search with a faiss index that mirrors the store row for row (removeIds compacts faiss labels the same way the
 * store compacts its rows): IndexFlatIP (exact), or when `quantised` an 8-bit scalar-quantised index (a quarter of
 * the memory) whose best candidates are re-scored exactly from the store's vectors, so that the ranking is the
 * exact one as long as the true top k are among the candidates.
 */
export class FaissFlatEngine implements SearchEngine {
  readonly backend = 'faiss';
  readonly kind = 'flat';
  private index: FaissIndex;
  /** Rows the 8-bit ranges were learnt from. */
  private trainedOn = 0;
  /**
   * Rows of the store the faiss index holds: all of them, except while it is built from the store (on switching to
   * or from 8-bit, or when no saved index could be used), which is done in turns; searches are exact meanwhile.
   */
  private built = 0;
  private building: Promise<void> | undefined;
  /** Counts builds: a build that a newer one replaced stops. */
  private builds = 0;
  private readonly exact: TsFlatEngine;

  /** `loaded` must hold exactly the store's rows (checked by the caller), in the form `quantised` says. */
  constructor(
    private readonly faiss: FaissModule,
    private readonly store: VectorStore,
    readonly quantised: boolean,
    loaded?: FaissIndex,
  ) {
    this.exact = new TsFlatEngine(store);
    if (loaded) {
      this.trainedOn = Math.min(store.size, TRAINING_ROWS);
      this.built = store.size;
    }
    this.index = loaded ?? this.buildFromStore();
  }

  appended(): void {
    // Ranges learnt from a small store may clip much of what comes after: learn them again as it doubles.
    if (this.quantised && this.trainedOn < TRAINING_ROWS && this.store.size >= 2 * this.trainedOn) this.index = this.buildFromStore();
    else if (!this.building) {
      this.addRows(this.built, this.store.size);
      this.built = this.store.size;
      this.checkInStep();
    }
  }

  removed(labels: readonly number[]): void {
    // Rows not added yet need no removing: the store has compacted them away already.
    const held = labels.filter((label) => label < this.built);
    if (held.length * this.built > REMOVE_IN_PLACE_PAIRS) {
      this.index = this.buildFromStore();
      return;
    }
    if (held.length > 0) this.index.removeIds(held);
    this.built -= held.length;
    if (!this.building) this.checkInStep();
  }

  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[] {
    if (this.built < this.store.size) return this.exact.search(query, k, accept);
    const total = this.index.ntotal();
    const wanted = this.quantised ? Math.max(k * RESCORE_FACTOR, MIN_RESCORED) : k;
    // Every candidate is scored again from the store: faiss's scores of the 8-bit codes are approximate, and its BLAS
    // scores of float rows round differently by where a row falls in a block (see cairn-faiss-tuning.h), so a fresh
    // and an incremental build would rank near-equal rows apart. The store's score depends on the two vectors alone.
    const bound = this.quantised ? 0 : scoreErrorBound(query, this.store);
    let request = Math.min(this.quantised ? wanted : k + FLOAT_MARGIN, total);
    for (;;) {
      const { labels, distances } = searchOne(this.index, query, request);
      const hits: LabelHit[] = [];
      let lowest = Number.POSITIVE_INFINITY;
      for (let i = 0; i < labels.length; i++) {
        const label = labels[i];
        if (label < 0) continue;
        lowest = Math.min(lowest, distances[i]);
        if (accept && !accept(this.store.idAt(label))) continue;
        hits.push({ label, score: this.store.score(label, query) });
      }
      // faiss returns tied scores in heap order; sort them into label order.
      hits.sort(compareLabelHits);
      // A float row faiss did not return scored at most `lowest` by faiss, so at most `lowest + bound` exactly: the
      // k-th hit above that is the exact k-th. (The 8-bit codes are taken on RESCORE_FACTOR's measure instead.)
      const complete = this.quantised || (hits.length >= k && hits[k - 1]!.score > lowest + bound);
      if ((hits.length >= wanted && complete) || request >= total) {
        return hits.slice(0, k).map((hit) => ({ id: this.store.idAt(hit.label), score: hit.score }));
      }
      request = Math.min(total, request * 4);
    }
  }

  prepareSave(): NativeIndexWriter {
    if (this.quantised) return { fourcc: FAISS_SQ8_FOURCC, write: (file) => this.index.write(file) };
    // The exact index holds the store's rows and nothing else: its file is written from them, in turns. The save
    // checks that the store did not change meanwhile.
    const vectors = this.store.data();
    return { fourcc: FAISS_FLAT_FOURCC, pieces: () => faissFlatFile(this.store.dims, vectors) };
  }

  /** A save writes the faiss index whole: it waits for a build under way. */
  async beforeSave(): Promise<void> {
    await this.settled();
  }

  async settled(): Promise<void> {
    while (this.building) await this.building;
  }

  // The store is the source of truth: should faiss ever disagree, rebuild rather than serve wrong labels.
  private checkInStep(): void {
    if (this.index.ntotal() !== this.store.size) this.index = this.buildFromStore();
  }

  /** Adds store rows `from .. to - 1` to the index: as 8-bit codes through faiss's add, float rows as a copy. */
  private addRows(from: number, to: number): void {
    if (this.quantised) addRows(this.index, this.store.data(), this.store.dims, from, to);
    else addFlatRows(this.faiss, this.index, this.store.data(), this.store.dims, from, to);
  }

  private rowsPerStep(): number {
    return this.quantised ? CODED_ROWS_PER_STEP : FLOAT_ROWS_PER_STEP;
  }

  /** An empty index of the right form (8-bit ranges learnt from a sample of the store); the rows follow in turns. */
  private buildFromStore(): FaissIndex {
    const { dims, size } = this.store;
    let index: FaissIndex;
    if (this.quantised) {
      index = this.faiss.Index.fromFactory(dims, 'SQ8', this.faiss.MetricType.METRIC_INNER_PRODUCT);
      index.train(trainingSample(this.store));
      this.trainedOn = Math.min(size, TRAINING_ROWS);
    } else index = emptyFlatIndex(this.faiss, dims);
    this.index = index;
    this.built = 0;
    const build = ++this.builds;
    const adding = this.addStoreRows(build);
    // A small store is added at once (before the first turn ends): nothing is left building.
    this.building = this.built < this.store.size ? adding : undefined;
    return index;
  }

  /**
   * Adds the store's rows to the index being built, a few thousand at a time, in turns, until it holds them all
   * (rows appended meanwhile included); a newer build replaces it.
   */
  private async addStoreRows(build: number): Promise<void> {
    const turns = new TimeSlices();
    // A build is begun inside another pass's turn (a removal while indexing): past one step, the rows wait for turns of their own.
    if (this.store.size - this.built > this.rowsPerStep()) await turns.next();
    while (build === this.builds && this.built < this.store.size) {
      const to = Math.min(this.store.size, this.built + this.rowsPerStep());
      this.addRows(this.built, to);
      this.built = to;
      if (turns.due()) await turns.next();
    }
    // In the same turn as the last rows: an append from then on is added directly.
    if (build === this.builds) this.building = undefined;
  }
}

/** Up to TRAINING_ROWS rows evenly spread over the store, as faiss-node takes them (at least one row: faiss needs one). */
function trainingSample(store: VectorStore): number[] {
  const rows = Math.min(store.size, TRAINING_ROWS);
  if (rows === 0) return new Array<number>(store.dims).fill(0);
  const sample = new Array<number>(rows * store.dims);
  const data = store.data();
  for (let i = 0, at = 0; i < rows; i++) {
    const base = Math.floor((i * store.size) / rows) * store.dims;
    for (let j = 0; j < store.dims; j++) sample[at++] = data[base + j];
  }
  return sample;
}

/**
 * How far a float row's score from faiss can be from the store's: a float32 sum of d products errs by at most about
 * d units of rounding (2^-24) of the sum of their magnitudes, which is at most the product of the norms (two more
 * units for the store's own rounding, and a little room).
 */
function scoreErrorBound(query: Float32Array, store: VectorStore): number {
  let sum = 0;
  for (let j = 0; j < query.length; j++) sum += query[j]! * query[j]!;
  return 1.25 * (store.dims + 2) * 2 ** -24 * Math.sqrt(sum) * store.maxNorm;
}
