/**
 * What a chunk shows (snippets, answers, the embedded text): its `displayText`, which a stored chunk keeps only when
 * it differs from `text` (an ordinary vault's notes file would otherwise hold every text twice).
 */
export function shownText(chunk: { text: string; displayText?: string }): string {
  return chunk.displayText ?? chunk.text;
}

/** A line with nothing to show: blank, or only a list bullet (an empty Logseq block `-`, a block of only properties). */
const NOTHING_LINE = /^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]*)?\r?$/;

/**
 * Whether a chunk has text to show. One that has none (an empty journal page `-`, a page of only properties) stays
 * a chunk (its lines are cited and shown in the note view) but is neither embedded nor searchable.
 */
export function hasShownText(chunk: { text: string; displayText?: string }): boolean {
  const shown = shownText(chunk);
  let from = 0;
  for (;;) {
    const newline = shown.indexOf('\n', from);
    const line = shown.slice(from, newline === -1 ? shown.length : newline);
    if (!NOTHING_LINE.test(line)) return true;
    if (newline === -1) return false;
    from = newline + 1;
  }
}
