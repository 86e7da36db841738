import { searchOne } from './faissRows.js';
import type { FaissIndex, FaissModule } from './faissRuntime.js';
import { TsFlatEngine } from './flatBackend.js';
import { buildHnswGraph, type HnswBuild } from './hnswGraphBuild.js';
import { HNSW_FOURCC } from './hnswTuning.js';
import { TopK } from './topK.js';
import type { VectorStore } from './vectorStore.js';
import { compareLabelHits, type AcceptId, type LabelHit, type NativeFile, type NativeIndexWriter, type SearchEngine, type VectorHit } from './vectorTypes.js';

export const FAISS_HNSW_FOURCC = HNSW_FOURCC;
/** A new graph is built once this share of the store is missing from the graph or removed from it. */
const REBUILD_AT_STALE_FRACTION = 0.2;
/** Below this many vectors an exact scan takes well under a millisecond: searches build no graph (a save still does). */
const MIN_GRAPH_VECTORS = 1000;
/** Oversampling rounds (x4 each) before a filtered search falls back to an exact scan. */
const OVERSAMPLE_ROUNDS = 3;

/** A graph read from disk, with each graph label's row in the saved store when they differ (-1: removed since). */
export interface LoadedGraph {
  graph: FaissIndex;
  rows?: readonly number[];
  /** The file it was read from. */
  file?: NativeFile;
}

/**
 * Approximate search with a faiss HNSW graph, never built on the event loop: graphs are built in a child process
 * (hnswGraphBuild.ts) from the store's rows, sent in turns, while searches go on.
 * - Vectors added since the graph was built are "pending": every search scans them exactly and merges them in.
 * - Removed vectors are tombstones, skipped at search (faiss's removeIds aborts on HNSW).
 * - Once pending and tombstones pass 20% of the store, a new graph is built in the background.
 * - Until there is a first graph, searches are exact scans of the store (so are all searches of fewer than
 *   1,000 vectors: only a save builds a graph for them).
 * - When the graph cannot supply k acceptable hits (a rare filter, a large k), the search falls back to an exact
 *   scan rather than return fewer.
 * A save writes the graph as it is, with its label → row map when that is not the identity. The graph never changes
 * once built, so the file it came from (the builder's, or the one loaded, then the one last saved) is kept and a save
 * links it: writing a graph of a few hundred thousand vectors held the event loop for half a second.
 */
export class FaissHnswEngine implements SearchEngine {
  readonly backend = 'faiss';
  readonly kind = 'hnsw';
  readonly quantised = false;
  private graph: FaissIndex | null = null;
  /** A file holding the graph's bytes, and how to delete it when it is the builder's (a saved one stays). */
  private graphFile: { file: NativeFile; release?: () => Promise<void> } | null = null;
  /** Graph label -> id; null marks a tombstone. */
  private graphIds: Array<string | null> = [];
  /**
   * Id -> graph label, made from graphIds when first needed (a removal, a relabel, finding the pending rows): made
   * for 200,000 ids as a saved graph loaded, it was most of opening's longest hold of the event loop (40-75 ms).
   */
  private labels: Map<string, number> | null = null;
  /** In the store but not in the graph. */
  private readonly pending = new Set<string>();
  /**
   * The pending vectors' store labels, ascending, until the store or the pending set next changes: right after a
   * large change (a re-chunk) a fifth of the store can be pending, and mapping 200,000 ids to labels for every
   * search cost more than scanning them.
   */
  private pendingLabels: Int32Array | null = null;
  private tombstones = 0;
  private build: { job: HnswBuild; done: Promise<void> } | null = null;
  /** Ids added or removed while a build runs: the new graph holds an old vector for them, or none. */
  private readonly changedDuringBuild = new Set<string>();
  /** Why the last build failed; no other is started, and searches stay exact. */
  private buildError: Error | null = null;
  private readonly exact: TsFlatEngine;

