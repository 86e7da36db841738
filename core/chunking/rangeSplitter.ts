import type { Block, Heading } from '../parse/markdownTree.js';
import { firstStartingAt } from '../parse/sortedSpans.js';
import type { OutlineBlock } from '../parse/outlineBlocks.js';

export interface Span {
  start: number;
  end: number;
}

export interface SplitLimits {
  maxChars: number;
  maxTokens: number;
  /** Tokens of the text `[start, end)` is indexed as (its display text: see `displayEdits`). */
  countTokens(start: number, end: number): number;
}

/** What a range is split along: Markdown headings and blocks, outline blocks, code regions of those blocks. */
export interface SplitStructure {
  headings: Heading[];
  blocks: Block[];
  /** Bullet blocks (sorted by start); a block too big splits into its own lines and its children. */
  items?: readonly OutlineBlock[];
  /** Code inside bullet blocks (fences, `#+BEGIN_SRC`...): kept whole, split only at lines. */
  itemCode?: ReadonlyArray<readonly [number, number]>;
}

/** A piece that is kept whole when it fits: a block, a heading glued to its block, a list item, a line... */
interface Unit extends Span {
  kind: 'lines' | 'prose' | 'parts' | 'glued' | 'item';
  parts?: Unit[];
  /** For an item: its index in `SplitStructure.items`. */
  item?: number;
}

const LINE_BLOCKS = new Set(['fenced_code_block', 'indented_code_block', 'pipe_table', 'html_block']);
const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * Cuts `[start, end)` of `source` into consecutive spans within the limits, preferring block boundaries
 * (paragraphs, whole code blocks, tables and lists), then list items, lines, sentences, words, and at last
 * characters. Spans start and end on non-blank text; every non-blank character of the range is in one span.
 */
export function splitRange(source: string, start: number, end: number, structure: SplitStructure, limits: SplitLimits): Span[] {
  const atoms = unitsOf(source, start, end, structure).flatMap((unit) => atomize(source, unit, limits, structure));
  return pack(atoms, limits);
}

