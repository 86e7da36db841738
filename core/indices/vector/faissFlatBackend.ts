import { addRows, searchOne } from './faissRows.js';
import type { FaissIndex, FaissModule } from './faissRuntime.js';
import type { VectorStore } from './vectorStore.js';
import { compareLabelHits, type AcceptId, type LabelHit, type NativeIndexWriter, type SearchEngine, type VectorHit } from './vectorTypes.js';

export const FAISS_FLAT_FOURCC = 'IxFI';

/**
 * Exact search with a faiss IndexFlatIP that mirrors the store row for row:
 * removeIds compacts faiss labels the same way the store compacts its rows.
 */
export class FaissFlatEngine implements SearchEngine {
  readonly backend = 'faiss';
  readonly kind = 'flat';
  private index: FaissIndex;

  /** `loaded` must hold exactly the store's rows (checked by the caller). */
  constructor(
    private readonly faiss: FaissModule,
    private readonly store: VectorStore,
    loaded?: FaissIndex,
  ) {
    this.index = loaded ?? this.buildFromStore();
  }

  appended(from: number): void {
    addRows(this.index, this.store.data(), this.store.dims, from, this.store.size);
    this.checkInStep();
  }

  removed(labels: readonly number[]): void {
    if (labels.length === 0) return;
    this.index.removeIds([...labels]);
    this.checkInStep();
  }

  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[] {
    const total = this.index.ntotal();
    let request = Math.min(k, total);
    for (;;) {
      const { labels, distances } = searchOne(this.index, query, request);
      const hits: LabelHit[] = [];
      for (let i = 0; i < labels.length; i++) {
        const label = labels[i];
        if (label < 0) continue;
        if (accept && !accept(this.store.idAt(label))) continue;
        hits.push({ label, score: distances[i] });
      }
      if (hits.length >= k || request >= total) {
        // faiss returns tied scores in heap order; sort them into label order.
        return hits
          .sort(compareLabelHits)
          .slice(0, k)
          .map((hit) => ({ id: this.store.idAt(hit.label), score: hit.score }));
      }
      request = Math.min(total, request * 4);
    }
  }

  prepareSave(): NativeIndexWriter {
    return { fourcc: FAISS_FLAT_FOURCC, write: (file) => this.index.write(file) };
  }

  // The store is the source of truth: should faiss ever disagree, rebuild rather than serve wrong labels.
  private checkInStep(): void {
    if (this.index.ntotal() !== this.store.size) this.index = this.buildFromStore();
  }

  private buildFromStore(): FaissIndex {
    const index = new this.faiss.IndexFlatIP(this.store.dims);
    addRows(index, this.store.data(), this.store.dims, 0, this.store.size);
    return index;
  }
}
