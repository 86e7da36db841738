import { parseOutline, type NoteOutline } from './outlineBlocks.js';

/** A Logseq block uuid, as in `id:: 6565…` and `((6565…))`. */
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** Inline code first (left alone), then the three shapes a block reference takes. */
const REFERENCE = new RegExp(`(\`+)[^\`]*?\\1|\\{\\{embed[ \\t]+\\(\\((${UUID})\\)\\)[ \\t]*\\}\\}|\\[([^\\]\\n]*)\\]\\(\\(\\((${UUID})\\)\\)\\)|\\(\\((${UUID})\\)\\)`, 'g');

/** What a reference to a block that no note defines reads as. */
export const MISSING_BLOCK = '[missing block]';

/** Resolved text longer than this is cut (with "…"): a reference stands for a block, not for a page. */
export const MAX_REFERENCED_CHARS = 300;

export type BlockLookup = (uuid: string) => string | undefined;

/**
 * The blocks of a note that carry an `id::` property, uuid (lower-cased) → the block's own text: its lines without
 * bullet, heading `#`s and property lines, white space collapsed, references inside it left as written (resolve
 * them with `resolveBlockRefs`). Children are not included. Pass `outline` when the note is already outlined.
 */
export function collectBlockTexts(text: string, outline: NoteOutline = parseOutline(text)): Record<string, string> {
  const texts: Record<string, string> = {};
  const properties = outline.propertyLines;
  let p = 0;
  for (const block of outline.blocks) {
    const id = block.properties.id?.toLowerCase();
    if (!id || !new RegExp(`^${UUID}$`).test(id)) continue;
    while (p < properties.length && properties[p].start < block.start) p++;
    // The block's own lines without property lines and code (a reference reads as a sentence, not as a program).
    const cuts = [
      ...propertiesBefore(properties, p, block.headEnd).map((l) => [l.start, l.end] as const),
      ...outline.codeRanges.filter(([s, e]) => s < block.headEnd && e > block.start),
    ].sort((a, b) => a[0] - b[0]);
    let own = '';
    let from = block.start;
    for (const [cutStart, cutEnd] of cuts) {
      if (cutStart > from) own += text.slice(from, cutStart);
      from = Math.max(from, Math.min(cutEnd, block.headEnd));
    }
    if (from < block.headEnd) own += text.slice(from, block.headEnd);
    const cleaned = own
      .replace(/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+/, '')
      .replace(/^#{1,6}[ \t]+/, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (!Object.hasOwn(texts, id)) Object.defineProperty(texts, id, { value: cleaned, enumerable: true, writable: true, configurable: true });
  }
  return texts;
}

function propertiesBefore<T extends { start: number }>(lines: T[], from: number, end: number): T[] {
  let to = from;
  while (to < lines.length && lines[to].start < end) to++;
  return lines.slice(from, to);
}

/** The uuids a text references (`((uuid))`, `{{embed ((uuid))}}`, `[label](((uuid)))`), lower-cased, each once, in order. */
export function blockRefsIn(text: string): string[] {
  return [...new Set(blockRefsAt(text, 0, text.length).map((ref) => ref.uuid))];
}

/** The block references of `text[from, to)` (inline code skipped), each with the offset where it starts. */
export function blockRefsAt(text: string, from: number, to: number): Array<{ uuid: string; start: number }> {
  const refs: Array<{ uuid: string; start: number }> = [];
  for (const match of text.slice(from, to).matchAll(REFERENCE)) {
    const uuid = (match[2] ?? match[4] ?? match[5])?.toLowerCase();
    if (uuid) refs.push({ uuid, start: from + match.index });
  }
  return refs;
}

export interface BlockRefMatch {
  start: number;
  end: number;
  /** What the reference reads as: the block's text, the link's label, or `MISSING_BLOCK`. */
  replacement: string;
  uuid: string;
  missing: boolean;
}

/**
 * The block references in `text[from, to)` outside inline code, each with its replacement: `((uuid))` and
 * `{{embed ((uuid))}}` → the block's text (references inside it resolved too, a few levels deep, cycles cut),
 * `[label](((uuid)))` → label. A uuid the lookup does not know reads as `MISSING_BLOCK`.
 */
export function findBlockRefs(text: string, lookup: BlockLookup, from = 0, to = text.length): BlockRefMatch[] {
  return matchRefs(text.slice(from, to), lookup, 3, new Set()).map((m) => ({ ...m, start: m.start + from, end: m.end + from }));
}

function matchRefs(text: string, lookup: BlockLookup, depth: number, visiting: Set<string>): BlockRefMatch[] {
  const found: BlockRefMatch[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    if (match[1]) continue;
    const uuid = (match[2] ?? match[4] ?? match[5])!.toLowerCase();
    const label = match[3];
    const target = lookup(uuid);
    let replacement: string;
    if (label !== undefined && label.trim() !== '') replacement = label;
    else if (target === undefined || visiting.has(uuid)) replacement = MISSING_BLOCK;
    else replacement = depth > 0 ? resolveWith(target, lookup, depth - 1, new Set([...visiting, uuid])) : resolveWith(target, () => undefined, 0, visiting);
    if (replacement.length > MAX_REFERENCED_CHARS) replacement = `${replacement.slice(0, MAX_REFERENCED_CHARS).replace(/[\uD800-\uDBFF]$/, '')}…`;
    found.push({ start: match.index, end: match.index + match[0].length, replacement, uuid, missing: target === undefined });
  }
  return found;
}

function resolveWith(text: string, lookup: BlockLookup, depth: number, visiting: Set<string>): string {
  let out = '';
  let last = 0;
  for (const match of matchRefs(text, lookup, depth, visiting)) {
    out += text.slice(last, match.start) + match.replacement;
    last = match.end;
  }
  return out + text.slice(last);
}

/** `text` with every block reference replaced by what it reads as (see `findBlockRefs`). */
export function resolveBlockRefs(text: string, lookup: BlockLookup): string {
  return resolveWith(text, lookup, 3, new Set());
}

/** A lookup over uuid → text records (several, the first that knows a uuid answers), case-insensitive on uuids. */
export function lookupIn(...maps: Array<Record<string, string> | undefined>): BlockLookup {
  return (uuid) => {
    const key = uuid.toLowerCase();
    for (const map of maps) if (map && Object.hasOwn(map, key)) return map[key];
    return undefined;
  };
}
