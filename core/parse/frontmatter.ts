import { parse as parseToml, TomlError } from 'smol-toml';
import { parseDocument } from 'yaml';
import { journalDateFromPath, journalTitle, pageNameFromPath } from './pageNames.js';

export interface FrontmatterError {
  message: string;
  line: number;
}
export interface Frontmatter {
  data: Record<string, unknown>;
  end: number;
  error?: FrontmatterError;
}
export interface NoteMetadata {
  title: string;
  aliases: string[];
  tags: string[];
  created?: string;
  updated?: string;
  /** The day a journal page (`journals/2024_01_15.md`) is for, as an ISO date `YYYY-MM-DD`. */
  date?: string;
  frontmatter: Record<string, unknown>;
}

/** YAML between `---` lines (Obsidian, Jekyll, most tools), or TOML between `+++` lines (Hugo, Zola). */
const OPENING_FENCE = /^(?:\uFEFF)?(---|\+\+\+)[ \t]*(?:\r\n|\n|\r)/;
const CLOSING_FENCE = { '---': /^(?:---|\.\.\.)[ \t]*$/, '+++': /^\+\+\+[ \t]*$/ } as const;

export function parseFrontmatter(text: string): Frontmatter {
  const opening = OPENING_FENCE.exec(text);
  if (!opening) return { data: {}, end: 0 };
  const contentStart = opening[0].length;

  const closing = findClosingFence(text, contentStart, CLOSING_FENCE[opening[1] as keyof typeof CLOSING_FENCE]);
  if (!closing) return { data: {}, end: 0 };
  if (opening[1] === '+++') return tomlFrontmatter(text, contentStart, closing);

  const yamlSource = text.slice(contentStart, closing.start);
  // Errors found at end of input (an unclosed quote) belong to the last YAML line, not the fence.
  const lastContentOffset = Math.max(0, yamlSource.trimEnd().length - 1);
  const lineOf = (offset: number) => lineNumberAt(text, contentStart + Math.min(offset, lastContentOffset));
  const fail = (message: string, offset: number): Frontmatter => ({
    data: {},
    end: closing.end,
    error: { message, line: lineOf(offset) },
  });

  if (yamlSource.trim() === '') return { data: {}, end: closing.end };

  const doc = parseDocument(yamlSource, { prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) return fail(firstError.message, firstError.pos[0]);

  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 0);
  }
  if (value === null || value === undefined) return { data: {}, end: closing.end };
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) {
    const contentOffset = doc.contents?.range?.[0] ?? 0;
    return fail(`Front matter must be a mapping of keys to values, found ${describeYamlValue(value)}`, contentOffset);
  }
  return { data: toJsonSafe(value) as Record<string, unknown>, end: closing.end };
}

/** TOML front matter: a table of keys, as YAML's mapping is; a TOML error names its line in the note. */
function tomlFrontmatter(text: string, contentStart: number, closing: { start: number; end: number }): Frontmatter {
  const source = text.slice(contentStart, closing.start);
  let value: Record<string, unknown>;
  try {
    value = parseToml(source);
  } catch (error) {
    // As for YAML: an error found at end of input (an unclosed list) belongs to the last TOML line, not the fence.
    const lastLine = lineNumberAt(text, contentStart + Math.max(0, source.trimEnd().length - 1));
    const line = Math.min(lastLine, lineNumberAt(text, contentStart) + (error instanceof TomlError ? error.line - 1 : 0));
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
    return { data: {}, end: closing.end, error: { message, line } };
  }
  return { data: toJsonSafe(value) as Record<string, unknown>, end: closing.end };
}

function findClosingFence(text: string, from: number, fence: RegExp): { start: number; end: number } | undefined {
  let lineStart = from;
  while (lineStart <= text.length) {
    const { lineEnd, next } = lineBounds(text, lineStart);
    if (fence.test(text.slice(lineStart, lineEnd))) return { start: lineStart, end: next };
    if (next === lineEnd) return undefined;
    lineStart = next;
  }
  return undefined;
}

/** lineEnd excludes the line break; next is just past it (equal to lineEnd at end of text). */
function lineBounds(text: string, lineStart: number): { lineEnd: number; next: number } {
  for (let i = lineStart; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) return { lineEnd: i, next: i + 1 };
    if (ch === 13) return { lineEnd: i, next: text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1 };
  }
  return { lineEnd: text.length, next: text.length };
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  const limit = Math.min(offset, text.length);
  for (let i = 0; i < limit; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 || (ch === 13 && text.charCodeAt(i + 1) !== 10)) line++;
  }
  return line;
}

function describeYamlValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  return `a ${typeof value}`;
}

/** Explicit YAML tags (!!timestamp, !!binary, !!set, .inf) can yield values JSON cannot carry. */
function toJsonSafe(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Set) return [...value].map(toJsonSafe);
  if (Array.isArray(value)) return value.map(toJsonSafe);
  if (value instanceof Map) return objectFromEntries([...value].map(([k, v]) => [String(k), v]));
  if (typeof value === 'object' && value !== null) return objectFromEntries(Object.entries(value));
  if (typeof value === 'function' || typeof value === 'symbol') return String(value);
  return value;
}

