// How the embedding worker groups texts into model runs.

/**
 * Consecutive runs of `order` (sorted by length, shortest first) of at most `size` items and, when `chars` > 0, at
 * most `chars` characters counting each item as long as the run's last (longest); an item longer than that alone.
 */
export function* batchesOf(order: readonly number[], lengthOf: (i: number) => number, size: number, chars: number): Generator<number[]> {
  let batch: number[] = [];
  for (const i of order) {
    if (batch.length > 0 && (batch.length >= size || (chars > 0 && (batch.length + 1) * lengthOf(i) > chars))) {
      yield batch;
      batch = [];
    }
    batch.push(i);
  }
  if (batch.length > 0) yield batch;
}
