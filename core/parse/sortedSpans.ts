// One binary search for the outline's sorted ranges (blocks, items, edits). No imports: the renderer bundles core/parse.

/** Index of the first item of `sorted` (sorted by start) starting at or after `at`; `sorted.length` when none does. */
export function firstStartingAt(sorted: readonly { start: number }[], at: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].start < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
