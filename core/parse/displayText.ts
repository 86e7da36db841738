import { findBlockRefs, type BlockLookup } from './logseqBlocks.js';
import { firstStartingAt } from './sortedSpans.js';
import type { NoteOutline, PropertyLine } from './outlineBlocks.js';

/** A replacement of `source[start, end)` in the text shown and indexed for a chunk. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * Inline code (left alone), then Logseq `{{macro …}}` calls: a name right after `{{`, so Hugo shortcodes
 * (`{{< x >}}`, `{{% x %}}`) and template variables (`{{ .Title }}`, Dendron's `{{fm.desc}}`) are not macros.
 */
const MACRO = /(`+)[^`]*?\1|\{\{([A-Za-z][\w-]*(?:[ \t][^{}\n]*)?)\}\}/g;

/**
 * The edits that turn a note's source into the text shown and indexed (a chunk's `displayText`), in source order.
 * Every edit keeps the line count: line i of the result shows line i of the source, so line numbers (citations,
 * merged parts, quoted sentences) read the same on both. No replacement holds a line break.
 * - `key:: value` property lines are emptied, their line breaks kept (they are metadata), except a page's
 *   `description::`, which reads as its value: it is the page's own summary (65 of the 238 pages of Logseq's
 *   documentation graph are properties only, 38 of them with a description, the one sentence they say);
 * - code `#+BEGIN_SRC/QUERY/EXAMPLE…` regions become fenced code (so they read as code everywhere Markdown is
 *   read: never quoted as prose), the markers of prose ones (`#+BEGIN_NOTE`, `TIP`, `QUOTE`…) are dropped;
 * - macros: `{{embed ((uuid))}}` → the block's text, `{{embed [[page]]}}` → the page name, `{{cloze text}}` →
 *   text, any other (`{{query …}}`, `{{video …}}`, `{{renderer …}}`) is dropped: it is not prose;
 * - block references `((uuid))` → the referenced block's text (or "[missing block]"), `[label](((uuid)))` → label;
 * - an Obsidian or Dendron block id at the end of a line (`… ^e5bebf`), which their reading views hide, goes;
 * - encoded data is emptied, its lines kept: a fenced block of it (an Excalidraw drawing's `compressed-json`, a
 *   pasted file), fence lines included, and the payload of a long `data:…;base64,` URI. It is not text: one drawing
 *   made some 25 chunks and 9,000 keyword terms of base64 that prefix searches then matched.
 * Nothing else inside code (`codeRanges`: every code range of the note, fenced or indented) is touched.
 */
export function displayEdits(text: string, outline: NoteOutline, lookup: BlockLookup, codeRanges: ReadonlyArray<readonly [number, number]>): TextEdit[] {
  // A page's description keeps its value: only `description:: ` goes (a deletion, so a piece of a split line still reads right).
  const hidden = outline.propertyLines.map((line): [number, number] => [line.start, isShownProperty(line) ? valueStart(text, line) : withoutLineBreak(text, line.end)]);
  const edits: TextEdit[] = hidden.map(([start, end]) => ({ start, end, text: '' }));
  for (const region of outline.beginBlocks) {
    if (region.code) {
      const inner = text.slice(region.open[1], region.close?.[0] ?? region.end);
      const fence = '`'.repeat(Math.max(3, longestRun(inner, '`') + 1));
      const lang = region.kind === 'SRC' ? (region.args.split(/\s+/)[0] ?? '') : region.kind.toLowerCase();
      edits.push({ start: region.open[0], end: region.open[1], text: fence + lang });
      if (region.close) edits.push({ start: region.close[0], end: region.close[1], text: fence });
    } else {
      edits.push({ start: region.open[0], end: region.open[1], text: '' });
      if (region.close) edits.push({ start: region.close[0], end: region.close[1], text: '' });
    }
  }
  // Macros and references, in the text outside code and property lines.
  const skipped = [...outline.codeRanges, ...hidden].sort((a, b) => a[0] - b[0]);
  let from = 0;
  const scan = (to: number) => {
    if (to > from) edits.push(...inlineEdits(text, from, to, lookup));
  };
  for (const [start, end] of skipped) {
    scan(start);
    from = Math.max(from, end);
  }
  scan(text.length);
  for (const [start, end] of codeRanges) edits.push(...dataBlockEdits(text, start, end));
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  // Never two edits over one character (a marker line inside a property line cannot happen, but stay safe).
  let covered = 0;
  return edits.filter((edit) => {
    if (edit.start < covered) return false;
    covered = edit.end;
    return true;
  });
}

