import type { Block, Heading, MarkdownOutline } from '../parse/markdownTree.js';
import { trim } from './rangeSplitter.js';

/**
 * Container nesting (list items and block quotes) beyond which tree-sitter is not asked to parse a note.
 * tree-sitter-markdown's scanner saves its open blocks (4 bytes each) in tree-sitter's 1 KB serialization buffer:
 * past ~254 open blocks it writes beyond it and corrupts the WASM memory (measured: 250 levels parse, 260 do not).
 * No real note nests anywhere near this deep.
 */
export const MAX_NESTING = 128;

/**
 * An upper estimate, in one linear pass, of how many containers (list items, quotes) tree-sitter would have open
 * at once in `text` from `from` on: per line, the quote markers plus the list items still open (those whose content
 * column the line reaches) plus the list markers the line opens.
 */
export function nestingDepth(text: string, from = 0): number {
  const open: number[] = [];
  let deepest = 0;
  for (let lineStart = from; lineStart < text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    let at = lineStart;
    let column = 0;
    let quotes = 0;
    let popped = false;
    while (at < lineEnd) {
      const c = text.charCodeAt(at);
      if (c === 32 || c === 9) {
        column = c === 9 ? column + 4 - (column % 4) : column + 1;
        at++;
        continue;
      }
      // The first non-blank character closes the list items whose content starts further right.
      if (!popped) {
        while (open.length && open.at(-1)! > column) open.pop();
        popped = true;
      }
      if (c === 62 /* > */) {
        quotes++;
        column++;
        at++;
        continue;
      }
      const marker = listMarkerLength(text, at, lineEnd);
      if (!marker) break;
      open.push(column + marker + 1);
      column += marker;
      at += marker;
    }
    // A blank line closes nothing (lists may be loose): `popped` stays false.
    deepest = Math.max(deepest, quotes + open.length);
    lineStart = lineEnd + 1;
  }
  return deepest;
}

/** Length of a list marker (`-`, `*`, `+`, `1.`, `1)`) at `at` followed by a blank or the line end, else 0. */
function listMarkerLength(text: string, at: number, lineEnd: number): number {
  const c = text.charCodeAt(at);
  let length = 0;
  if (c === 45 || c === 42 || c === 43) length = 1;
  else {
    while (length < 9 && at + length < lineEnd && isDigit(text.charCodeAt(at + length))) length++;
    const close = text.charCodeAt(at + length);
    if (length === 0 || (close !== 46 && close !== 41)) return 0;
    length++;
  }
  const next = at + length;
  return next >= lineEnd || text.charCodeAt(next) === 32 || text.charCodeAt(next) === 9 ? length : 0;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * The outline of a note that tree-sitter cannot be trusted with, found by a line scan: ATX headings (`#` at the
 * start of a line, outside fenced code), fenced code blocks, and paragraphs between blank lines. List and quote
 * structure is not recognised; such a note is chunked as plain text under its headings.
 */
export function plainOutline(text: string, bodyStart = 0): MarkdownOutline {
  const outline: MarkdownOutline = { headings: [], blocks: [], codeRanges: [] };
  let paragraph: Block | undefined;
  let fence: { marker: string; start: number } | undefined;
  const endParagraph = () => {
    if (paragraph) outline.blocks.push(paragraph);
    paragraph = undefined;
  };
  for (let lineStart = bodyStart; lineStart < text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const next = newline === -1 ? text.length : newline + 1;
    const line = text.slice(lineStart, Math.min(lineEnd, lineStart + 256));
    if (fence) {
      if (line.trimStart().startsWith(fence.marker) && /^ {0,3}(`{3,}|~{3,})\s*$/.test(text.slice(lineStart, lineEnd))) {
        outline.blocks.push({ type: 'fenced_code_block', start: fence.start, end: next });
        outline.codeRanges.push([fence.start, next]);
        fence = undefined;
      }
    } else {
      const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      const heading = /^ {0,3}(#{1,6})(?:[ \t]|$)/.exec(line);
      if (opening) {
        endParagraph();
        fence = { marker: opening[1], start: lineStart };
      } else if (heading) {
        endParagraph();
        outline.headings.push(headingAt(text, lineStart, lineEnd, heading[1].length));
      } else if (!trim(text, lineStart, lineEnd)) {
        endParagraph();
      } else if (paragraph) {
        paragraph.end = lineEnd;
      } else {
        paragraph = { type: 'paragraph', start: lineStart, end: lineEnd };
      }
    }
    lineStart = next;
  }
  endParagraph();
  if (fence) {
    // An unclosed fence runs to the end of the note, as in CommonMark.
    outline.blocks.push({ type: 'fenced_code_block', start: fence.start, end: text.length });
    outline.codeRanges.push([fence.start, text.length]);
  }
  return outline;
}

function headingAt(text: string, start: number, end: number, level: number): Heading {
  const raw = text.slice(start, end).replace(/^ {0,3}#{1,6}/, '').replace(/(^|[ \t]+)#+[ \t]*$/, '');
  return { level, text: raw.replace(/\s+/g, ' ').trim(), start, end };
}
