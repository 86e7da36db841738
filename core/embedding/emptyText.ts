import type { Embedder } from './embedder.js';

const emptyVectors = new WeakMap<Pick<Embedder, 'embed'>, Promise<Float32Array>>();

/** The embedding of empty text, computed once per embedder. */
export function emptyTextVector(embedder: Pick<Embedder, 'embed'>): Promise<Float32Array> {
  let vector = emptyVectors.get(embedder);
  if (!vector) {
    vector = embedder.embed(['']).then(([v]) => v);
    emptyVectors.set(embedder, vector);
  }
  return vector;
}

/**
 * True when `vector` says nothing more than empty text: for a word-vector model, text made only of words it
 * does not know (a made-up name, an unknown language). Such a query has no meaning to search by.
 */
export function isEmptyLike(vector: Float32Array, empty: Float32Array): boolean {
  let dot = 0;
  for (let i = 0; i < vector.length; i++) dot += vector[i] * empty[i];
  return dot > 0.99;
}
