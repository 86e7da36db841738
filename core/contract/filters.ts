/**
 * The search filters, declared once: their keys, the operators that type them into a query (as Obsidian's search
 * takes them: `path:Projects/`, `tag:#idea`, `after:2026-01-01`, `before:2026-02`, and `-path:Archive/`,
 * `-tag:draft` to leave out), and how they are parsed, normalised and merged. One syntax for the app's search
 * box, `cairn search` and questions. Pure: imports nothing, so every transport and the renderer can use it.
 */

export interface SearchFilters {
  /** Vault-relative folder or path prefix, e.g. "Projects/" or "Daily/2026-". */
  pathPrefix?: string;
  /** Notes or chunks carrying every one of these tags (case-insensitive; "a" also matches "a/b"). */
  tags?: string[];
  /** Leaves out notes under these folders or path prefixes. */
  excludePaths?: string[];
  /** Leaves out notes or chunks carrying any of these tags. */
  excludeTags?: string[];
  /** Modified at or after / before these times (ms since epoch); a journal page by its day (see `noteTime`). */
  modifiedAfter?: number;
  modifiedBefore?: number;
}

/** The six filter keys, in the order they are checked and listed. */
export const SEARCH_FILTER_KEYS = ['pathPrefix', 'tags', 'excludePaths', 'excludeTags', 'modifiedAfter', 'modifiedBefore'] as const satisfies ReadonlyArray<keyof SearchFilters>;

/** The filters that are lists: given ones and typed ones add up. */
const LIST_FILTER_KEYS = ['tags', 'excludeTags', 'excludePaths'] as const satisfies ReadonlyArray<keyof SearchFilters>;

/** The operator words typed into a query (`path:`, `tag:`, `after:`, `before:`, `-path:`, `-tag:`). */
export const FILTER_OPERATORS = ['path', 'tag', 'after', 'before'] as const;

/** A filter operator as typed, with what it does in words (the app shows it as a removable chip). */
export interface QueryOperator {
  /** Exactly as in the query, e.g. `path:"Daily notes/"`. */
  text: string;
  /** e.g. "in Daily notes/", "not #draft", "modified on or after 2026-11-01". */
  label: string;
}

export interface ParsedQuery {
  /** The query's words, operators removed: what is searched for. */
  text: string;
  /** The filters the operators name (not yet merged with any given beside the query). */
  filters: SearchFilters;
  /** The operators that were used, in the order typed. */
  operators: QueryOperator[];
  /** Operators that could not be used, each saying why; the search runs without them. */
  problems: string[];
}

const OPERATOR_WORDS = FILTER_OPERATORS.join('|');
/** `key:value`, `key:"value with spaces"` or `-key:value` (not), at the start of the query or after white space. */
const OPERATOR = new RegExp(`(^|\\s)(-?)(${OPERATOR_WORDS}):(?:"([^"]*)"?|(\\S*))`, 'gi');
/** An operator with nothing after it yet. */
const INCOMPLETE_OPERATOR = new RegExp(`(?:^|\\s)(-?(?:${OPERATOR_WORDS}):)(?=\\s|$)`, 'gi');

/** A vault-relative path prefix as filters compare it: no leading "./" or "/". */
export function normalisePathPrefix(prefix: string): string {
  return prefix.replace(/^\.?\//, '');
}

/** A tag as filters compare it: without its "#", lower case. */
export function normaliseTagKey(tag: string): string {
  return tag.replace(/^#/, '').toLowerCase();
}

export function parseQuery(query: string): ParsedQuery {
  const filters: SearchFilters = {};
  const problems: string[] = [];
  const operators: QueryOperator[] = [];
  const add = (key: (typeof LIST_FILTER_KEYS)[number], value: string) => (filters[key] = [...(filters[key] ?? []), value]);
  const text = query.replace(OPERATOR, (match: string, space: string, minus: string, rawKey: string, quoted: string | undefined, bare: string | undefined) => {
    const key = rawKey.toLowerCase();
    const not = minus === '-';
    const value = (quoted ?? bare ?? '').trim();
    const used = (label: string) => operators.push({ text: match.slice(space.length), label });
    // A key still being typed ("tag:") filters nothing yet, and is no word to search for either.
    if (!value) return space;
    if (key === 'path') {
      const prefix = normalisePathPrefix(value.replace(/\\/g, '/'));
      if (prefix.split('/').includes('..')) problems.push(`${minus}path:${value} must be a folder or note inside the vault`);
      else if (not) {
        add('excludePaths', prefix);
        used(`not in ${prefix}`);
      } else {
        if (filters.pathPrefix !== undefined && filters.pathPrefix !== prefix) problems.push(`only one path: per query; using path:${prefix}`);
        filters.pathPrefix = prefix;
        used(`in ${prefix}`);
      }
    } else if (key === 'tag') {
      const tag = value.replace(/^#/, '');
      if (tag) {
        add(not ? 'excludeTags' : 'tags', tag);
        used(`${not ? 'not ' : ''}#${tag}`);
      }
    } else if (not) {
      problems.push(`-${key}: cannot be negated; use ${key === 'after' ? 'before' : 'after'}: instead`);
    } else {
      const time = parseDay(value);
      if (time === undefined) problems.push(`${key}:${value} is not a date like 2026-11-25, 2026-11 or 2026`);
      else {
        filters[key === 'after' ? 'modifiedAfter' : 'modifiedBefore'] = time;
        used(`modified ${key === 'after' ? 'on or after' : 'before'} ${value}`);
      }
    }
    return space;
  });
  return { text: text.replace(/\s+/g, ' ').trim(), filters, operators, problems };
}

/** The operators typed with nothing after them yet (`tag:`, `-path:`), as typed. */
export function incompleteOperators(query: string): string[] {
  return [...query.matchAll(INCOMPLETE_OPERATOR)].map((m) => m[1]!);
}

/**
 * A day, month or year as the local midnight it starts at: "2026-11-25", "2026-11", "2026" (a full ISO time such
 * as "2026-11-25T14:00" is taken as written). Undefined when it is none of these.
 */
export function parseDay(value: string): number | undefined {
  const day = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(value.trim());
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2] ?? 1), Number(day[3] ?? 1)];
    const time = new Date(year, month - 1, date);
    // new Date rolls 2026-02-31 over into March: refuse what is not a real day.
    return time.getFullYear() === year && time.getMonth() === month - 1 && time.getDate() === date ? time.getTime() : undefined;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const time = Date.parse(value);
    return Number.isNaN(time) ? undefined : time;
  }
  return undefined;
}

/** Filters from beside the query, narrowed by those the query names (lists add up; operators win otherwise). */
export function mergeFilters(given: SearchFilters | undefined, typed: SearchFilters): SearchFilters {
  const merged: SearchFilters = { ...given, ...typed };
  for (const key of LIST_FILTER_KEYS) {
    const values = [...new Set([...(given?.[key] ?? []), ...(typed[key] ?? [])])];
    if (values.length) merged[key] = values;
    else delete merged[key];
  }
  for (const key of Object.keys(merged) as Array<keyof SearchFilters>) if (merged[key] === undefined) delete merged[key];
  return merged;
}

export function hasFilters(filters: SearchFilters): boolean {
  return Object.keys(filters).length > 0;
}