function unitsOf(source: string, start: number, end: number, structure: SplitStructure): Unit[] {
  const { headings, blocks, items = [] } = structure;
  // The outermost bullet blocks starting in the range: a list's parts, or (in a range starting inside a list) units of their own.
  const [firstItem, lastItem] = indicesStartingWithin(items, start, end);
  const topItems: Array<{ item: OutlineBlock; index: number }> = [];
  for (let index = firstItem; index < lastItem; index++) {
    const item = items[index];
    if (item.parent < 0 || item.parent < firstItem) topItems.push({ item, index });
  }
  let nextItem = 0;
  const itemUnit = ({ item, index }: { item: OutlineBlock; index: number }): Unit | undefined => {
    const span = trim(source, item.start, Math.min(item.end, end));
    return span && { ...span, kind: 'item', item: index };
  };
  const elements: Array<{ start: number; end: number; heading: boolean; block?: Block; unit?: Unit }> = [
    ...startingWithin(headings, start, end).map((h) => ({ start: h.start, end: h.end, heading: true })),
    ...startingWithin(blocks, start, end).map((b) => ({ start: b.start, end: b.end, heading: false, block: b })),
  ].sort((a, b) => a.start - b.start);
  // Lists are cut at their items as the outline sees them (tree-sitter's list items do not nest headings).
  for (const element of elements) {
    if (element.block?.type !== 'list') continue;
    const parts: Unit[] = [];
    const listEnd = Math.min(element.end, end);
    let from = element.start;
    while (nextItem < topItems.length && topItems[nextItem].item.start < element.start) nextItem++;
    while (nextItem < topItems.length && topItems[nextItem].item.start < listEnd) {
      const unit = itemUnit(topItems[nextItem++]);
      if (!unit) continue;
      // Text of the list the outline does not see as a block (e.g. inside an HTML comment) stays, as prose.
      const gap = trim(source, from, unit.start);
      if (gap) parts.push({ ...gap, kind: 'prose' });
      parts.push(unit);
      from = Math.max(from, unit.end);
    }
    const tail = trim(source, from, listEnd);
    if (tail && parts.length) parts.push({ ...tail, kind: 'prose' });
    if (parts.length) element.unit = { start: parts[0].start, end: parts.at(-1)!.end, kind: 'parts', parts };
  }
  const claimed = new Set(elements.flatMap((e) => e.unit?.parts?.map((p) => p.item) ?? []));
  for (const top of topItems) {
    if (claimed.has(top.index)) continue;
    const unit = itemUnit(top);
    if (unit) elements.push({ start: unit.start, end: unit.end, heading: false, unit });
  }
  elements.sort((a, b) => a.start - b.start);
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
    if (element.unit && element.unit.start >= span.start && element.unit.end <= span.end) units.push(element.unit);
    else if (element.heading) units.push({ ...span, kind: 'prose', heading: true });
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

function fits(_source: string, span: Span, limits: SplitLimits): boolean {
  return span.end - span.start <= limits.maxChars && limits.countTokens(span.start, span.end) <= limits.maxTokens;
}

/** Breaks a unit that does not fit into the smallest pieces its kind allows. */
function atomize(source: string, unit: Unit, limits: SplitLimits, structure: SplitStructure): Span[] {
  if (fits(source, unit, limits)) return [unit];
  switch (unit.kind) {
    case 'glued':
    case 'parts':
      return unit.parts!.flatMap((part) => atomize(source, part, limits, structure));
    case 'item':
      return itemParts(source, unit, structure).flatMap((part) => atomize(source, part, limits, structure));
    case 'lines':
      return lineSpans(source, unit).flatMap((line) => (fits(source, line, limits) ? [line] : bySentence(source, line, limits)));
    case 'prose':
      return bySentence(source, unit, limits);
  }
}

/**
 * A bullet block too big to keep whole: its own lines (code in them kept apart, as a block of lines) and then each
 * child block, a heading block's own line travelling with what follows it.
 */
function itemParts(source: string, unit: Unit, structure: SplitStructure): Unit[] {
  const items = structure.items!;
  const item = items[unit.item!];
  const parts: Array<Unit & { heading?: boolean }> = [];
  const headEnd = Math.min(item.headEnd, unit.end);
  let from = unit.start;
  for (const [codeStart, codeEnd] of structure.itemCode ?? []) {
    if (codeEnd <= unit.start || codeStart >= headEnd) continue;
    const prose = trim(source, from, codeStart);
    if (prose) parts.push({ ...prose, kind: 'prose' });
    const code = trim(source, Math.max(codeStart, from), Math.min(codeEnd, headEnd));
    if (code) parts.push({ ...code, kind: 'lines' });
    from = Math.max(from, Math.min(codeEnd, headEnd));
  }
  const rest = trim(source, from, headEnd);
  if (rest) parts.push({ ...rest, kind: 'prose' });
  if (item.heading && parts.length) parts[0].heading = true;
  // Children, and any text of the block between or after them (lines less indented than a child after a blank line).
  from = Math.max(from, headEnd);
  for (let i = unit.item! + 1; i < items.length && items[i].start < unit.end; i++) {
    if (items[i].parent !== unit.item) continue;
    const between = trim(source, from, items[i].start);
    if (between) parts.push({ ...between, kind: 'prose' });
    const child = trim(source, items[i].start, Math.min(items[i].end, unit.end));
    if (child) parts.push({ ...child, kind: 'item', item: i });
    from = Math.max(from, Math.min(items[i].end, unit.end));
  }
  const tail = trim(source, from, unit.end);
  if (tail) parts.push({ ...tail, kind: 'prose' });
  return glueHeadings(parts);
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
function startingWithin<T extends Span>(sorted: readonly T[], start: number, end: number): T[] {
  const [from, to] = indicesStartingWithin(sorted, start, end);
  return sorted.slice(from, to);
}

function indicesStartingWithin(sorted: readonly Span[], start: number, end: number): [number, number] {
  const lo = firstStartingAt(sorted, start);
  let to = lo;
  while (to < sorted.length && sorted[to].start < end) to++;
  return [lo, to];
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
function pack(atoms: Span[], limits: SplitLimits): Span[] {
  const spans: Span[] = [];
  let current: Span | undefined;
  let tokens = 0;
  for (const atom of atoms) {
    const atomTokens = limits.countTokens(atom.start, atom.end);
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