/** A fenced block's opening line. */
const FENCE_LINE = /^ {0,3}(?:`{3,}|~{3,})/;
/** A line of encoded data: base64 (standard or URL-safe) or hex, no blanks inside. */
const DATA_LINE = /^[ \t]*[A-Za-z0-9+/=_-]+[ \t]*\r?$/;
/** Encoded data at least this long is not something to search by its words; a shorter block (a hash, a token in docs) stays text. */
const MIN_DATA_CHARS = 1000;
/** A block id (`[[note#^e5bebf]]` links to its line): a blank, a caret and the id, ending the line. */
const BLOCK_ID = /[ \t]+\^[A-Za-z0-9-]+(?=\r?$)/gm;
/** A data URI's base64 payload of at least this many characters (an embedded image). */
const DATA_URI = /data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,([A-Za-z0-9+/=]{256,})/g;

/** Every line of the fenced block at `[start, end)` emptied, when all it holds is encoded data (see MIN_DATA_CHARS). */
function dataBlockEdits(text: string, start: number, end: number): TextEdit[] {
  if (!FENCE_LINE.test(text.slice(start, Math.min(end, start + 8)))) return [];
  const lines: Array<[number, number]> = [];
  for (let at = start; at < end; ) {
    const newline = text.indexOf('\n', at);
    const lineEnd = newline === -1 || newline >= end ? end : newline;
    lines.push([at, text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd]);
    at = lineEnd + 1;
  }
  const closed = lines.length > 1 && FENCE_LINE.test(text.slice(lines.at(-1)![0], lines.at(-1)![1]));
  const inner = lines.slice(1, closed ? -1 : undefined).filter(([a, b]) => /\S/.test(text.slice(a, b)));
  let chars = 0;
  for (const [a, b] of inner) {
    if (!DATA_LINE.test(text.slice(a, b))) return [];
    chars += b - a;
  }
  if (chars < MIN_DATA_CHARS) return [];
  return lines.filter(([a, b]) => b > a).map(([a, b]) => ({ start: a, end: b, text: '' }));
}

function inlineEdits(text: string, from: number, to: number, lookup: BlockLookup): TextEdit[] {
  const edits: TextEdit[] = [];
  const segment = text.slice(from, to);
  for (const match of segment.matchAll(BLOCK_ID)) edits.push({ start: from + match.index, end: from + match.index + match[0].length, text: '' });
  for (const match of segment.matchAll(DATA_URI)) {
    const payload = from + match.index + match[0].length - match[1]!.length;
    edits.push({ start: payload, end: payload + match[1]!.length, text: '' });
  }
  let last = 0;
  const refsUpTo = (end: number) => {
    for (const ref of findBlockRefs(text, lookup, from + last, from + end)) edits.push({ start: ref.start, end: ref.end, text: oneLine(ref.replacement) });
  };
  for (const match of segment.matchAll(MACRO)) {
    if (match[1]) continue;
    const body = match[2].trim();
    const embed = /^embed[ \t]+(.*)$/i.exec(body);
    const cloze = /^cloze[ \t]+(.*)$/i.exec(body);
    let replacement = '';
    if (embed && /^\(\(/.test(embed[1])) continue; // a block embed: resolved as a block reference below
    if (embed) replacement = embed[1].trim().replace(/^\[\[(.*)\]\]$/, '$1');
    else if (cloze) replacement = cloze[1].trim();
    refsUpTo(match.index);
    edits.push({ start: from + match.index, end: from + match.index + match[0].length, text: oneLine(replacement) });
    last = match.index + match[0].length;
  }
  refsUpTo(segment.length);
  return edits;
}

/** Whether a property line shows its value: a page's `description::` does. */
function isShownProperty(line: PropertyLine): boolean {
  return line.block === -1 && line.key === 'description' && line.value !== '';
}

/** Where a property line's value starts (past `key::` and the blanks after it). */
function valueStart(text: string, line: PropertyLine): number {
  const prefix = /^[ \t]*(?:[-*+][ \t]+)?[A-Za-z0-9_][A-Za-z0-9_\-.]*::[ \t]*/.exec(text.slice(line.start, line.end));
  return line.start + (prefix?.[0].length ?? 0);
}

/** A replacement on one line: a block's text joined (block texts are collapsed already; stay safe). */
function oneLine(text: string): string {
  return text.includes('\n') ? text.replace(/\s*\r?\n\s*/g, ' ') : text;
}

/** `end` (just past a line break) moved before that line break (`\n` or `\r\n`). */
function withoutLineBreak(text: string, end: number): number {
  if (text.charCodeAt(end - 1) !== 10) return end;
  return text.charCodeAt(end - 2) === 13 ? end - 2 : end - 1;
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/**
 * `source[start, end)` with the edits applied (`edits` sorted by start, not overlapping): replacements lying wholly
 * inside it, and deletions clipped to it (a range that ends inside a property line still drops that line's text).
 */
export function applyEdits(source: string, start: number, end: number, edits: readonly TextEdit[]): string {
  let lo = firstStartingAt(edits, start);
  if (lo > 0 && edits[lo - 1].end > start) lo--;
  let out = '';
  let at = start;
  for (let i = lo; i < edits.length && edits[i].start < end; i++) {
    const edit = edits[i];
    const inside = edit.start >= start && edit.end <= end;
    if (!inside && edit.text !== '') continue;
    const from = Math.max(edit.start, start);
    out += source.slice(at, from) + edit.text;
    at = Math.min(edit.end, end);
  }
  return out + source.slice(at, end);
}
