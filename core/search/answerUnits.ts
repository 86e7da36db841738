import { renderInline } from '../contract/inlineText.js';

/**
 * Cuts a passage of Markdown into the units an answer can quote: sentences of paragraphs, whole list items and
 * table rows (as "header: cell" prose). Headings, code (fenced, indented or in a raw Hugo shortcode), math
 * blocks, HTML comments, callout titles, images, link definitions, thematic breaks, front matter, questions and
 * all-bold lines are never quoted: they are not statements that answer anything. Inline Markdown is rendered.
 *
 * Every unit keeps its offsets into the passage, so its exact text and its own lines in the note follow.
 */

export type UnitKind = 'sentence' | 'item' | 'row';

export interface AnswerUnit {
  kind: UnitKind;
  /** UTF-16 offsets into the passage text; `text.slice(start, end)` is the unit as written. */
  start: number;
  end: number;
  /** Exactly as written (may span lines and keep `>` quote prefixes). */
  raw: string;
  /** For display and scoring: quote prefixes, list markers and checkboxes removed, whitespace collapsed. */
  plain: string;
}

interface Line {
  start: number;
  /** End of the line's content, before `\r\n` or `\n`. */
  end: number;
  /** Length of the `>` block-quote prefix. */
  quote: number;
  /** The line without its quote prefix. */
  body: string;
}

type Block = { kind: 'para' | 'item'; first: number; last: number };

/** A list item longer than this is quoted sentence by sentence: a whole one would swamp the answer. */
const MAX_ITEM_CHARS = 400;

const QUOTE_PREFIX = /^(?: {0,3}> ?)+/;
export const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:\s|$)/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)\s*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const CALLOUT_TITLE = /^\s*\[![\w-]+\][+-]?/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const LIST_MARKER = /^(\s*)(?:[-*+]|\d{1,9}[.)])(?:\s+\[[ xX\-/>]\])?(?:\s+|$)/;
const INDENTED_CODE = /^(?: {4}|\t)/;
const LONE_HTML_TAG = /^\s*<\/?[A-Za-z][^>]*>\s*$/;
/** An image or embed opening a line: a picture and its caption, not a statement. */
const IMAGE_LINE = /^\s*!\[/;
const HAS_WORD = /[\p{L}\p{N}]/u;
/**
 * "[label]: https://…": a link reference definition is an address for links elsewhere, not prose. A footnote's
 * ("[^1]: The source …") is prose: read without its label.
 */
const LINK_DEFINITION = /^ {0,3}\[(?!\^)[^\]]+\]:\s*\S+/;
export const FOOTNOTE_LABEL = /^ {0,3}\[\^[^\]]+\]:[ \t]*/;
/**
 * A Hugo shortcode opening on its own line with angle brackets ("{{< highlight go >}}"): its content is passed
 * on raw, not as Markdown (code, configuration), unlike "{{% … %}}", whose content is prose.
 */
const RAW_SHORTCODE_OPEN = /^\s*\{\{<\s*([\w-]+)(?:[^>]|>(?!\}\}))*?(?<!\/)>\}\}\s*$/;

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
/** An inline code span (CommonMark: a run of backticks closed by a run of the same length). */
const CODE_SPAN = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;

/**
 * `atNoteStart`: the passage begins at the note's first line, where front matter may stand. `openFence`: the passage
 * begins inside a fenced code block opened with this marker (a later piece of a force-split section: see
 * `openFencesOf`).
 */
