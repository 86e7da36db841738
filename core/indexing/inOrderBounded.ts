/**
 * `work` on every item, at most `limit` at once (the next starts as soon as one ends, so a slow item holds up only
 * its own lane), results in the items' order; `onDone` is told how many have ended.
 */
export async function inOrderBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>, onDone: (done: number) => void = () => {}): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
      onDone(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
