import path from 'node:path';
import { FAISS_FLAT_FOURCC, FAISS_SQ8_FOURCC, FaissFlatEngine } from './faissFlatBackend.js';
import { FAISS_HNSW_FOURCC, FaissHnswEngine } from './faissHnswBackend.js';
import { faissStatus, requireFaiss, type FaissModule } from './faissRuntime.js';
import { TsFlatEngine } from './flatBackend.js';
import type { FileDigest } from '../../embedding/fileDigest.js';
import { HEADER_FILE, readIndexFiles, readNativeIndex, saveIndexFiles, VectorIndexCorruptError, type NativeIndex } from './vectorIndexFiles.js';
import { VectorStore } from './vectorStore.js';
import type { StringTable } from '../../process/sharedStrings.js';
import type { AcceptId, SearchEngine, VectorBackendName, VectorHit, VectorIndexKind } from './vectorTypes.js';

export type { VectorBackendName, VectorHit, VectorIndexKind } from './vectorTypes.js';
export { VectorIndexCorruptError } from './vectorIndexFiles.js';
export { faissStatus } from './faissRuntime.js';

export interface VectorIndexOptions {
  dims: number;
  backend: 'auto' | VectorBackendName;
  kind: 'auto' | VectorIndexKind;
  /** With kind 'auto', the index switches to HNSW at this many vectors. */
  hnswThreshold: number;
  /**
   * A faiss flat index holds 8-bit codes of the vectors from this many on (a quarter of the memory), re-scoring
   * its best candidates exactly; default QUANTISE_THRESHOLD.
   */
  quantiseThreshold?: number;
}

/**
 * From this many vectors a faiss flat index holds 8-bit codes. It is the default HNSW threshold: below it, the float
 * index is searched exactly at under half the cost of the codes (faiss 1.7.3 as Debian builds it, 51,293 × 100
 * dimensions: 2.1-2.5 ms a query with faiss's own loop, 1.1-1.9 ms through BLAS as Cairn's build has it (see
 * scripts/faiss/cairn-faiss-tuning.h), against 5.1 ms for the codes and their re-scoring), for 15 MB more at 50,000
 * vectors; a flat index kept above it (`vector_kind = "flat"`) keeps a quarter of the memory.
 */
export const QUANTISE_THRESHOLD = 200_000;

export interface VectorIndex {
  /** Which backend is really active. */
  readonly backend: VectorBackendName;
  readonly kind: VectorIndexKind;
  readonly dims: number;
  readonly size: number;
  has(id: string): boolean;
  /** A copy of the vector held for `id`, if any. */
  vectorOf(id: string): Float32Array | undefined;
  /** Adds or replaces (same id) vectors; every vector must have `dims` finite entries. */
  upsert(items: ReadonlyArray<{ id: string; vector: Float32Array }>): void;
  /** Removes the ids that are present; returns how many were removed. */
  remove(ids: Iterable<string>): number;
  /** Moves vectors to new ids: each `[from, to]` whose `from` is present and `to` is not; returns how many. */
  relabel(pairs: Iterable<readonly [string, string]>): number;
  /** Top-k by inner product, best first, equal scores by id; `accept` filters ids. */
  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[];
  /** Ids in label order. */
  ids(): string[];
  /**
   * Writes the index into `dir` atomically; creates `dir`. Returns each file's size and SHA-256, by name. The index
   * must not change until it resolves (it fails if it did).
   */
  save(dir: string): Promise<Record<string, FileDigest>>;
  /**
   * Whether the flat faiss index was built afresh when this index was loaded (its saved file missing, unusable, or of
   * the other form: 8-bit codes where float vectors are kept now), and no save has written it since: a save spares
   * the next load that work.
   */
  readonly nativeRebuilt: boolean;
  /** Resolves once no background work (an HNSW graph build) is running. */
  settled(): Promise<void>;
}

interface ResolvedOptions {
  dims: number;
  backend: VectorBackendName;
  kind: 'auto' | VectorIndexKind;
  hnswThreshold: number;
  quantiseThreshold: number;
  faiss: FaissModule | null;
}

export function createVectorIndex(options: VectorIndexOptions): VectorIndex {
  const resolved = resolveOptions(options);
  const store = new VectorStore(resolved.dims);
  return new StoreBackedVectorIndex(store, resolved, layoutFor(resolved, 0, undefined));
}

/**
 * Loads what `save` wrote; throws VectorIndexCorruptError on missing, truncated or inconsistent files. `checked`: the
 * digests of files in `dir` the caller has just checked against its own record (the index manifest), so the faiss
 * file (an HNSW graph of 1M vectors is over a gigabyte) is not hashed a second time. `strings`: see SharedStrings.
 */
