import { TopK } from './topK.js';
import type { VectorStore } from './vectorStore.js';
import type { AcceptId, SearchEngine, VectorHit } from './vectorTypes.js';

/** Exact inner-product search straight over the store's matrix, no native code. */
export class TsFlatEngine implements SearchEngine {
  readonly backend = 'flat';
  readonly kind = 'flat';
  readonly quantised = false;

  constructor(private readonly store: VectorStore) {}

  appended(): void {}
  removed(): void {}

  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[] {
    const store = this.store;
    const rows = store.size;
    const top = new TopK(Math.min(k, rows));
    for (let label = 0; label < rows; label++) {
      const score = store.score(label, query);
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
