import type { Block, Heading } from '../parse/markdownTree.js';

export interface Span {
  start: number;
  end: number;
}

export interface SplitLimits {
  maxChars: number;
  maxTokens: number;
  countTokens(text: string): number;
}

/** A piece that is kept whole when it fits: a block, a heading glued to its block, a list item, a line... */
interface Unit extends Span {
  kind: 'lines' | 'prose' | 'parts' | 'glued';
  parts?: Unit[];
}

const LINE_BLOCKS = new Set(['fenced_code_block', 'indented_code_block', 'pipe_table', 'html_block']);
const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * Cuts `[start, end)` of `source` into consecutive spans within the limits, preferring block boundaries
 * (paragraphs, whole code blocks, tables and lists), then list items, lines, sentences, words, and at last
 * characters. Spans start and end on non-blank text; every non-blank character of the range is in one span.
 */
export function splitRange(source: string, start: number, end: number, headings: Heading[], blocks: Block[], limits: SplitLimits): Span[] {
  const atoms = unitsOf(source, start, end, headings, blocks).flatMap((unit) => atomize(source, unit, limits));
  return pack(source, atoms, limits);
}

function unitsOf(source: string, start: number, end: number, headings: Heading[], blocks: Block[]): Unit[] {
  const elements = [
    ...startingWithin(headings, start, end).map((h) => ({ start: h.start, end: h.end, heading: true, block: undefined as Block | undefined })),
    ...startingWithin(blocks, start, end).map((b) => ({ start: b.start, end: b.end, heading: false, block: b as Block | undefined })),
  ].sort((a, b) => a.start - b.start);
  const units: Array<Unit & { heading?: boolean; math?: boolean }> = [];
  let pos = start;
  const pushText = (from: number, to: number) => {
    const span = trim(source, from, to);
    if (span) units.push({ ...span, kind: 'prose' });
  };
  for (const element of elements) {
    if (element.start > pos) pushText(pos, element.start);
    const span = trim(source, Math.max(element.start, pos), Math.min(element.end, end));
    pos = Math.max(pos, Math.min(element.end, end));
    if (!span) continue;
    const block = element.block;
    if (element.heading) units.push({ ...span, kind: 'prose', heading: true });
    else if (block?.parts) units.push({ ...span, kind: 'parts', parts: partsOf(source, block.parts, span) });
    else units.push({ ...span, kind: block && LINE_BLOCKS.has(block.type) ? 'lines' : 'prose', math: source.startsWith('$$', span.start) });
  }
  if (pos < end) pushText(pos, end);
  return glueHeadings(glueMath(source, units));
}

function partsOf(source: string, parts: Array<[number, number]>, within: Span): Unit[] {
  const units: Unit[] = [];
  for (const [from, to] of parts) {
    const span = trim(source, Math.max(from, within.start), Math.min(to, within.end));
    if (span) units.push({ ...span, kind: 'prose' });
  }
  return units.length ? units : [{ ...within, kind: 'prose' }];
}

/** `$$` display math stays whole (blank lines inside it split it into paragraphs) and stays with its paragraph. */
function glueMath(source: string, units: Array<Unit & { heading?: boolean; math?: boolean }>) {
  const out: typeof units = [];
  for (let i = 0; i < units.length; i++) {
    let unit = units[i];
    if (unit.math) {
      let j = i;
      while (countMathFences(source, unit.start, units[j].end) % 2 === 1 && j + 1 < units.length && !units[j + 1].heading) j++;
      if (j > i) unit = glue(units.slice(i, j + 1));
      i = j;
      const previous = out.at(-1);
      if (previous && !previous.heading && previous.kind === 'prose') {
        out[out.length - 1] = glue([previous, unit]);
        continue;
      }
    }
    out.push(unit);
  }
  return out;
}

function countMathFences(source: string, start: number, end: number): number {
  let count = 0;
  for (let i = source.indexOf('$$', start); i !== -1 && i < end - 1; i = source.indexOf('$$', i + 2)) count++;
  return count;
}

/** A heading never ends a piece on its own: it travels with the block after it. */
function glueHeadings(units: Array<Unit & { heading?: boolean }>): Unit[] {
  const out: Unit[] = [];
  for (let i = 0; i < units.length; i++) {
    if (units[i].heading && i + 1 < units.length) {
      out.push(glue([units[i], units[i + 1]]));
      i++;
    } else {
      out.push(units[i]);
    }
  }
  return out;
}

function glue(units: Unit[]): Unit {
  return { start: units[0].start, end: units.at(-1)!.end, kind: 'glued', parts: units.flatMap((u) => (u.kind === 'glued' ? u.parts! : [u])) };
}

function fits(source: string, span: Span, limits: SplitLimits): boolean {
  return span.end - span.start <= limits.maxChars && limits.countTokens(source.slice(span.start, span.end)) <= limits.maxTokens;
}

/** Breaks a unit that does not fit into the smallest pieces its kind allows. */
function atomize(source: string, unit: Unit, limits: SplitLimits): Span[] {
  if (fits(source, unit, limits)) return [unit];
  switch (unit.kind) {
    case 'glued':
    case 'parts':
      return unit.parts!.flatMap((part) => atomize(source, part, limits));
    case 'lines':
      return lineSpans(source, unit).flatMap((line) => (fits(source, line, limits) ? [line] : bySentence(source, line, limits)));
    case 'prose':
      return bySentence(source, unit, limits);
  }
}