function objectFromEntries(entries: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    // defineProperty so a "__proto__" key stays a plain key instead of replacing the prototype.
    Object.defineProperty(out, key, { value: toJsonSafe(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// ---- note metadata ----

const LOGSEQ_PROPERTY = /^[ \t]*(?:-[ \t]+)?([A-Za-z0-9_][A-Za-z0-9_\-.]*)::(?:[ \t]+(.*)|[ \t]*)$/;

/** `journalFormat`: the Logseq graph's `:journal/file-name-format`, for the day of a journal page. */
export function noteMetadata(path: string, frontmatter: Frontmatter, body: string, journalFormat?: string): NoteMetadata {
  const yamlData = frontmatter.data;
  const logseqData = readLogseqPageProperties(body);

  const merged: Record<string, unknown> = objectFromEntries(Object.entries(logseqData));
  for (const [key, value] of Object.entries(yamlData)) {
    Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  }

  const pick = (...keys: string[]): { value: unknown; fromLogseq: boolean } | undefined => {
    for (const key of keys) {
      if (Object.hasOwn(yamlData, key) && isPresent(yamlData[key])) return { value: yamlData[key], fromLogseq: false };
    }
    for (const key of keys) {
      if (Object.hasOwn(logseqData, key) && isPresent(logseqData[key])) return { value: logseqData[key], fromLogseq: true };
    }
    return undefined;
  };

  const titleValue = pick('title')?.value;
  const date = journalDateFromPath(path, journalFormat);
  const title = scalarText(titleValue) ?? (date ? journalTitle(date) : pageNameFromPath(path));

  const aliasValue = pick('aliases', 'alias');
  const aliases = dedupeCaseInsensitive(
    listItems(aliasValue?.value, /,/).map(stripPageBrackets).filter((alias) => alias !== ''),
  );

  // Logseq separates tag values by commas only ("tags:: my tag" is one page); YAML strings also split on spaces.
  const tagValue = pick('tags', 'tag');
  const tags = dedupeCaseInsensitive(
    listItems(tagValue?.value, tagValue?.fromLogseq ? /,/ : /[,\s]+/)
      .map(normalizeTag)
      .filter((tag) => tag !== ''),
  );

  const metadata: NoteMetadata = { title, aliases, tags, frontmatter: merged };
  const created = dateText(pick('created', 'date')?.value);
  const updated = dateText(pick('updated', 'modified')?.value);
  if (created !== undefined) metadata.created = created;
  if (updated !== undefined) metadata.updated = updated;
  if (date !== undefined) metadata.date = date;
  return metadata;
}

/** The initial run of `key:: value` lines of a Logseq page, keys lower-cased as Logseq does. */
function readLogseqPageProperties(body: string): Record<string, string> {
  const properties: Record<string, string> = {};
  const lines = body.split(/\r\n|\n|\r/);
  let index = 0;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  for (; index < lines.length; index++) {
    const match = LOGSEQ_PROPERTY.exec(lines[index]!);
    if (!match) break;
    const key = match[1]!.toLowerCase();
    if (!Object.hasOwn(properties, key)) {
      Object.defineProperty(properties, key, {
        value: (match[2] ?? '').trim(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return properties;
}

function isPresent(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Splits a string on the separator but keeps `[[page refs]]` (which may hold spaces or commas) whole. */
function listItems(value: unknown, separator: RegExp): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((item) => scalarText(item) ?? []);
  const text = scalarText(value);
  if (text === undefined) return [];
  const items: string[] = [];
  const pageRef = /#?\[\[[^\]]*\]\]/g;
  let last = 0;
  for (const match of text.matchAll(pageRef)) {
    items.push(...text.slice(last, match.index).split(separator), match[0]);
    last = match.index + match[0].length;
  }
  items.push(...text.slice(last).split(separator));
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

function stripPageBrackets(item: string): string {
  const match = /^#?\[\[(.*)\]\]$/.exec(item.trim());
  return (match ? match[1]! : item).trim();
}

function normalizeTag(item: string): string {
  return stripPageBrackets(item.trim().replace(/^#+/, '')).replace(/\/+$/, '').trim();
}

function dedupeCaseInsensitive(items: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    const key = item.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

/** Epoch numbers (Dendron stores milliseconds) become ISO strings; date strings are kept as written. */
function dateText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Below 1e11 a timestamp only makes sense in seconds (1e11 ms is 1973).
    const ms = Math.abs(value) >= 1e11 ? value : Math.abs(value) >= 1e9 ? value * 1000 : undefined;
    if (ms === undefined) return undefined;
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') return undefined;
    if (/^\d{11,}$/.test(trimmed)) return dateText(Number(trimmed));
    return trimmed;
  }
  return undefined;
}
