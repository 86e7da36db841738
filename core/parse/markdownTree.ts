import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type TreeCursor } from 'web-tree-sitter';

/** A heading that bounds chunks: ATX or setext, not inside a block quote, callout or list item. */
export interface Heading {
  level: number;
  /** Heading text with the closing `#` sequence removed, inner whitespace collapsed. */
  text: string;
  start: number;
  end: number;
}

/** A top-level block of a note body (paragraph, list, code, table, quote...), in document order. */
export interface Block {
  type: string;
  start: number;
  end: number;
  /** Natural split points of an oversized block: list items, or the inner blocks of a quote. */
  parts?: Array<[number, number]>;
}

export interface MarkdownOutline {
  headings: Heading[];
  blocks: Block[];
  /** Fenced and indented code blocks anywhere in the note: never headings, never links or tags. */
  codeRanges: Array<[number, number]>;
}

const GRAMMAR_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.resolve('@kerebron/wasm'))), '..', 'assets', 'tree-sitter-markdown');
const CODE_BLOCKS = new Set(['fenced_code_block', 'indented_code_block']);
const SKIPPED = new Set(['minus_metadata', 'plus_metadata', 'block_continuation']);

/** The version of the tree-sitter-markdown grammar, recorded in the index manifest. */
export const GRAMMAR_VERSION = `tree-sitter-markdown ${(JSON.parse(readFileSync(path.join(GRAMMAR_DIR, 'release.json'), 'utf8')) as { version: string }).version}`;

let languagePromise: Promise<Language> | undefined;

function loadLanguage(): Promise<Language> {
  languagePromise ??= Parser.init().then(() => Language.load(path.join(GRAMMAR_DIR, 'tree-sitter-markdown.wasm')));
  return languagePromise;
}

/** Builds note outlines with the tree-sitter-markdown block grammar (wasm). One instance per thread. */
export class MarkdownOutliner {
  private constructor(
    private readonly parser: Parser,
    private readonly language: Language,
  ) {}

  static async create(): Promise<MarkdownOutliner> {
    const language = await loadLanguage();
    const parser = new Parser();
    parser.setLanguage(language);
    return new MarkdownOutliner(parser, language);
  }

  /**
   * A new parser over the same grammar, for use after this one threw: a faulted parse leaves the parser's state
   * broken (every later parse fails), while a new parser of the same module parses again. The module's memory
   * may still hold damage, which is why the chunk worker also replaces its whole thread after a fault.
   */
  renew(): MarkdownOutliner {
    try {
      this.parser.delete();
    } catch {
      // Freeing a faulted parser may fault too; its memory is abandoned either way.
    }
    const parser = new Parser();
    parser.setLanguage(this.language);
    return new MarkdownOutliner(parser, this.language);
  }

  /**
   * Outlines `text`, ignoring everything before `bodyStart` (the front matter, already parsed by the caller):
   * that region is blanked before parsing so offsets stay those of the original text.
   */
  outline(text: string, bodyStart = 0): MarkdownOutline {
    const source = bodyStart > 0 ? text.slice(0, bodyStart).replace(/[^\r\n]/g, ' ') + text.slice(bodyStart) : text;
    const tree = this.parser.parse(source);
    if (!tree) throw new Error('tree-sitter returned no tree');
    try {
      const outline: MarkdownOutline = { headings: [], blocks: [], codeRanges: [] };
      const cursor = tree.walk();
      visitContainer(cursor, source, outline);
      cursor.delete();
      return outline;
    } finally {
      tree.delete();
    }
  }
}

/** Visits the children of a document or section node. */
function visitContainer(cursor: TreeCursor, source: string, outline: MarkdownOutline): void {
  if (!cursor.gotoFirstChild()) return;
  do {
    const type = cursor.nodeType;
    if (type === 'section') {
      visitContainer(cursor, source, outline);
    } else if (type === 'atx_heading' || type === 'setext_heading') {
      outline.headings.push(readHeading(cursor, source));
    } else if (!SKIPPED.has(type)) {
      const block: Block = { type, start: cursor.startIndex, end: cursor.endIndex };
      if (CODE_BLOCKS.has(type)) outline.codeRanges.push([block.start, block.end]);
      else if (type === 'list' || type === 'block_quote') block.parts = collectParts(cursor, outline);
      else if (type !== 'paragraph' && type !== 'pipe_table') collectNestedCode(cursor, outline);
      outline.blocks.push(block);
    }
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
}

/**
 * The list items of a list, or the inner blocks of a quote, each extended back to where the previous one
 * ended so that quote markers (`> `) stay inside a part; also records code nested in them.
 */
function collectParts(cursor: TreeCursor, outline: MarkdownOutline): Array<[number, number]> {
  const parts: Array<[number, number]> = [];
  let from = cursor.startIndex;
  if (!cursor.gotoFirstChild()) return parts;
  do {
    const type = cursor.nodeType;
    if (type === 'block_quote_marker' || type === 'block_continuation') continue;
    parts.push([from, cursor.endIndex]);
    from = cursor.endIndex;
    if (CODE_BLOCKS.has(type)) outline.codeRanges.push([cursor.startIndex, cursor.endIndex]);
    else collectNestedCode(cursor, outline);
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
  return parts;
}

/** Records code blocks nested anywhere below the cursor's node (in list items, quotes, sections inside quotes). */
function collectNestedCode(cursor: TreeCursor, outline: MarkdownOutline): void {
  if (!cursor.gotoFirstChild()) return;
  do {
    const type = cursor.nodeType;
    if (CODE_BLOCKS.has(type)) outline.codeRanges.push([cursor.startIndex, cursor.endIndex]);
    else if (type !== 'inline' && type !== 'paragraph') collectNestedCode(cursor, outline);
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
}

function readHeading(cursor: TreeCursor, source: string): Heading {
  const start = cursor.startIndex;
  const end = cursor.endIndex;
  let level = 0;
  let textStart = -1;
  let textEnd = -1;
  cursor.gotoFirstChild();
  do {
    const type = cursor.nodeType;
    const marker = /^atx_h(\d)_marker$/.exec(type);
    if (marker) level = Number(marker[1]);
    else if (type === 'setext_h1_underline') level = 1;
    else if (type === 'setext_h2_underline') level = 2;
    else if (type === 'inline' || type === 'paragraph') {
      textStart = cursor.startIndex;
      textEnd = cursor.endIndex;
    }
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
  let text = textStart >= 0 ? source.slice(textStart, textEnd) : '';
  // An ATX heading's inline text still carries the optional closing sequence ("# Title ##").
  if (level && cursor.nodeType === 'atx_heading') text = text.replace(/(^|[ \t]+)#+[ \t]*$/, '');
  return { level, text: text.replace(/\s+/g, ' ').trim(), start, end };
}