export async function loadVectorIndex(dir: string, options: VectorIndexOptions, checked?: ReadonlyMap<string, FileDigest>, strings?: StringTable): Promise<VectorIndex> {
  const resolved = resolveOptions(options);
  const { header, vectors } = await readIndexFiles(dir, resolved.dims);
  const store = await VectorStore.fromRows(resolved.dims, header.ids, vectors, strings).catch((error: Error) => {
    throw new VectorIndexCorruptError(path.join(dir, HEADER_FILE), error.message);
  });
  const layout = layoutFor(resolved, store.size, { kind: header.kind, quantised: false });
  let native: NativeIndex | null = null;
  if (resolved.faiss && layout.kind === header.kind && header.backend === 'faiss') {
    // A saved faiss file of the other form (exact or 8-bit) fails the type check and is rebuilt.
    native = await readNativeIndex(resolved.faiss, dir, header, nativeFourcc(layout), checked);
  }
  // Only a flat index is reported: its rebuild is quick to save. An HNSW graph is saved by the next save as before,
  // since a save waits for the graph's build (minutes at a million vectors), which an opening must not.
  return new StoreBackedVectorIndex(store, resolved, layout, native ?? undefined, resolved.faiss !== null && native === null && layout.kind === 'flat');
}

class StoreBackedVectorIndex implements VectorIndex {
  private engine: SearchEngine;
  private saving: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: VectorStore,
    private readonly options: ResolvedOptions,
    layout: Layout,
    native?: NativeIndex,
    public nativeRebuilt = false,
  ) {
    this.engine = createEngine(options, store, layout, native);
  }

  get backend(): VectorBackendName {
    return this.engine.backend;
  }

  get kind(): VectorIndexKind {
    return this.engine.kind;
  }

  get dims(): number {
    return this.store.dims;
  }

  get size(): number {
    return this.store.size;
  }

  has(id: string): boolean {
    return this.store.has(id);
  }

  ids(): string[] {
    return this.store.ids();
  }

  vectorOf(id: string): Float32Array | undefined {
    const label = this.store.labelOf(id);
    return label === undefined ? undefined : this.store.row(label).slice();
  }

  upsert(items: ReadonlyArray<{ id: string; vector: Float32Array }>): void {
    // Everything is checked before anything changes: faiss aborts on bad input.
    const batch = new Map<string, Float32Array>();
    for (const { id, vector } of items) {
      if (typeof id !== 'string') throw new TypeError(`Vector index ids must be strings, got ${typeof id}`);
      this.checkVector(vector, `The vector for id ${JSON.stringify(id)}`);
      batch.set(id, vector);
    }
    if (batch.size === 0) return;
    const replaced = [...batch.keys()].filter((id) => this.store.has(id));
    if (replaced.length > 0) this.removeFromStore(replaced);
    this.engine.appended(this.store.append([...batch]));
    this.switchKindIfDue();
  }

  relabel(pairs: Iterable<readonly [string, string]>): number {
    let moved = 0;
    for (const [from, to] of pairs) {
      if (!this.store.relabel(from, to)) continue;
      this.engine.relabeled?.(from, to);
      moved++;
    }
    return moved;
  }

  remove(ids: Iterable<string>): number {
    const removed = this.removeFromStore(ids);
    if (removed > 0) this.switchKindIfDue();
    return removed;
  }

  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[] {
    this.checkVector(query, 'The query vector');
    if (!(k >= 1) || this.store.size === 0) return [];
    const wanted = Math.min(Math.floor(k), this.store.size);
    // Engines rank equal scores by row, i.e. by insertion order, which differs between a fresh build and an
    // incremental one: ask for more until every hit tied with the last one kept is in, then rank ties by id.
    let request = Math.min(wanted + 1, this.store.size);
    let hits = this.engine.search(query, request, accept);
    while (hits.length === request && request < this.store.size && hits[request - 1].score === hits[wanted - 1].score) {
      request = Math.min(request * 2, this.store.size);
      hits = this.engine.search(query, request, accept);
    }
    return hits.sort(compareVectorHits).slice(0, wanted);
  }

  save(dir: string): Promise<Record<string, FileDigest>> {
    // Saves run one at a time so two of them never pick the same generation.
    const run = this.saving.then(async () => {
      await this.engine.beforeSave?.();
      const engine = this.engine;
      return saveIndexFiles(dir, () => {
        const changes = this.store.changes;
        return {
          backend: engine.backend,
          kind: engine.kind,
          dims: this.store.dims,
          ids: this.store.ids(),
          vectors: this.store.data(),
          native: engine.prepareSave(),
          unchanged: () => this.store.changes === changes && this.engine === engine,
        };
      });
    });
    this.saving = run.catch(() => undefined);
    return run.then((files) => {
      this.nativeRebuilt = false;
      return files;
    });
  }

  async settled(): Promise<void> {
    await this.engine.settled?.();
  }

  private removeFromStore(ids: Iterable<string>): number {
    const removed = this.store.remove(ids);
    if (removed.labels.length > 0) this.engine.removed(removed.labels, removed.ids);
    return removed.labels.length;
  }

  private switchKindIfDue(): void {
    const layout = layoutFor(this.options, this.store.size, this.engine);
    if (layout.kind !== this.engine.kind || layout.quantised !== this.engine.quantised) this.engine = createEngine(this.options, this.store, layout);
  }

  private checkVector(vector: Float32Array, what: string): void {
    if (!(vector instanceof Float32Array)) throw new TypeError(`${what} must be a Float32Array`);
    if (vector.length !== this.store.dims) {
      throw new Error(`${what} has ${vector.length} dimensions, but this vector index has ${this.store.dims}`);
    }
    for (let i = 0; i < vector.length; i++) {
      if (!Number.isFinite(vector[i])) throw new Error(`${what} has a non-finite value at position ${i}`);
    }
  }
}

