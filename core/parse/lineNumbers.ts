// Offsets to 1-based line numbers, for the chunker, the note view and block references alike. No imports: the
// renderer bundles it too.

/** The offset each line starts at. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line number of offset `at`, given the text's `lineStarts`. */
export function lineOf(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** A function from offsets of `text` to 1-based line numbers. */
export function lineCounter(text: string): (offset: number) => number {
  const starts = lineStarts(text);
  return (offset) => lineOf(starts, offset);
}
