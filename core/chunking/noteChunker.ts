import { lineOf, lineStarts } from '../parse/lineNumbers.js';
import { firstStartingAt } from '../parse/sortedSpans.js';
import { createHash } from 'node:crypto';
import type { ChunkingConfig } from '../config/schema.js';
import { noteMetadata, parseFrontmatter, type NoteMetadata } from '../parse/frontmatter.js';
import { applyEdits, displayEdits } from '../parse/displayText.js';
import { collectBlockTexts, lookupIn } from '../parse/logseqBlocks.js';
import type { MarkdownOutline } from '../parse/markdownTree.js';
import { parseOutline, type NoteOutline } from '../parse/outlineBlocks.js';
import { NoteRefs } from './noteRefs.js';
import { splitRange, type Span } from './rangeSplitter.js';
import type { Outliner } from './safeOutliner.js';
import { mergeSmallSections, sectionsAtHeadings, wholeBody, type Section, type SectionPart } from './sections.js';
import type { TokenCounter } from './tokenCounter.js';
import type { Chunk, ChunkedNote, Chunker, ChunkPart, NoteInput } from './types.js';

/** Bumped whenever the same input and config could produce different chunks; recorded in the manifest. */
export const CHUNKER_VERSION = 7;

/**
 * Cuts notes into chunks: sections (chosen by the subclass) → force-split those beyond the size limit or
 * the token window into `_sub_N` pieces, with overlap only between the pieces of one section.
 */
abstract class SectionChunker implements Chunker {
  constructor(
    private readonly outliner: Outliner,
    protected readonly config: ChunkingConfig,
    private readonly tokens: TokenCounter,
  ) {}

  protected abstract sections(note: ParsedNote): Section[];
  /** The size limit of a chunk's text; beyond it a section is split. */
  protected abstract maxChars(): number;

  chunk(note: NoteInput): ChunkedNote {
    const { text } = note;
    const frontmatter = parseFrontmatter(text);
    const metadata = noteMetadata(note.path, frontmatter, text.slice(frontmatter.end), note.journalFormat);
    const { outline, warning } = this.outliner.outline(text, frontmatter.end);
    // tree-sitter's code ranges are not passed on (its HTML blocks are): Logseq indents blocks under a `## Heading` line with a tab, which
    // Markdown reads as indented code. Code ranges holding bullet blocks are dropped for the same reason.
    const html = outline.blocks.filter((b) => b.type === 'html_block').map((b) => [b.start, b.end] as [number, number]);
    const blocks = parseOutline(text, frontmatter.end, outline.headings.map((h) => h.start), html);
    const markdownCode = outline.codeRanges.filter(([start, end]) => !startsWithin(blocks.blocks, start, end));
    const ownBlockTexts = collectBlockTexts(text, blocks);
    const codeRanges = [...markdownCode, ...blocks.codeRanges].sort((a, b) => a[0] - b[0]);
    const edits = displayEdits(text, blocks, lookupIn(ownBlockTexts, note.blockTexts), codeRanges);
    const parsed: ParsedNote = {
      text,
      bodyStart: frontmatter.end,
      outline,
      blocks,
      lines: lineStarts(text),
      refs: new NoteRefs(text, frontmatter.end, codeRanges),
      // Not trimmed: the shown text keeps the chunk's lines (a chunk's text has no surrounding white space already).
      display: (start, end) => applyEdits(text, start, end, edits),
    };
    const chunks: Chunk[] = [];
    this.sections(parsed).forEach((section, ordinal) => {
      const pieces = this.piecesOf(parsed, section);
      pieces.forEach((piece, n) => {
        const sub = pieces.length > 1 ? n : null;
        chunks.push(this.assemble(note, metadata, parsed, piece, ordinal, sub, chunks.length));
      });
    });
    return {
      chunks,
      metadata,
      frontmatterError: frontmatter.error,
      ...(Object.keys(ownBlockTexts).length ? { blockTexts: ownBlockTexts } : {}),
      ...(warning ? { warning } : {}),
    };
  }