export function answerUnits(text: string, atNoteStart = false, openFence?: string): AnswerUnit[] {
  const lines = splitLines(text);
  const units: AnswerUnit[] = [];
  let block: Block | undefined;
  let fence = openFence;
  let inMath = false;
  let inComment = false;
  let shortcode: string | undefined;
  let inTable = false;
  let inList = false;
  let indentedCode = false;
  let afterBlank = true;
  let header: string[] = [];
  let i = 0;

  const flush = () => {
    if (block) units.push(...blockUnits(text, lines, block));
    block = undefined;
  };

  // Front matter (YAML or TOML, as core/parse/frontmatter.ts reads it) is not prose.
  const opening = atNoteStart ? lines[0]?.body.trimEnd() : undefined;
  if (opening === '---' || opening === '+++') {
    const closing = opening === '---' ? /^(?:---|\.\.\.)\s*$/ : /^\+\+\+\s*$/;
    const close = lines.findIndex((l, n) => n > 0 && closing.test(l.body));
    if (close > 0) i = close + 1;
  }

  for (; i < lines.length; i++) {
    const line = lines[i];
    const body = line.body;
    if (fence !== undefined) {
      if (closesFence(body, fence)) fence = undefined;
      continue;
    }
    if (inMath) {
      if (body.includes('$$')) inMath = false;
      continue;
    }
    if (inComment) {
      if (body.includes('-->')) inComment = false;
      continue;
    }
    if (shortcode !== undefined) {
      if (shortcodeClose(shortcode).test(body)) shortcode = undefined;
      continue;
    }
    // An indented code block runs over every indented line, and blank lines between them, to the first line that
    // is not indented ("    ```tasks" / "    not done" is code, all of it).
    if (indentedCode) {
      if (INDENTED_CODE.test(body)) continue;
      if (body.trim() === '') {
        afterBlank = true;
        continue;
      }
      indentedCode = false;
    }
    const rawShortcode = RAW_SHORTCODE_OPEN.exec(body);
    if (rawShortcode) {
      flush();
      // Only a paired shortcode has content to skip: look for its closing tag before skipping anything.
      const close = shortcodeClose(rawShortcode[1]);
      if (lines.slice(i + 1).some((l) => close.test(l.body))) shortcode = rawShortcode[1];
      continue;
    }
    if (LINK_DEFINITION.test(body) && !block) continue;
    const fenceOpen = FENCE_OPEN.exec(body);
    if (fenceOpen) {
      flush();
      fence = fenceOpen[1];
      continue;
    }
    if (body.trimStart().startsWith('$$')) {
      flush();
      // `$$ x $$` on one line opens and closes.
      inMath = !body.trim().slice(2).includes('$$');
      continue;
    }
    if (body.trimStart().startsWith('<!--')) {
      flush();
      inComment = !body.includes('-->');
      continue;
    }
    if (body.trim() === '') {
      flush();
      inTable = false;
      afterBlank = true;
      continue;
    }
    const wasBlank = afterBlank;
    afterBlank = false;
    if (ATX_HEADING.test(body) || CALLOUT_TITLE.test(body) || LONE_HTML_TAG.test(body) || IMAGE_LINE.test(body)) {
      flush();
      if (ATX_HEADING.test(body)) inList = false;
      continue;
    }
    if (SETEXT_UNDERLINE.test(body) && block?.kind === 'para') {
      // The paragraph above was a setext heading.
      block = undefined;
      continue;
    }
    if (THEMATIC_BREAK.test(body)) {
      flush();
      continue;
    }
    // The row above a delimiter row is the header: it names the columns, it states nothing. Rows need no
    // leading "|" ("Azure|See details."), so a table lasts until a line without one.
    const next = lines[i + 1]?.body ?? '';
    const opensTable = body.includes('|') && next.includes('|') && TABLE_DELIMITER.test(next) && !TABLE_DELIMITER.test(body);
    // A passage cut from the middle of a table (a long table split between chunks) starts with rows and no header:
    // two lines running on, each with a cell bar, are rows too, never a paragraph showing "Azure|See details.".
    const headlessRows = !block && !LIST_MARKER.test(body) && hasCellBar(body) && hasCellBar(next);
    if (opensTable || headlessRows || body.trimStart().startsWith('|') || (inTable && body.includes('|'))) {
      flush();
      inTable = true;
      if (opensTable) header = tableCells(body);
      else if (headlessRows && !inTable) header = [];
      else if (!TABLE_DELIMITER.test(body) && rowStatesInWords(body)) {
        const row = makeUnit(text, line.start + line.quote, line.end, 'row', tableRowText(body, header));
        if (row) units.push(row);
      }
      continue;
    }
    inTable = false;
    if (LIST_MARKER.test(body)) {
      flush();
      block = { kind: 'item', first: i, last: i };
      inList = true;
      continue;
    }
    if (!block && INDENTED_CODE.test(body) && wasBlank && !inList) {
      indentedCode = true;
      continue;
    }
    if (block) block.last = i;
    else {
      block = { kind: 'para', first: i, last: i };
      if (!INDENTED_CODE.test(body)) inList = false;
    }
  }
  flush();
  return units;
}