  constructor(
    private readonly faiss: FaissModule,
    private readonly store: VectorStore,
    loaded?: LoadedGraph,
  ) {
    this.exact = new TsFlatEngine(store);
    if (!loaded) return;
    const file = loaded.file && { file: loaded.file };
    if (!loaded.rows) {
      this.adopt(loaded.graph, store.ids(), file, null);
      return;
    }
    // The saved rows are the store's rows (it was loaded from them).
    const held = new Uint8Array(store.size);
    const ids = loaded.rows.map((row) => (row >= 0 ? ((held[row] = 1), store.idAt(row)) : null));
    this.adopt(loaded.graph, ids, file, held);
  }

  appended(from: number): void {
    this.pendingLabels = null;
    for (let label = from; label < this.store.size; label++) {
      const id = this.store.idAt(label);
      if (this.build) this.changedDuringBuild.add(id);
      if (this.graph) this.pending.add(id);
    }
  }

  removed(_labels: readonly number[], ids: readonly string[]): void {
    // The store's labels above a removed one move down.
    this.pendingLabels = null;
    for (const id of ids) {
      if (this.build) this.changedDuringBuild.add(id);
      if (this.pending.delete(id)) continue;
      const labels = this.graphLabelOf();
      const label = labels.get(id);
      if (label === undefined) continue;
      this.graphIds[label] = null;
      labels.delete(id);
      this.tombstones++;
    }
  }

  relabeled(from: string, to: string): void {
    // A build under way returns its graph with the old id, no longer in the store: adopt() leaves that label
    // out and scans the row exactly, under its new id, until the next build.
    if (this.pending.delete(from)) {
      this.pending.add(to);
      return;
    }
    const labels = this.graphLabelOf();
    const label = labels.get(from);
    if (label === undefined) return;
    labels.delete(from);
    labels.set(to, label);
    this.graphIds[label] = to;
  }

  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[] {
    this.rebuildIfStale();
    const graph = this.graph;
    const live = graph ? graph.ntotal() - this.tombstones : 0;
    if (!graph || live === 0) return this.exact.search(query, k, accept);
    const fromPending = this.searchPending(query, k, accept);
    const total = graph.ntotal();
    let request = Math.min(total, Math.ceil(k / (live / total)));
    for (let round = 0; ; round++) {
      const { labels, distances } = searchOne(graph, query, request);
      const hits: LabelHit[] = [...fromPending];
      for (let i = 0; i < labels.length; i++) {
        const id = labels[i] >= 0 ? this.graphIds[labels[i]] : null;
        if (id === null || (accept && !accept(id))) continue;
        hits.push({ label: this.store.labelOf(id) as number, score: distances[i] });
      }
      if (hits.length >= k) {
        // Sorted by store label among equal scores, like the flat backends.
        return hits
          .sort(compareLabelHits)
          .slice(0, k)
          .map((hit) => ({ id: this.store.idAt(hit.label), score: hit.score }));
      }
      if (request >= total || round + 1 >= OVERSAMPLE_ROUNDS) return this.exact.search(query, k, accept);
      request = Math.min(total, request * 4);
    }
  }

  /** Waits for a first graph before a save, so that one is saved (and the next start need not build it). */
  async beforeSave(): Promise<void> {
    // A build under way (started by a search) is the one waited for: a second would double the work.
    if (!this.graph && !this.build && this.store.size > 0 && !this.buildError) this.startBuild();
    if (!this.graph) await this.settled();
  }

  /** Waits for the graph being built, if any (benchmarks and tests). */
  async settled(): Promise<void> {
    while (this.build) {
      this.build.job.hold();
      await this.build.done;
    }
  }

  prepareSave(): NativeIndexWriter | null {
    const graph = this.graph;
    if (!graph) return null;
    const identity = this.pending.size === 0 && this.tombstones === 0 && this.graphIds.every((id, label) => id === this.store.idAt(label));
    const rows = identity ? undefined : this.graphIds.map((id) => (id === null ? -1 : (this.store.labelOf(id) as number)));
    return {
      fourcc: FAISS_HNSW_FOURCC,
      ...(rows ? { rows } : {}),
      ...(this.graphFile ? { file: this.graphFile.file } : {}),
      write: (file) => graph.write(file),
      saved: (file) => {
        if (this.graph === graph) this.keepGraphFile({ file });
      },
    };
  }