  /**
   * The header path put before the text for indexing, taking at most half the token window: a very deep
   * or very long path loses its root headings first, then the words beyond the budget.
   */
  private prefixFor(section: Pick<Section, 'headerPath'>): string {
    if (!this.config.include_parent_headers || section.headerPath.length === 0) return '';
    const budget = Math.floor(this.tokens.window / 2);
    const path = section.headerPath;
    for (let from = 0; from < path.length; from++) {
      const candidate = `${path.slice(from).join(' > ')}\n\n`;
      if (this.tokens.count(candidate) <= budget) return candidate;
    }
    const words = path.at(-1)!.split(/\s+/);
    while (words.length && this.tokens.count(words.join(' ')) > budget) words.pop();
    return words.length ? `${words.join(' ')}\n\n` : '';
  }

  /**
   * The section whole when it fits; else its pieces, each fitting the window with its own prefix and overlap.
   * Each piece is cited by the part of the section it holds most of (see `partsOf`), and prefixed with that header path.
   */
  private piecesOf(note: ParsedNote, section: Section): Piece[] {
    const { text, outline, lines, display } = note;
    const window = this.tokens.window;
    const maxChars = this.maxChars();
    const pieceOf = (span: Span, overlap: string): Piece => {
      const cited = partsOf(section, span, lines);
      return { span, overlap, ...cited, prefix: this.prefixFor(cited.cited), tokens: 0 };
    };
    const whole = pieceOf(section, '');
    if (section.end - section.start <= maxChars) {
      whole.tokens = this.tokens.count(whole.prefix + display(section.start, section.end));
      if (whole.tokens <= window) return [whole];
    }
    // Room left for text once the longest prefix a piece may get and the largest likely overlap (≤ 1 token per character) are in.
    const prefixTokens = Math.max(...(section.parts ?? [section]).map((part) => this.tokens.count(this.prefixFor(part))));
    let maxTokens = Math.max(1, window - prefixTokens - Math.min(this.config.overlap_chars, Math.floor(window / 4)));
    for (;;) {
      const structure = { headings: outline.headings, blocks: outline.blocks, items: note.blocks.blocks, itemCode: note.blocks.codeRanges };
      const spans = splitRange(text, section.start, section.end, structure, { maxChars, maxTokens, countTokens: (start, end) => this.tokens.count(display(start, end)) });
      const pieces = spans.map((span, n) => {
        const body = display(span.start, span.end);
        const piece = pieceOf(span, n ? overlapTail(display(spans[n - 1].start, spans[n - 1].end), this.config.overlap_chars) : '');
        // The overlap is context, not content: it is the first thing dropped when the window is tight.
        if (piece.overlap && this.tokens.count(contentOf(piece.prefix, piece.overlap, body)) > window) piece.overlap = '';
        piece.tokens = this.tokens.count(contentOf(piece.prefix, piece.overlap, body));
        return piece;
      });
      // Token counts are not always additive across piece boundaries (word pieces): tighten and retry.
      const worst = Math.max(...pieces.map((p) => p.tokens));
      if (worst <= window || maxTokens === 1) return pieces;
      maxTokens = Math.max(1, maxTokens - (worst - window));
    }
  }

  private assemble(note: NoteInput, metadata: NoteMetadata, parsed: ParsedNote, piece: Piece, ordinal: number, sub: number | null, index: number): Chunk {
    const { span, overlap, cited, parts } = piece;
    const { lines } = parsed;
    const text = note.text.slice(span.start, span.end);
    const displayText = parsed.display(span.start, span.end);
    const content = contentOf(piece.prefix, overlap, displayText);
    const hash = createHash('sha256').update(content).digest('hex').slice(0, 16);
    const refs = parsed.refs.in(span);
    const blocks = blocksIn(parsed.blocks, span);
    return {
      id: `${note.path}#${ordinal}${sub === null ? '' : `_sub_${sub}`}@${hash.slice(0, 8)}`,
      docId: note.path,
      index,
      headerPath: cited.headerPath,
      level: cited.level,
      anchor: cited.anchor,
      ...(parts ? { parts } : {}),
      sub,
      text,
      displayText,
      overlap,
      content,
      start: span.start,
      end: span.end,
      startLine: lineOf(lines, span.start),
      endLine: lineOf(lines, span.end - 1),
      tokenCount: piece.tokens,
      hash,
      title: metadata.title,
      aliases: metadata.aliases,
      tags: unique([...metadata.tags, ...refs.tags]),
      links: refs.links,
      frontmatter: metadata.frontmatter,
      ...(blocks.properties ? { properties: blocks.properties } : {}),
      ...(blocks.ids.length ? { blockIds: blocks.ids } : {}),
      ...(refs.blockRefs.length ? { blockRefs: refs.blockRefs } : {}),
      ...(metadata.date ? { date: metadata.date } : {}),
      mtime: note.mtimeMs,
    };
  }
}