export function closesFence(line: string, fence: string): boolean {
  return line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '';
}

/**
 * For consecutive pieces of one section (each an exact slice of the note, in order): the code fence open where each
 * begins. The chunker splits a code block too long for one chunk at its lines, so a later piece can begin inside
 * one, where its lines would otherwise read as prose. `first`: the fence open where the first piece begins.
 */
export function openFencesOf(pieces: ReadonlyArray<{ text: string; startLine: number }>, first?: string): Array<string | undefined> {
  const open = [first];
  for (let j = 1; j < pieces.length; j++) {
    let fence = open[j - 1];
    for (const { body } of splitLines(pieces[j - 1]!.text).slice(0, pieces[j]!.startLine - pieces[j - 1]!.startLine)) {
      if (fence !== undefined) {
        if (closesFence(body, fence)) fence = undefined;
      } else fence = FENCE_OPEN.exec(body)?.[1];
    }
    open.push(fence);
  }
  return open;
}

/** A table cell bar: an unescaped "|" outside code spans and wikilinks ("[[Note|alias]]"). */
function hasCellBar(line: string): boolean {
  return /(?<!\\)\|/.test(line.replace(CODE_SPAN, '').replace(/\[\[[^\]]*\]\]/g, ''));
}

function shortcodeClose(name: string): RegExp {
  return new RegExp(`\\{\\{<\\s*/${name}\\s*>\\}\\}`);
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const stop = newline === -1 ? text.length : newline;
    const end = stop > start && text[stop - 1] === '\r' ? stop - 1 : stop;
    const content = text.slice(start, end);
    const quote = QUOTE_PREFIX.exec(content)?.[0].length ?? 0;
    lines.push({ start, end, quote, body: content.slice(quote) });
    if (newline === -1) break;
    start = newline + 1;
  }
  return lines;
}

/** The units of one paragraph or list item: sentences, or the item whole when it is short enough. */
function blockUnits(text: string, lines: Line[], block: Block, itemKind: UnitKind = 'item'): AnswerUnit[] {
  const from = lines[block.first].start;
  const to = lines[block.last].end;
  // Same length as the raw block, with line breaks and quote prefixes as spaces: the segmenter sees one flowing
  // paragraph (ICU would end a sentence at every hard-wrapped line), and offsets stay valid.
  let masked = '';
  for (let n = block.first; n <= block.last; n++) {
    const line = lines[n];
    if (n > block.first) masked += ' '.repeat(line.start - lines[n - 1].end);
    masked += ' '.repeat(line.quote) + text.slice(line.start + line.quote, line.end);
  }
  // Code spans masked too: a period inside one ("`.Page.GetPage`") ends no sentence.
  masked = masked.replace(CODE_SPAN, (span) => span[0] + 'x'.repeat(span.length - 2) + span.at(-1));
  if (block.kind === 'item' && masked.trim().length <= MAX_ITEM_CHARS) {
    const unit = makeUnit(text, from, to, itemKind);
    return unit ? [unit] : [];
  }
  const units: AnswerUnit[] = [];
  // Whether the segment before was left out (a question, no words): a continuation of it is left out too.
  let leftOut = false;
  for (const { index, segment } of sentenceSegmenter.segment(masked)) {
    const unit = makeUnit(text, from + index, from + index + segment.length, 'sentence');
    if (!unit) {
      leftOut = true;
      continue;
    }
    // A "sentence" of a word or two is a split after an abbreviation or a stray fragment, and one that starts in
    // lower case continues the one before (ICU ends a sentence at a quoted question: `ask "why?" or "how?"`).
    const continues = unit.plain.length < 12 || /^[\p{Ll}]/u.test(unit.plain);
    if (continues && leftOut) continue;
    leftOut = false;
    const previous = units.at(-1);
    if (!previous || !continues) {
      units.push(unit);
      continue;
    }
    // Joined, the two can read as a question ("It works. or does it?"): then neither is a statement.
    const joined = makeUnit(text, previous.start, unit.end, 'sentence');
    if (joined) units[units.length - 1] = joined;
    else units.pop();
  }
  return units;
}