/** Best first; equal scores by id. */
function compareVectorHits(a: VectorHit, b: VectorHit): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function resolveOptions(options: VectorIndexOptions): ResolvedOptions {
  const { dims, hnswThreshold, quantiseThreshold = QUANTISE_THRESHOLD } = options;
  if (!Number.isSafeInteger(dims) || dims < 1) throw new Error(`Vector index dims must be a positive integer, got ${dims}`);
  if (!(hnswThreshold >= 1)) throw new Error(`Vector index hnswThreshold must be at least 1, got ${hnswThreshold}`);
  if (!(quantiseThreshold >= 1)) throw new Error(`Vector index quantiseThreshold must be at least 1, got ${quantiseThreshold}`);
  let faiss: FaissModule | null = null;
  if (options.backend === 'faiss') faiss = requireFaiss();
  else if (options.backend === 'auto' && faissStatus().available) faiss = requireFaiss();
  let kind = options.kind;
  if (!faiss && kind === 'hnsw') {
    if (options.backend === 'flat') throw new Error('Vector index kind "hnsw" needs the faiss backend, not "flat"');
    kind = 'flat'; // backend 'auto' without faiss: exact search is the only option
  }
  return { dims, backend: faiss ? 'faiss' : 'flat', kind, hnswThreshold, quantiseThreshold, faiss };
}

/** The search structure an index of this size gets: its kind, and for a faiss flat index whether it is 8-bit. */
interface Layout {
  kind: VectorIndexKind;
  quantised: boolean;
}

function layoutFor(options: ResolvedOptions, size: number, current: Layout | undefined): Layout {
  const kind = kindFor(options, size, current?.kind);
  // Hysteresis as for HNSW: an index hovering at the threshold must not rebuild its faiss index on every change.
  const threshold = current?.quantised ? options.quantiseThreshold / 2 : options.quantiseThreshold;
  return { kind, quantised: options.backend === 'faiss' && kind === 'flat' && size >= threshold };
}

function kindFor(options: ResolvedOptions, size: number, current: VectorIndexKind | undefined): VectorIndexKind {
  if (options.backend === 'flat') return 'flat';
  if (options.kind !== 'auto') return options.kind;
  if (size >= options.hnswThreshold) return 'hnsw';
  // Hysteresis: an index hovering at the threshold must not rebuild its graph on every change.
  if (current === 'hnsw' && size >= options.hnswThreshold / 2) return 'hnsw';
  return 'flat';
}

function nativeFourcc(layout: Layout): string {
  return layout.kind === 'hnsw' ? FAISS_HNSW_FOURCC : layout.quantised ? FAISS_SQ8_FOURCC : FAISS_FLAT_FOURCC;
}

function createEngine(options: ResolvedOptions, store: VectorStore, layout: Layout, native?: NativeIndex): SearchEngine {
  if (!options.faiss) return new TsFlatEngine(store);
  if (layout.kind === 'hnsw') return new FaissHnswEngine(options.faiss, store, native && { graph: native.index, rows: native.rows, file: native.file });
  // A flat index always mirrors the rows; a row map would mean it does not.
  return new FaissFlatEngine(options.faiss, store, layout.quantised, native && !native.rows ? native.index : undefined);
}
