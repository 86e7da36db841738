// Completing a `tag:` being typed, from the vault's tag list (listTags): the search box's suggestions. Pure.
import type { TagCount } from './search.js';

/**
 * Completions of a tag being typed: tags starting with `prefix` (case-insensitive; any tag for an empty prefix), then
 * those with a `/part` starting with it, most used first; the tag exactly as typed is no completion.
 */
export function completeTag(prefix: string, tags: readonly TagCount[], n = 8): TagCount[] {
  const key = prefix.replace(/^#/, '').toLowerCase();
  const starts = tags.filter((t) => t.tag.toLowerCase().startsWith(key) && t.tag.toLowerCase() !== key);
  const inside = key ? tags.filter((t) => !t.tag.toLowerCase().startsWith(key) && t.tag.toLowerCase().includes(`/${key}`)) : [];
  return [...starts, ...inside].slice(0, n);
}