function makeUnit(text: string, start: number, end: number, kind: UnitKind, rendered?: string): AnswerUnit | undefined {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  const raw = text.slice(start, end);
  const plain = rendered ?? plainText(raw);
  if (!HAS_WORD.test(plain) || !isStatement(raw, plain)) return undefined;
  return { kind, start, end, raw, plain };
}

/**
 * A question in the notes ("How do I sort tasks?") asks rather than answers, and a line that is all bold
 * ("**Sorting by date**") is a heading in disguise: neither is quoted.
 */
function isStatement(raw: string, plain: string): boolean {
  if (plain.endsWith('?')) return false;
  return !/^(?:\*\*|__)[^*_]+(?:\*\*|__)[:.]?$/.test(raw.replace(QUOTE_PREFIX, '').replace(LIST_MARKER, '').trim());
}

/** Quote prefixes, list markers and checkboxes off, inline Markdown rendered; one space between words. */
export function plainText(raw: string): string {
  return renderInline(
    raw
      .split(/\r?\n/)
      .map((line) => line.replace(QUOTE_PREFIX, '').replace(LIST_MARKER, '').replace(FOOTNOTE_LABEL, ''))
      .join(' '),
  );
}

/** The cells of a table row, rendered; `\|` inside a cell is a literal bar, not a column break. */
function tableCells(row: string): string[] {
  const cells = row.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '').split(/(?<!\\)\|/);
  return cells.map((cell) => renderInline(cell.replace(/\\\|/g, '|')));
}

/** An emoji shortcode (":car:"): a symbol, not a word. */
const SHORTCODE = /:[\w+-]+:/g;
const WORD = /\p{L}{2,}/gu;

/**
 * A row states something when one of its cells says it in words (two or more, outside code and shortcodes): a
 * row of symbols, names and values ("top | :car: | `:car:`") can be found by a search but reads as no answer.
 */
function rowStatesInWords(row: string): boolean {
  return tableCells(row.replace(CODE_SPAN, ' ')).some((cell) => (cell.replace(SHORTCODE, ' ').match(WORD)?.length ?? 0) >= 2);
}

/** A table row as a sentence a reader can follow: "Column: value; Other column: value". */
function tableRowText(row: string, header: readonly string[]): string {
  return tableCells(row)
    .map((cell, i) => (cell && header[i] ? `${header[i]}: ${cell}` : cell))
    .filter((cell) => cell !== '')
    .join('; ');
}

/**
 * Line numbers of offsets in a text, counted from 0 (its first line). Asked in increasing order (a passage's units
 * in reading order), each call counts only the newlines since the last: counting from the start for every unit
 * cost a long chunk's length times its unit count, a tenth of the sentence stage's main-thread time.
 */
export function lineCounter(text: string): (offset: number) => number {
  let at = 0;
  let line = 0;
  return (offset) => {
    if (offset < at) {
      at = 0;
      line = 0;
    }
    const end = Math.min(offset, text.length);
    for (; at < end; at++) if (text.charCodeAt(at) === 10) line++;
    return line;
  };
}
