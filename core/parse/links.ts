// Links and tags in note text: wikilinks, embeds, local Markdown links and #tags, outside code, as Obsidian reads them.
import { localLink, parseWikilinkInner } from './linkTargets.js';

export type LinkKind = 'wikilink' | 'embed' | 'markdown';
export interface NoteLink {
  kind: LinkKind;
  target: string;
  heading?: string;
  blockId?: string;
  alias?: string;
  start: number;
  end: number;
}
export interface InlineRefs {
  links: NoteLink[];
  tags: string[];
}
/** A tag where it is written: `start` is the offset of its `#`. */
export interface TagAt {
  tag: string;
  start: number;
}
/** Every link and tag of a stretch of text, in the order they are written (tags not yet made unique). */
export interface InlineRefsAt {
  links: NoteLink[];
  tags: TagAt[];
}

type Span = readonly [number, number];

// CommonMark's own limit; also keeps a run of stray "(" from being rescanned for every "[x](".
const MAX_DESTINATION_PARENS = 32;
const TAG_BODY = /[\p{L}\p{N}\p{M}_\-/]+/uy;
const HAS_NON_DIGIT = /[^\p{N}]/u;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const BACKSLASH_ESCAPE = /\\([!-/:-@[-`{-~])/g;
// What each pass stops at; the characters between are skipped in one search rather than looked at one by one.
const INLINE_START = /[\\![#]/g;
const CODE_SPAN_START = /[\\`]/g;
const BRACKET = /[\\[\]]/g;

export function extractInlineRefs(
  text: string,
  from: number,
  to: number,
  codeRanges: ReadonlyArray<readonly [number, number]>,
): InlineRefs {
  const { links, tags } = scanInlineRefs(text, from, to, codeRanges);
  return { links, tags: uniqueTags(tags) };
}

/** The links and tags of `text[from, to)` outside code, with their offsets. */
export function scanInlineRefs(
  text: string,
  from: number,
  to: number,
  codeRanges: ReadonlyArray<readonly [number, number]>,
): InlineRefsAt {
  const start = clamp(from, 0, text.length);
  const end = clamp(to, start, text.length);
  const links: NoteLink[] = [];
  const tags: TagAt[] = [];
  for (const [segStart, segEnd] of segmentsOutside(codeRanges, start, end)) {
    new SegmentScanner(text, segStart, segEnd, links, tags).run();
  }
  return { links, tags };
}

/** Each tag once, by its first spelling: Obsidian treats tags case-insensitively. */
export function uniqueTags(tags: readonly TagAt[]): string[] {
  const seen = new Set<string>();
  const list: string[] = [];
  for (const { tag } of tags) {
    const key = tag.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    list.push(tag);
  }
  return list;
}

export function reduceWikilinks(text: string): string {
  return text.replace(/(?<!\\)!?\[\[((?:(?!\]\]|\[\[)[^\r\n])+)\]\]/g, (raw, inner: string) => {
    const parts = parseWikilinkInner(inner);
    if (!parts) return raw;
    if (parts.alias !== undefined) return parts.alias;
    if (parts.target === '') return parts.heading ?? `^${parts.blockId}`;
    return parts.heading !== undefined ? `${parts.target} > ${parts.heading}` : parts.target;
  });
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(Number.isFinite(value) ? Math.trunc(value) : min, min), max);
}

/** The parts of [start, end) not covered by any code range; links never cross a code block. */
function segmentsOutside(ranges: ReadonlyArray<readonly [number, number]>, start: number, end: number): Span[] {
  const sorted = ranges
    .map(([s, e]) => [Math.max(s, start), Math.min(e, end)] as const)
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  const segments: Span[] = [];
  let cursor = start;
  for (const [s, e] of sorted) {
    if (s > cursor) segments.push([cursor, s]);
    cursor = Math.max(cursor, e);
  }
  if (cursor < end) segments.push([cursor, end]);
  return segments;
}

class SegmentScanner {
  private readonly codeSpans: Span[];
  private readonly paragraphBreaks: number[];
  private readonly closingBracketOf: Map<number, number>;
  /** The text up to the segment's end (a slice costs nothing): a search for the next character stops there. */
  private readonly bounded: string;

  constructor(
    private readonly text: string,
    private readonly start: number,
    private readonly end: number,
    private readonly links: NoteLink[],
    private readonly tags: TagAt[],
  ) {
    this.bounded = end < text.length ? text.slice(0, end) : text;
    this.paragraphBreaks = this.findParagraphBreaks();
    this.codeSpans = this.findCodeSpans();
    this.closingBracketOf = this.matchBrackets();
  }

  run(): void {
    const { text, end } = this;
    let spanIndex = 0;
    let i = this.start;
    while (i < end) {
      i = nextOf(INLINE_START, this.bounded, i, end);
      if (i === end) break;
      while (spanIndex < this.codeSpans.length && this.codeSpans[spanIndex]![1] <= i) spanIndex++;
      const span = this.codeSpans[spanIndex];
      if (span && span[0] <= i) {
        i = span[1];
        continue;
      }
      const ch = text[i];
      if (ch === '\\') {
        i += i + 1 < end && ASCII_PUNCTUATION.test(text[i + 1]!) ? 2 : 1;
        continue;
      }
      if (ch === '!' && text[i + 1] === '[' && i + 1 < end) {
        const next = this.tryLinkAt(i + 1, true);
        i = next ?? i + 1;
        continue;
      }
      if (ch === '[') {
        const next = this.tryLinkAt(i, false);
        i = next ?? i + 1;
        continue;
      }
      if (ch === '#') {
        i = this.tryTagAt(i);
        continue;
      }
      i++;
    }
  }

  /** Returns the offset after the link syntax when one starts at `bracket`, whether or not it is recorded. */
  private tryLinkAt(bracket: number, isEmbed: boolean): number | undefined {
    const linkStart = isEmbed ? bracket - 1 : bracket;
    if (this.text[bracket + 1] === '[' && bracket + 1 < this.end) {
      const wikilinkEnd = this.tryWikilink(bracket, linkStart, isEmbed);
      if (wikilinkEnd !== undefined) return wikilinkEnd;
    }
    return this.tryMarkdownLink(bracket, linkStart, isEmbed);
  }

  private tryWikilink(open: number, linkStart: number, isEmbed: boolean): number | undefined {
    const { text, end } = this;
    let j = open + 2;
    while (j + 1 < end) {
      const span = this.codeSpanAt(j);
      if (span) {
        j = span[1];
        continue;
      }
      const ch = text[j];
      if (ch === '\n' || ch === '\r') return undefined;
      if (ch === '[' && text[j + 1] === '[') return undefined;
      if (ch === ']' && text[j + 1] === ']') break;
      j++;
    }
    if (j + 1 >= end) return undefined;
    const parts = parseWikilinkInner(text.slice(open + 2, j));
    if (!parts) return undefined;
    this.links.push({ kind: isEmbed ? 'embed' : 'wikilink', ...parts, start: linkStart, end: j + 2 });
    return j + 2;
  }

  private tryMarkdownLink(open: number, linkStart: number, isImage: boolean): number | undefined {
    const { text } = this;
    const j = this.closingBracketOf.get(open);
    if (j === undefined || text[j + 1] !== '(' || j + 1 >= this.end) return undefined;
    const destination = this.parseDestination(j + 2);
    if (!destination) return undefined;

    const label = text.slice(open + 1, j).trim();
    const link = localLink(destination.value);
    if (link) {
      this.links.push({
        kind: isImage ? 'embed' : 'markdown',
        ...link,
        ...(label !== '' ? { alias: label } : {}),
        start: linkStart,
        end: destination.end,
      });
    }
    return destination.end;
  }

  /** Parses `dest "title")` starting just after "("; returns the raw destination and the offset after ")". */
  private parseDestination(from: number): { value: string; end: number } | undefined {
    const { text } = this;
    const limit = this.paragraphEnd(from);
    let k = skipWhitespace(text, from, limit);
    let value: string;
    if (text[k] === '<') {
      const close = findUnescaped(text, k + 1, limit, '>', '<\n\r');
      if (close === undefined) return undefined;
      value = text.slice(k + 1, close);
      k = close + 1;
    } else {
      const destStart = k;
      let parens = 0;
      for (; k < limit; k++) {
        const ch = text[k]!;
        if (ch === '\\' && k + 1 < limit && ASCII_PUNCTUATION.test(text[k + 1]!)) {
          k++;
          continue;
        }
        if (ch <= ' ') break;
        if (ch === '(') {
          if (++parens > MAX_DESTINATION_PARENS) return undefined;
        } else if (ch === ')') {
          if (parens === 0) break;
          parens--;
        }
      }
      if (parens !== 0) return undefined;
      value = text.slice(destStart, k);
    }
    const beforeTitle = k;
    k = skipWhitespace(text, k, limit);
    const opener = text[k];
    if (k > beforeTitle && (opener === '"' || opener === "'" || opener === '(')) {
      const close = findUnescaped(text, k + 1, limit, opener === '(' ? ')' : opener, opener === '(' ? '(' : '');
      if (close === undefined) return undefined;
      k = skipWhitespace(text, close + 1, limit);
    }
    if (k >= limit || text[k] !== ')') return undefined;
    return { value: value.replace(BACKSLASH_ESCAPE, '$1'), end: k + 1 };
  }

  private tryTagAt(hash: number): number {
    const { text } = this;
    const previous = hash > 0 ? text[hash - 1]! : '';
    if (previous !== '' && previous !== '(' && previous !== ',' && !/\s/.test(previous)) return hash + 1;
    TAG_BODY.lastIndex = hash + 1;
    const match = TAG_BODY.exec(text);
    if (!match) return hash + 1;
    const bodyEnd = Math.min(hash + 1 + match[0].length, this.end);
    const tag = text.slice(hash + 1, bodyEnd).replace(/\/+$/, '');
    if (HAS_NON_DIGIT.test(tag)) this.tags.push({ tag, start: hash });
    return bodyEnd;
  }

  private codeSpanAt(offset: number): Span | undefined {
    // Binary search: spans are sorted and disjoint.
    let low = 0;
    let high = this.codeSpans.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const span = this.codeSpans[mid]!;
      if (offset < span[0]) high = mid - 1;
      else if (offset >= span[1]) low = mid + 1;
      else return span;
    }
    return undefined;
  }

  /** Offset of the next blank line after `offset`, or the segment end: inline syntax never crosses one. */
  private paragraphEnd(offset: number): number {
    const breaks = this.paragraphBreaks;
    let low = 0;
    let high = breaks.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (breaks[mid]! <= offset) low = mid + 1;
      else high = mid;
    }
    return low < breaks.length ? breaks[low]! : this.end;
  }

  private findParagraphBreaks(): number[] {
    const breaks: number[] = [];
    const blankLine = /\n[ \t]*(?=\r?\n|\r)/g;
    blankLine.lastIndex = this.start;
    for (let m = blankLine.exec(this.text); m && m.index < this.end; m = blankLine.exec(this.text)) {
      breaks.push(m.index + 1);
    }
    return breaks;
  }

  /**
   * Pairs each "[" with the "]" that closes it (nesting allowed, not across a paragraph break),
   * in one pass so that many unmatched "[" cost linear time.
   */
  private matchBrackets(): Map<number, number> {
    const { text, end } = this;
    const pairs = new Map<number, number>();
    const open: number[] = [];
    let spanIndex = 0;
    let breakIndex = 0;
    let next = -1;
    let i = this.start;
    while (i < end) {
      const span = this.codeSpans[spanIndex];
      if (span && span[0] <= i) {
        i = Math.max(i, span[1]);
        spanIndex++;
        continue;
      }
      const paragraphBreak = this.paragraphBreaks[breakIndex];
      if (paragraphBreak !== undefined && paragraphBreak <= i) {
        open.length = 0;
        breakIndex++;
        continue;
      }
      // On to the next bracket or escape, or the next code span or paragraph break before it (the bracket found is
      // kept: searching again from every break before it would be quadratic).
      if (next < i) next = nextOf(BRACKET, this.bounded, i, end);
      if (next === end || (span && span[0] < next) || (paragraphBreak !== undefined && paragraphBreak < next)) {
        i = Math.min(next, span?.[0] ?? end, paragraphBreak ?? end);
        continue;
      }
      i = next;
      const ch = text[i];
      if (ch === '\\' && i + 1 < end && ASCII_PUNCTUATION.test(text[i + 1]!)) {
        i += 2;
        continue;
      }
      if (ch === '[') open.push(i);
      else if (ch === ']' && open.length > 0) pairs.set(open.pop()!, i);
      i++;
    }
    return pairs;
  }

  /** CommonMark code spans: a run of N backticks closes at the next run of exactly N in the same paragraph. */
  private findCodeSpans(): Span[] {
    const { text, end } = this;
    const spans: Span[] = [];
    // Remembers "no run of this length before that limit" so unmatched runs don't rescan the paragraph.
    const failedUpTo = new Map<number, number>();
    let i = this.start;
    while (i < end) {
      i = nextOf(CODE_SPAN_START, this.bounded, i, end);
      if (i === end) break;
      if (text[i] === '\\') {
        i += i + 1 < end && ASCII_PUNCTUATION.test(text[i + 1]!) ? 2 : 1;
        continue;
      }
      const runLength = backtickRun(text, i, end);
      const limit = this.paragraphEnd(i);
      const close = failedUpTo.get(runLength) === limit ? -1 : findBacktickRun(text, i + runLength, limit, runLength);
      if (close < 0) {
        failedUpTo.set(runLength, limit);
        i += runLength;
        continue;
      }
      spans.push([i, close + runLength]);
      i = close + runLength;
    }
    return spans;
  }
}

