import { TopK } from './topK.js';
import type { VectorStore } from './vectorStore.js';
import type { AcceptId, SearchEngine, VectorHit } from './vectorTypes.js';

/** Exact inner-product search straight over the store's matrix, no native code. */
export class TsFlatEngine implements SearchEngine {
  readonly backend = 'flat';
  readonly kind = 'flat';

  constructor(private readonly store: VectorStore) {}

  appended(): void {}
  removed(): void {}

  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[] {
    const store = this.store;
    const data = store.data();
    const d = store.dims;
    const rows = store.size;
    const top = new TopK(Math.min(k, rows));
    for (let label = 0, offset = 0; label < rows; label++, offset += d) {
      let dot = 0;
      for (let j = 0; j < d; j++) dot += data[offset + j] * query[j];
      // Rounded to float32 like faiss's scores, so near-equal scores tie (and rank) the same way.
      const score = Math.fround(dot);
      if (score <= top.threshold) continue;
      if (accept && !accept(store.idAt(label))) continue;
      top.offer(score, label);
    }
    return top.sorted().map((hit) => ({ id: store.idAt(hit.label), score: hit.score }));
  }

  prepareSave(): null {
    return null;
  }
}
