/**
 * The outline of a note written as nested bullet blocks (Logseq pages, Obsidian outline notes): each block's
 * extent, its heading (`- ## Usage` or a `heading:: true` block), its `key:: value` properties, and the Logseq
 * `#+BEGIN_X … #+END_X` regions. A line scan: tree-sitter folds a heading inside a list item into the item, and
 * `key:: value` lines and `#+BEGIN` blocks are not Markdown at all.
 */

export interface OutlineHeading {
  /** `#` count, or for a `heading:: true` block the level Logseq shows it at (2 at the top, one deeper per level). */
  level: number;
  /** The first line without the bullet, the `#`s and surrounding white space. */
  text: string;
}

export interface OutlineBlock {
  /** Start of the bullet's line (its indentation included). */
  start: number;
  /** Where the block's own content ends: its first child's line, else `end`. */
  headEnd: number;
  /** Where the block and its children end: the start of the first line outside them (or the text's end). */
  end: number;
  /** Column of the bullet marker, tabs counted to the next multiple of 4. */
  column: number;
  depth: number;
  /** Index of the parent block in `NoteOutline.blocks`, -1 at the top. */
  parent: number;
  heading?: OutlineHeading;
  /** Block properties, keys lower-cased as Logseq does; the first occurrence of a key wins. */
  properties: Record<string, string>;
}

/**
 * A `key:: value` line: metadata, never text. `block` is -1 outside any block: the page properties before the first
 * block, or those under a heading line written without its bullet (`## Beta 0.10\nid:: …`).
 */
export interface PropertyLine {
  /** From the line's start to just past its line break. */
  start: number;
  end: number;
  key: string;
  value: string;
  block: number;
}

/** A Logseq `#+BEGIN_<KIND> … #+END_<KIND>` region. */
export interface BeginBlock {
  kind: string;
  /** Words after `#+BEGIN_SRC` etc. (the language of a source block). */
  args: string;
  /** The `#+BEGIN` marker (from `#` to the line's end, line break excluded). */
  open: [number, number];
  /** The `#+END` marker, absent when the region is never closed (it then runs to the end of its block). */
  close?: [number, number];
  start: number;
  end: number;
  /** QUERY, SRC, EXAMPLE, EXPORT, COMMENT: code, not prose. The others (NOTE, TIP, QUOTE...) are prose in a box. */
  code: boolean;
}

export interface NoteOutline {
  blocks: OutlineBlock[];
  propertyLines: PropertyLine[];
  beginBlocks: BeginBlock[];
  /** Code anywhere (fenced code and code `#+BEGIN` regions), sorted: no bullets, properties, macros or references inside. */
  codeRanges: Array<[number, number]>;
}