/** The first offset at or after `from` where the global `pattern` matches a character, or `end` when none does before it. */
function nextOf(pattern: RegExp, text: string, from: number, end: number): number {
  pattern.lastIndex = from;
  const match = pattern.exec(text);
  return match === null || match.index >= end ? end : match.index;
}

function backtickRun(text: string, from: number, limit: number): number {
  let k = from;
  while (k < limit && text[k] === '`') k++;
  return k - from;
}

function findBacktickRun(text: string, from: number, limit: number, length: number): number {
  let k = from;
  while (k < limit) {
    if (text[k] !== '`') {
      k++;
      continue;
    }
    const run = backtickRun(text, k, limit);
    if (run === length) return k;
    k += run;
  }
  return -1;
}

function skipWhitespace(text: string, from: number, limit: number): number {
  let k = from;
  while (k < limit && (text[k] === ' ' || text[k] === '\t' || text[k] === '\n' || text[k] === '\r')) k++;
  return k;
}

function findUnescaped(text: string, from: number, limit: number, closer: string, forbidden: string): number | undefined {
  for (let k = from; k < limit; k++) {
    const ch = text[k]!;
    if (ch === '\\') {
      k++;
      continue;
    }
    if (ch === closer) return k;
    if (forbidden.includes(ch)) return undefined;
  }
  return undefined;
}
