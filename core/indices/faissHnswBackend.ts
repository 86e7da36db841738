import { addRows, searchOne } from './faissRows.js';
import type { FaissIndex, FaissModule } from './faissRuntime.js';
import { TsFlatEngine } from './flatBackend.js';
import { createTunedHnsw, HNSW_FOURCC } from './hnswTuning.js';
import type { VectorStore } from './vectorStore.js';
import { compareLabelHits, type AcceptId, type LabelHit, type NativeIndexWriter, type SearchEngine, type VectorHit } from './vectorTypes.js';

export const FAISS_HNSW_FOURCC = HNSW_FOURCC;
const REBUILD_AT_TOMBSTONE_FRACTION = 0.2;
/** Oversampling rounds (x4 each) before a filtered search falls back to an exact scan. */
const OVERSAMPLE_ROUNDS = 3;

/**
 * Approximate search with a faiss HNSW graph. removeIds aborts the process on
 * HNSW, so removed vectors become tombstones (skipped at search) and the graph
 * is rebuilt from the store once they pass 20%, and before saving. The graph is
 * built lazily, on the first search after changes, so bulk upserts stay cheap.
 * When the graph cannot supply k acceptable hits (a rare filter, a large k), the
 * search falls back to an exact scan of the store rather than return fewer.
 */
export class FaissHnswEngine implements SearchEngine {
  readonly backend = 'faiss';
  readonly kind = 'hnsw';
  private graph: FaissIndex | null = null;
  /** Graph label -> id; null marks a tombstone. */
  private graphIds: Array<string | null> = [];
  private readonly graphLabelOf = new Map<string, number>();
  /** In the store but not yet in the graph. */
  private readonly pending = new Set<string>();
  private tombstones = 0;
  private readonly exact: TsFlatEngine;

  /** `loaded` must hold exactly the store's rows, in order (checked by the caller). */
  constructor(
    private readonly faiss: FaissModule,
    private readonly store: VectorStore,
    loaded?: FaissIndex,
  ) {
    this.exact = new TsFlatEngine(store);
    if (loaded) this.adopt(loaded);
  }

  appended(from: number): void {
    if (!this.graph) return;
    for (let label = from; label < this.store.size; label++) this.pending.add(this.store.idAt(label));
  }

  removed(_labels: readonly number[], ids: readonly string[]): void {
    if (!this.graph) return;
    for (const id of ids) {
      if (this.pending.delete(id)) continue;
      const label = this.graphLabelOf.get(id);
      if (label === undefined) continue;
      this.graphIds[label] = null;
      this.graphLabelOf.delete(id);
      this.tombstones++;
    }
  }

  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[] {
    const graph = this.sync(false);
    const total = graph.ntotal();
    const liveFraction = (total - this.tombstones) / total;
    let request = Math.min(total, Math.ceil(k / liveFraction));
    for (let round = 0; ; round++) {
      const { labels, distances } = searchOne(graph, query, request);
      const hits: LabelHit[] = [];
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

  prepareSave(): NativeIndexWriter {
    const graph = this.sync(true);
    return { fourcc: FAISS_HNSW_FOURCC, write: (file) => graph.write(file) };
  }

  /** Brings the graph up to date; `exact` also clears tombstones so graph labels equal store rows. */
  private sync(exact: boolean): FaissIndex {
    const tooManyTombstones = this.tombstones > REBUILD_AT_TOMBSTONE_FRACTION * this.graphIds.length;
    if (!this.graph || tooManyTombstones || (exact && this.tombstones > 0)) return this.rebuild();
    if (this.pending.size > 0) this.addPending(this.graph);
    if (exact && !this.labelsMatchStore()) return this.rebuild();
    return this.graph;
  }

  private rebuild(): FaissIndex {
    const graph = createTunedHnsw(this.faiss, this.store.dims);
    addRows(graph, this.store.data(), this.store.dims, 0, this.store.size);
    this.adopt(graph);
    return graph;
  }

  private adopt(graph: FaissIndex): void {
    this.graph = graph;
    this.graphIds = this.store.ids();
    this.graphLabelOf.clear();
    this.graphIds.forEach((id, label) => this.graphLabelOf.set(id as string, label));
    this.pending.clear();
    this.tombstones = 0;
  }

  private addPending(graph: FaissIndex): void {
    const d = this.store.dims;
    const labels = [...this.pending].map((id) => this.store.labelOf(id) as number).sort((a, b) => a - b);
    const rows = new Float32Array(labels.length * d);
    labels.forEach((label, i) => rows.set(this.store.row(label), i * d));
    addRows(graph, rows, d, 0, labels.length);
    for (const label of labels) {
      const id = this.store.idAt(label);
      this.graphLabelOf.set(id, this.graphIds.length);
      this.graphIds.push(id);
    }
    this.pending.clear();
  }

  private labelsMatchStore(): boolean {
    if (this.graphIds.length !== this.store.size) return false;
    return this.graphIds.every((id, label) => id === this.store.idAt(label));
  }
}