/** Sections at headings, small neighbours merged; split beyond `max_chunk_chars`. */
export class HeaderBasedChunker extends SectionChunker {
  protected maxChars(): number {
    return this.config.max_chunk_chars;
  }

  protected sections(note: ParsedNote): Section[] {
    const sections = sectionsAtHeadings(note.text, note.bodyStart, note.outline.headings, note.blocks.blocks);
    return mergeSmallSections(sections, this.config.min_chunk_chars, this.config.max_chunk_chars, (s) => note.display(s.start, s.end).trim().length);
  }
}

/** Whole notes, split only where they exceed the embedding window (strategy "none"). */
export class WholeNoteChunker extends SectionChunker {
  protected maxChars(): number {
    return Number.POSITIVE_INFINITY;
  }

  protected sections(note: ParsedNote): Section[] {
    return wholeBody(note.text, note.bodyStart);
  }
}

/** A note as the chunker sees it: its outlines and the text it is shown and indexed as. */
interface ParsedNote {
  text: string;
  bodyStart: number;
  outline: MarkdownOutline;
  blocks: NoteOutline;
  lines: number[];
  /** Links, tags and block references, outside the code of both outlines. */
  refs: NoteRefs;
  /** `text[start, end)` as shown and indexed: properties out, references resolved (see `displayEdits`), line for line. */
  display(start: number, end: number): string;
}

/** Whether any of the blocks (sorted by start) starts in `[start, end)`. */
function startsWithin(blocks: readonly Span[], start: number, end: number): boolean {
  const first = firstStartingAt(blocks, start);
  return first < blocks.length && blocks[first].start < end;
}

/** The properties (first value of each key) and `id::`s of the outline blocks starting in a span. */
function blocksIn(outline: NoteOutline, span: Span): { properties?: Record<string, string>; ids: string[] } {
  const properties: Record<string, string> = {};
  const ids: string[] = [];
  let any = false;
  let lo = 0;
  let hi = outline.blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (outline.blocks[mid].start < span.start) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < outline.blocks.length && outline.blocks[i].start < span.end; i++) {
    for (const [key, value] of Object.entries(outline.blocks[i].properties)) {
      if (key === 'id') ids.push(value.toLowerCase());
      else if (!Object.hasOwn(properties, key)) {
        Object.defineProperty(properties, key, { value, enumerable: true, writable: true, configurable: true });
        any = true;
      }
    }
  }
  return { ...(any ? { properties } : {}), ids };
}

/** A span of a section to become a chunk, with how it is cited and what is put before it for indexing. */
interface Piece {
  span: Span;
  overlap: string;
  cited: SectionPart;
  parts?: ChunkPart[];
  prefix: string;
  /** Tokens of the chunk's content (prefix, overlap and shown text), counted when the piece was fitted. */
  tokens: number;
}

/**
 * How a piece of a section is cited. A merged section's piece is cited by the part it holds most of (the first
 * such), and lists its parts when it holds more than one; a piece starting inside a part starts that part.
 */
function partsOf(section: Section, piece: Span, lines: number[]): { cited: SectionPart; parts?: ChunkPart[] } {
  if (!section.parts) return { cited: section };
  const held = section.parts
    .map((part) => ({ part, from: Math.max(part.start, piece.start), to: Math.min(part.end, piece.end) }))
    .filter(({ from, to }) => from < to);
  const cited = held.reduce((best, p) => (p.to - p.from > best.to - best.from ? p : best)).part;
  if (held.length === 1) return { cited };
  return { cited, parts: held.map(({ part, from }) => ({ startLine: lineOf(lines, from), headerPath: part.headerPath, anchor: part.anchor })) };
}

function contentOf(prefix: string, overlap: string, text: string): string {
  return prefix + (overlap ? `${overlap}\n` : '') + text;
}

/** The last `max` characters of `text`, starting at a word boundary, trimmed. */
export function overlapTail(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text.trim();
  let start = text.length - max;
  const boundary = text.slice(start).search(/\s/);
  // Text without spaces in its tail (CJK, a long token): cut between code points instead.
  if (boundary >= 0) start += boundary;
  else if (text.charCodeAt(start) >= 0xdc00 && text.charCodeAt(start) <= 0xdfff) start++;
  return text.slice(start).trim();
}

function unique(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = v.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}