function lineSpans(source: string, span: Span): Span[] {
  const spans: Span[] = [];
  let from = span.start;
  while (from < span.end) {
    const newline = source.indexOf('\n', from);
    const to = newline === -1 || newline >= span.end ? span.end : newline + 1;
    const line = trim(source, from, to);
    if (line) spans.push(line);
    from = to;
  }
  return spans;
}

/**
 * The outline elements (sorted by start, as outlines are) that start in `[start, end)`: found by binary search, so
 * splitting the many sections of a huge note stays linear.
 */
function startingWithin<T extends Span>(sorted: T[], start: number, end: number): T[] {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].start < start) lo = mid + 1;
    else hi = mid;
  }
  let to = lo;
  while (to < sorted.length && sorted[to].start < end) to++;
  return sorted.slice(lo, to);
}

/**
 * Segments `span` window by window: V8's segment iterator costs time proportional to the whole string at each
 * step, so one long line segmented at once is quadratic (229 s for 1 MB). Windows end where a segment cannot
 * continue (see `windowEnd`), so for the segments that matter the result is the same as segmenting at once.
 */
function segmentSpans(segmenter: Intl.Segmenter, source: string, span: Span, window: number, sentenceCuts: boolean): Span[] {
  const spans: Span[] = [];
  for (let from = span.start; from < span.end; ) {
    const to = windowEnd(source, from, span.end, window, sentenceCuts);
    for (const { segment, index } of segmenter.segment(source.slice(from, to))) {
      const piece = trim(source, from + index, from + index + segment.length);
      if (piece) spans.push(piece);
    }
    from = to;
  }
  return spans;
}

/** Segments within these many characters at a time: a word window costs little; a sentence window holds most paragraphs whole. */
const WORD_WINDOW = 4096;
const SENTENCE_WINDOW = 16384;

/**
 * Where a segmenting window from `from` ends: `end` when it is near, else at the last white space followed by a word
 * start (a word boundary in every locale) in the window, preferring one after sentence punctuation for sentences;
 * a window of one unbroken "word" ends anywhere between code points.
 */
function windowEnd(source: string, from: number, end: number, window: number, sentenceCuts: boolean): number {
  if (end - from <= window) return end;
  const limit = from + window;
  let fallback = -1;
  for (let at = limit; at > from + window / 2; at--) {
    if (!isSpace(source.charCodeAt(at - 1)) || !STARTS_WORD.test(source[at])) continue;
    if (!sentenceCuts || SENTENCE_END.test(source.slice(Math.max(from, at - 3), at))) return at;
    if (fallback < 0) fallback = at;
  }
  if (fallback > 0) return fallback;
  return isLowSurrogate(source.charCodeAt(limit)) ? limit - 1 : limit;
}

const STARTS_WORD = /[\p{L}\p{N}\p{P}\p{S}]/u;
const SENTENCE_END = /[.!?。！？]["')\]]?\s+$/u;

function bySentence(source: string, span: Span, limits: SplitLimits): Span[] {
  return segmentSpans(sentences, source, span, SENTENCE_WINDOW, true).flatMap((sentence) =>
    fits(source, sentence, limits)
      ? [sentence]
      : segmentSpans(words, source, sentence, WORD_WINDOW, false).flatMap((word) => (fits(source, word, limits) ? [word] : byCharacters(source, word, limits))),
  );
}

/** Last resort for a single "word" beyond the limits (a long URL, a data blob): cut between code points. */
function byCharacters(source: string, span: Span, limits: SplitLimits): Span[] {
  const size = Math.max(1, Math.min(limits.maxChars, limits.maxTokens));
  const spans: Span[] = [];
  let from = span.start;
  while (from < span.end) {
    let to = Math.min(span.end, from + size);
    if (to < span.end && isLowSurrogate(source.charCodeAt(to)) && to - 1 > from) to--;
    spans.push({ start: from, end: to });
    from = to;
  }
  return spans;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Greedily joins consecutive atoms into spans that stay within the limits. */
function pack(source: string, atoms: Span[], limits: SplitLimits): Span[] {
  const spans: Span[] = [];
  let current: Span | undefined;
  let tokens = 0;
  for (const atom of atoms) {
    const atomTokens = limits.countTokens(source.slice(atom.start, atom.end));
    if (current && atom.end - current.start <= limits.maxChars && tokens + atomTokens <= limits.maxTokens) {
      current.end = atom.end;
      tokens += atomTokens;
    } else {
      if (current) spans.push(current);
      current = { start: atom.start, end: atom.end };
      tokens = atomTokens;
    }
  }
  if (current) spans.push(current);
  return spans;
}

/** The span without leading and trailing white space, or undefined when it is blank. */
export function trim(source: string, start: number, end: number): Span | undefined {
  while (start < end && isSpace(source.charCodeAt(start))) start++;
  while (end > start && isSpace(source.charCodeAt(end - 1))) end--;
  return start < end ? { start, end } : undefined;
}

function isSpace(code: number): boolean {
  // The same notion of blank as JavaScript's \s, which the coverage checks use.
  return code <= 32 ? code === 32 || (code >= 9 && code <= 13) : code >= 0xa0 && WHITESPACE.test(String.fromCharCode(code));
}

const WHITESPACE = /\s/;
