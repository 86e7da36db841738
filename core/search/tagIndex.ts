/**
 * The index's tags, each with how many notes carry it, and the tags nearest a misspelt one: what `tag:` completes
 * from in the app's search box and what a `tag:` that no note has offers instead.
 */

import type { TagCount } from '../contract/search.js';

export type { TagCount } from '../contract/search.js';

/** Every tag of these notes with its note count, most used first (ties by name). */
export function tagCounts(notes: Iterable<{ tags: readonly string[]; chunks: ReadonlyArray<{ tags: readonly string[] }> }>): TagCount[] {
  const counts = new Map<string, TagCount>();
  for (const note of notes) {
    const seen = new Set<string>();
    for (const tag of [...note.tags, ...note.chunks.flatMap((c) => c.tags)]) {
      const name = tag.replace(/^#/, '');
      const key = name.toLowerCase();
      if (!key || seen.has(key)) continue;
      seen.add(key);
      const entry = counts.get(key);
      if (entry) entry.notes++;
      else counts.set(key, { tag: name, notes: 1 });
    }
  }
  return [...counts.values()].sort((a, b) => b.notes - a.notes || compareText(a.tag, b.tag));
}

/** True when some tag of the list is `tag` or lies under it (`a` also matches `a/b`), as the `tag:` filter matches. */
export function hasTag(tags: readonly TagCount[], tag: string): boolean {
  const key = tag.replace(/^#/, '').toLowerCase();
  return tags.some((t) => {
    const name = t.tag.toLowerCase();
    return name === key || name.startsWith(`${key}/`);
  });
}

/**
 * Up to `n` tags nearest `tag`: those that start with it or contain it first, then by edit distance (a typo or two:
 * 1 for up to 4 letters, 2 for up to 8, 3 beyond, so "zzz" offers nothing rather than noise); ties go to the tag
 * more notes carry.
 */
export function nearestTags(tag: string, tags: readonly TagCount[], n = 3): string[] {
  const key = tag.replace(/^#/, '').toLowerCase();
  if (!key) return [];
  const limit = key.length <= 4 ? 1 : key.length <= 8 ? 2 : 3;
  const scored: Array<{ tag: TagCount; rank: number; distance: number }> = [];
  for (const candidate of tags) {
    const name = candidate.tag.toLowerCase();
    if (name === key) continue;
    const rank = name.startsWith(key) ? 0 : name.includes(key) || key.includes(name) ? 1 : 2;
    const distance = editDistance(key, name);
    if (rank < 2 || distance <= limit) scored.push({ tag: candidate, rank, distance });
  }
  scored.sort((a, b) => a.rank - b.rank || a.distance - b.distance || b.tag.notes - a.tag.notes || compareText(a.tag.tag, b.tag.tag));
  return scored.slice(0, n).map((s) => s.tag.tag);
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