export const PROPERTY_LINE = /^[ \t]*(?:[-*+][ \t]+)?([A-Za-z0-9_][A-Za-z0-9_\-.]*)::(?:[ \t]+(.*?)|[ \t]*)[ \t]*$/;
const CODE_KINDS = new Set(['QUERY', 'SRC', 'EXAMPLE', 'EXPORT', 'COMMENT']);
const BULLET = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^(`{3,}|~{3,})/;
const BEGIN = /^#\+BEGIN_([A-Za-z]+)\b[ \t]*(.*)$/i;

/**
 * Outlines `text` from `bodyStart` (after any front matter). `docHeadings` are the starts of the Markdown headings
 * outside lists (they close every open block); `skip` are code ranges found by the Markdown parser (indented code),
 * where no bullet is recognised.
 */
export function parseOutline(text: string, bodyStart = 0, docHeadings: ReadonlyArray<number> = [], skip: ReadonlyArray<readonly [number, number]> = []): NoteOutline {
  const outline: NoteOutline = { blocks: [], propertyLines: [], beginBlocks: [], codeRanges: [] };
  const { blocks } = outline;
  const headingStarts = new Set(docHeadings);
  const stack: number[] = [];
  let fence: { char: string; length: number; start: number; blockColumn: number } | undefined;
  let begin: (BeginBlock & { blockColumn: number; endMarker: RegExp }) | undefined;
  const endBegin = (region: BeginBlock & { blockColumn?: number; endMarker?: RegExp }, at: number) => {
    delete region.blockColumn;
    delete region.endMarker;
    region.end = at;
    outline.beginBlocks.push(region);
    if (region.code) outline.codeRanges.push([region.start, at]);
  };
  let preamble = true;
  let afterBlank = false;
  /** Right after a Markdown heading line (a Logseq block written without its bullet): its properties may follow. */
  let headingLine = false;
  let skipAt = 0;
  const close = (index: number, at: number) => {
    const block = blocks[index];
    block.end = at;
    if (block.headEnd < 0) block.headEnd = at;
  };
  const closeAbove = (column: number, at: number) => {
    while (stack.length && blocks[stack.at(-1)!].column >= column) close(stack.pop()!, at);
  };
  for (let lineStart = bodyStart; lineStart < text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const next = newline === -1 ? text.length : newline + 1;
    const lineEnd = newline === -1 ? text.length : text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    const line = text.slice(lineStart, lineEnd);
    const { column, offset } = indentation(line);
    const rest = line.slice(offset);
    const start = lineStart;
    lineStart = next;
    // A code region opened inside a block ends, closed or not, where a bullet leaves that block (as a list item ends a fence).
    if ((fence || begin) && rest !== '' && column <= (fence ?? begin)!.blockColumn && BULLET.test(rest)) {
      if (fence) outline.codeRanges.push([fence.start, start]);
      else endBegin(begin!, start);
      fence = undefined;
      begin = undefined;
    }
    if (fence) {
      if (rest.startsWith(fence.char.repeat(fence.length)) && /^[`~]+[ \t]*$/.test(rest) && rest[0] === fence.char) {
        outline.codeRanges.push([fence.start, next]);
        fence = undefined;
      }
      continue;
    }
    if (begin) {
      if (begin.endMarker.test(rest)) {
        begin.close = [start + offset, lineEnd];
        endBegin(begin, next);
        begin = undefined;
      }
      continue;
    }
    if (rest === '') {
      afterBlank = true;
      headingLine = false;
      continue;
    }
    while (skipAt < skip.length && skip[skipAt][1] <= start) skipAt++;
    const inSkipped = skipAt < skip.length && skip[skipAt][0] <= start;
    if (headingStarts.has(start)) {
      closeAbove(-1, start);
      preamble = false;
      afterBlank = false;
      headingLine = true;
      continue;
    }
    const bullet = inSkipped ? null : BULLET.exec(rest);
    let content = rest;
    let contentStart = start + offset;
    if (bullet) {
      closeAbove(column, start);
      preamble = false;
      const parent = stack.at(-1) ?? -1;
      if (parent >= 0 && blocks[parent].headEnd < 0) blocks[parent].headEnd = start;
      blocks.push({ start, headEnd: -1, end: -1, column, depth: stack.length, parent, properties: {} });
      stack.push(blocks.length - 1);
      content = rest.slice(bullet[0].length);
      contentStart += bullet[0].length;
      const heading = HEADING.exec(content);
      if (heading) blocks.at(-1)!.heading = { level: heading[1].length, text: clean(heading[2] ?? '') };
    } else if (stack.length && afterBlank) {
      // After a blank line, a line not indented past a block's bullet is outside that block.
      closeAbove(column, start);
    }
    afterBlank = false;
    const current = stack.at(-1);
    const property = inSkipped ? null : PROPERTY_LINE.exec(line);
    // Properties: the page's before its first block, a block's in its own lines (before its first child).
    if (property && (current === undefined ? preamble || headingLine : blocks[current].headEnd < 0)) {
      const key = property[1].toLowerCase();
      const value = (property[2] ?? '').trim();
      outline.propertyLines.push({ start, end: next, key, value, block: current ?? -1 });
      if (current !== undefined) {
        const block = blocks[current];
        if (!Object.hasOwn(block.properties, key)) Object.defineProperty(block.properties, key, { value, enumerable: true, writable: true, configurable: true });
        if (key === 'heading' && !block.heading && /^(true|[1-6])$/i.test(value)) {
          const first = firstLineContent(text, block.start);
          block.heading = { level: /^\d$/.test(value) ? Number(value) : Math.min(6, block.depth + 2), text: clean(first.replace(/^#{1,6}(?=[ \t]|$)/, '')) };
        }
      }
      continue;
    }
    if (current === undefined) preamble = false;
    headingLine = false;
    if (inSkipped) continue;
    const fenceOpen = FENCE.exec(content);
    if (fenceOpen && !(fenceOpen[1][0] === '`' && content.slice(fenceOpen[1].length).includes('`'))) {
      fence = { char: fenceOpen[1][0], length: fenceOpen[1].length, start, blockColumn: current === undefined ? -1 : blocks[current].column };
      continue;
    }
    const beginOpen = BEGIN.exec(content);
    if (beginOpen) {
      const kind = beginOpen[1].toUpperCase();
      begin = { kind, args: beginOpen[2].trim(), open: [contentStart, lineEnd], start, end: -1, code: CODE_KINDS.has(kind), blockColumn: current === undefined ? -1 : blocks[current].column, endMarker: new RegExp(`^#\\+END_${kind}\\b`, 'i') };
    }
  }
  if (fence) outline.codeRanges.push([fence.start, text.length]);
  if (begin) endBegin(begin, text.length);
  closeAbove(-1, text.length);
  outline.codeRanges.sort((a, b) => a[0] - b[0]);
  return outline;
}

/** Column of the first non-blank character (tabs to the next multiple of 4) and its index in the line. */
function indentation(line: string): { column: number; offset: number } {
  let column = 0;
  let offset = 0;
  for (; offset < line.length; offset++) {
    const c = line.charCodeAt(offset);
    if (c === 32) column++;
    else if (c === 9) column += 4 - (column % 4);
    else break;
  }
  return { column, offset };
}

function firstLineContent(text: string, lineStart: number): string {
  const newline = text.indexOf('\n', lineStart);
  const line = text.slice(lineStart, newline === -1 ? text.length : newline).trim();
  return line.replace(BULLET, '');
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