  private rebuildIfStale(): void {
    if (this.build || this.buildError || this.store.size < MIN_GRAPH_VECTORS) return;
    const stale = !this.graph || this.pending.size + this.tombstones > REBUILD_AT_STALE_FRACTION * Math.max(1, this.store.size);
    if (stale) this.startBuild();
  }

  private startBuild(): void {
    this.changedDuringBuild.clear();
    const job = buildHnswGraph(this.faiss, this.store);
    const done = job.graph.then(
      (built) =>
        this.adoptBuilt(built.index, built.ids, { file: built.file, release: built.release }),
      (error: Error) => {
        this.buildError = error;
      },
    );
    this.build = {
      job,
      done: done.finally(() => {
        this.build = null;
        this.changedDuringBuild.clear();
      }),
    };
  }

  /**
   * Takes a graph just built over `ids` (its labels' ids as sent): those changed or removed since are tombstones.
   * Which store rows it holds is marked as each id is looked up once: building an id map of the graph to find the
   * rest (rows added since, or skipped while the rows were sent: see BuiltGraph) was most of a 0.4 s hold at 200k.
   */
  private adoptBuilt(graph: FaissIndex, builtIds: readonly string[], file: { file: NativeFile; release?: () => Promise<void> }): void {
    const held = new Uint8Array(this.store.size);
    const ids = builtIds.map((id) => {
      if (this.changedDuringBuild.has(id)) return null;
      const row = this.store.labelOf(id);
      if (row === undefined) return null;
      held[row] = 1;
      return id;
    });
    this.adopt(graph, ids, file, held);
  }

  /**
   * Takes `graph` with these label → id entries (null: not in the store). `held` marks the store rows it holds; every
   * other stored id is pending. Null: the labels are the store's rows (a graph loaded with its vectors), so none is.
   */
  private adopt(graph: FaissIndex, ids: Array<string | null>, file: { file: NativeFile; release?: () => Promise<void> } | undefined, held: Uint8Array | null): void {
    this.graph = graph;
    this.keepGraphFile(file ?? null);
    this.graphIds = ids;
    this.labels = null;
    this.tombstones = 0;
    for (const id of ids) if (id === null) this.tombstones++;
    this.pending.clear();
    this.pendingLabels = null;
    if (!held) return;
    // Their labels too, ascending, as searchPending keeps them: at a million vectors with a fifth pending, looking
    // them up again on the first search held the event loop for 0.1 s.
    const labels: number[] = [];
    for (let label = 0; label < this.store.size; label++) {
      if (held[label]) continue;
      this.pending.add(this.store.idAt(label));
      labels.push(label);
    }
    this.pendingLabels = Int32Array.from(labels);
  }

  private graphLabelOf(): Map<string, number> {
    if (!this.labels) {
      const labels = new Map<string, number>();
      this.graphIds.forEach((id, label) => id !== null && labels.set(id, label));
      this.labels = labels;
    }
    return this.labels;
  }

  /** Points at another file holding the graph's bytes; a builder's file pointed at before is deleted. */
  private keepGraphFile(file: { file: NativeFile; release?: () => Promise<void> } | null): void {
    const before = this.graphFile;
    this.graphFile = file;
    if (before?.release && before.file.path !== file?.file.path) void before.release().catch(() => undefined);
  }

  /** The best pending vectors, scanned exactly. */
  private searchPending(query: Float32Array, k: number, accept?: AcceptId): LabelHit[] {
    if (this.pending.size === 0) return [];
    const labels = (this.pendingLabels ??= Int32Array.from(this.pending, (id) => this.store.labelOf(id) as number).sort());
    const top = new TopK(Math.min(k, labels.length));
    for (const label of labels) {
      const score = this.store.score(label, query);
      if (score <= top.threshold) continue;
      if (accept && !accept(this.store.idAt(label))) continue;
      top.offer(score, label);
    }
    return top.sorted();
  }
}
