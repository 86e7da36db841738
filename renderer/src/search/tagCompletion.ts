// The `tag:` being typed at the end of the query, and the query with it completed: what the tag suggestions under
// the search box work on (the completions themselves: completeTag in core/contract/tags.ts).
import type { FilterOperator } from './filterExamples.ts';

/** The operator these work on, checked against the contract's operators. */
const TAG: FilterOperator = 'tag';

export interface TypedTag {
  /** Where the tag's text starts in the query (after `tag:` and any `#`). */
  start: number;
  /** What is typed of it so far (may be empty). */
  prefix: string;
}

/** The tag being typed: the query's last token is `tag:…` or `-tag:…` (not quoted), else undefined. */
export function typedTag(query: string): TypedTag | undefined {
  const match = new RegExp(`(?:^|\\s)-?${TAG}:(#?)([^\\s"]*)$`, 'i').exec(query);
  if (!match) return undefined;
  const prefix = match[2]!;
  return { start: query.length - prefix.length, prefix };
}

/** The query with the tag being typed completed to `tag` (quoted when it has spaces), and a space to go on typing. */
export function completeTypedTag(query: string, typed: TypedTag, tag: string): string {
  return `${query.slice(0, typed.start)}${/\s/.test(tag) ? `"${tag}"` : tag} `;
}

/** The query with `tag:wrong` (or `tag:#wrong`) replaced by `tag:right`. */
export function replaceTag(query: string, wrong: string, right: string): string {
  const escaped = wrong.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return query.replace(new RegExp(`(^|\\s)(-?${TAG}:)(#?)("?)${escaped}\\4(?=\\s|$)`, 'i'), (_m, space: string, key: string, hash: string) => `${space}${key}${hash}${/\s/.test(right) ? `"${right}"` : right}`);
}
