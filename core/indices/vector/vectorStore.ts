import { TimeSlices } from '../../process/timeSlices.js';
import { OWN_STRINGS, type StringTable } from '../../process/sharedStrings.js';

/**
 * The vectors of a vector index in one contiguous Float32Array (row = label),
 * with the label <-> id mapping. Removal compacts rows in order, exactly as faiss
 * flat indexes renumber their labels, so a faiss flat index mirrors it row for row.
 */
export class VectorStore {
  private matrix: Float32Array;
  private rows = 0;
  private readonly idByLabel: string[] = [];
  private readonly labelById = new Map<string, number>();
  /** Counts appends and removals: a save checks that none happened while it wrote the rows. */
  private changeCount = 0;
  /**
   * The largest norm of any row held since it was first asked for (removals leave it: it bounds the rows' norms);
   * unset until then, as only an exact faiss search needs it and loading an index should not pay for it.
   */
  private largestNorm: number | undefined;

  constructor(
    readonly dims: number,
    initialCapacity = 1024,
  ) {
    this.matrix = new Float32Array(Math.max(1, initialCapacity) * dims);
  }

  /**
   * A store of saved rows: takes ownership of `vectors` (ids.length x dims, row-major); its id table is filled in
   * turns, each id as `strings` has it (see SharedStrings).
   */
  static async fromRows(dims: number, ids: readonly string[], vectors: Float32Array, strings: StringTable = OWN_STRINGS): Promise<VectorStore> {
    if (vectors.length !== ids.length * dims) throw new Error(`VectorStore: ${vectors.length} floats for ${ids.length} x ${dims}`);
    const store = new VectorStore(dims, 0);
    store.matrix = vectors.length > 0 ? vectors : new Float32Array(dims);
    store.rows = ids.length;
    const turns = new TimeSlices();
    for (const [label, saved] of ids.entries()) {
      const id = strings.of(saved);
      if (store.labelById.has(id)) throw new Error(`ids are not unique (${JSON.stringify(id)} is listed twice)`);
      store.idByLabel.push(id);
      store.labelById.set(id, label);
      if (turns.due()) await turns.next();
    }
    return store;
  }

  get size(): number {
    return this.rows;
  }

  get changes(): number {
    return this.changeCount;
  }

  /** At least the norm of every row (see `scoreErrorBound`). */
  get maxNorm(): number {
    if (this.largestNorm === undefined) {
      this.largestNorm = 0;
      for (let label = 0; label < this.rows; label++) this.noteNorm(label * this.dims);
    }
    return this.largestNorm;
  }

  has(id: string): boolean {
    return this.labelById.has(id);
  }

  labelOf(id: string): number | undefined {
    return this.labelById.get(id);
  }

  idAt(label: number): string {
    return this.idByLabel[label];
  }

  /** Ids in label order (a copy). */
  ids(): string[] {
    return this.idByLabel.slice();
  }

  /** The live rows as a view: valid only until the next change. */
  data(): Float32Array {
    return this.matrix.subarray(0, this.rows * this.dims);
  }

  row(label: number): Float32Array {
    return this.matrix.subarray(label * this.dims, (label + 1) * this.dims);
  }

  /** The exact inner product of a row with `query`, rounded to float32 like faiss's scores so near-equal scores tie alike. */
  score(label: number, query: Float32Array): number {
    const d = this.dims;
    const offset = label * d;
    const matrix = this.matrix;
    let dot = 0;
    for (let j = 0; j < d; j++) dot += matrix[offset + j] * query[j];
    return Math.fround(dot);
  }

  /** Appends new ids (the caller removed existing ones first); returns the first new label. */
  append(entries: ReadonlyArray<readonly [string, Float32Array]>): number {
    const first = this.rows;
    this.changeCount++;
    this.reserve(this.rows + entries.length);
    for (const [id, vector] of entries) {
      if (this.labelById.has(id)) throw new Error(`VectorStore: id ${JSON.stringify(id)} is already present`);
      this.matrix.set(vector, this.rows * this.dims);
      if (this.largestNorm !== undefined) this.noteNorm(this.rows * this.dims);
      this.labelById.set(id, this.rows);
      this.idByLabel.push(id);
      this.rows++;
    }
    return first;
  }

  /** Gives a row another id; false, changing nothing, when `from` is absent or `to` is taken. */
  relabel(from: string, to: string): boolean {
    const label = this.labelById.get(from);
    if (label === undefined || this.labelById.has(to)) return false;
    this.changeCount++;
    this.labelById.delete(from);
    this.labelById.set(to, label);
    this.idByLabel[label] = to;
    return true;
  }

  /** Removes the present ids; returns their labels (ascending, before compaction) and ids. */
  remove(ids: Iterable<string>): { labels: number[]; ids: string[] } {
    const labels = new Set<number>();
    for (const id of ids) {
      const label = this.labelById.get(id);
      if (label !== undefined) labels.add(label);
    }
    if (labels.size === 0) return { labels: [], ids: [] };
    this.changeCount++;
    const sorted = [...labels].sort((a, b) => a - b);
    const removedIds = sorted.map((label) => this.idByLabel[label]);
    this.compact(sorted);
    for (const id of removedIds) this.labelById.delete(id);
    return { labels: sorted, ids: removedIds };
  }

  private compact(sortedLabels: readonly number[]): void {
    const d = this.dims;
    let write = sortedLabels[0];
    for (let i = 0; i < sortedLabels.length; i++) {
      const keepFrom = sortedLabels[i] + 1;
      const keepTo = i + 1 < sortedLabels.length ? sortedLabels[i + 1] : this.rows;
      if (keepTo > keepFrom) {
        this.matrix.copyWithin(write * d, keepFrom * d, keepTo * d);
        for (let label = keepFrom; label < keepTo; label++) {
          const id = this.idByLabel[label];
          this.idByLabel[write] = id;
          this.labelById.set(id, write);
          write++;
        }
      }
    }
    this.idByLabel.length = write;
    this.rows = write;
  }

  /** Raises `largestNorm` to the norm of the row at `offset` if that is larger. */
  private noteNorm(offset: number): void {
    const matrix = this.matrix;
    let sum = 0;
    for (let j = 0; j < this.dims; j++) sum += matrix[offset + j] * matrix[offset + j];
    const largest = this.largestNorm ?? 0;
    if (sum > largest * largest) this.largestNorm = Math.sqrt(sum);
  }

  private reserve(rows: number): void {
    if (rows * this.dims <= this.matrix.length) return;
    const capacity = Math.max(rows, Math.ceil((this.matrix.length / this.dims) * 1.5), 1024);
    const grown = new Float32Array(capacity * this.dims);
    grown.set(this.data());
    this.matrix = grown;
  }
}
