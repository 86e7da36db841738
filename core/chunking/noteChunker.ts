import { createHash } from 'node:crypto';
import type { ChunkingConfig } from '../config/schema.js';
import { noteMetadata, parseFrontmatter, type NoteMetadata } from '../parse/frontmatter.js';
import { extractInlineRefs } from '../parse/links.js';
import type { MarkdownOutline, MarkdownOutliner } from '../parse/markdownTree.js';
import { splitRange, type Span } from './rangeSplitter.js';
import { mergeSmallSections, sectionsAtHeadings, wholeBody, type Section } from './sections.js';
import type { TokenCounter } from './tokenCounter.js';
import type { Chunk, ChunkedNote, Chunker, NoteInput } from './types.js';

/** Bumped whenever the same input and config could produce different chunks; recorded in the manifest. */
export const CHUNKER_VERSION = 1;

/**
 * Cuts notes into chunks: sections (chosen by the subclass) → force-split those beyond the size limit or
 * the token window into `_sub_N` pieces, with overlap only between the pieces of one section.
 */
abstract class SectionChunker implements Chunker {
  constructor(
    private readonly outliner: MarkdownOutliner,
    protected readonly config: ChunkingConfig,
    private readonly tokens: TokenCounter,
  ) {}

  protected abstract sections(text: string, bodyStart: number, outline: MarkdownOutline): Section[];
  /** The size limit of a chunk's text; beyond it a section is split. */
  protected abstract maxChars(): number;

  chunk(note: NoteInput): ChunkedNote {
    const { text } = note;
    const frontmatter = parseFrontmatter(text);
    const metadata = noteMetadata(note.path, frontmatter, text.slice(frontmatter.end));
    const outline = this.outliner.outline(text, frontmatter.end);
    const lines = lineStarts(text);
    const chunks: Chunk[] = [];
    this.sections(text, frontmatter.end, outline).forEach((section, ordinal) => {
      const prefix = this.prefixFor(section);
      const pieces = this.piecesOf(text, section, prefix, outline);
      pieces.forEach(({ span, overlap }, n) => {
        const sub = pieces.length > 1 ? n : null;
        chunks.push(this.assemble(note, metadata, outline, lines, section, prefix, span, ordinal, sub, overlap, chunks.length));
      });
    });
    return { chunks, metadata, frontmatterError: frontmatter.error };
  }

  /**
   * The header path put before the text for indexing, taking at most half the token window: a very deep
   * or very long path loses its root headings first, then the words beyond the budget.
   */
  private prefixFor(section: Section): string {
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

  /** The section whole when it fits; else its pieces, each fitting the window with its prefix and overlap. */
  private piecesOf(text: string, section: Section, prefix: string, outline: MarkdownOutline): Array<{ span: Span; overlap: string }> {
    const window = this.tokens.window;
    const maxChars = this.maxChars();
    if (section.end - section.start <= maxChars && this.tokens.count(prefix + text.slice(section.start, section.end)) <= window) return [{ span: section, overlap: '' }];
    // Room left for text once the prefix and the largest likely overlap (≤ 1 token per character) are in.
    let maxTokens = Math.max(1, window - this.tokens.count(prefix) - Math.min(this.config.overlap_chars, Math.floor(window / 4)));
    for (;;) {
      const spans = splitRange(text, section.start, section.end, outline.headings, outline.blocks, { maxChars, maxTokens, countTokens: (t) => this.tokens.count(t) });
      const pieces = spans.map((span, n) => {
        const body = text.slice(span.start, span.end);
        const tail = n ? overlapTail(text.slice(spans[n - 1].start, spans[n - 1].end), this.config.overlap_chars) : '';
        // The overlap is context, not content: it is the first thing dropped when the window is tight.
        const overlap = tail && this.tokens.count(contentOf(prefix, tail, body)) <= window ? tail : '';
        return { span, overlap, tokens: this.tokens.count(contentOf(prefix, overlap, body)) };
      });
      // Token counts are not always additive across piece boundaries (word pieces): tighten and retry.
      const worst = Math.max(...pieces.map((p) => p.tokens));
      if (worst <= window || maxTokens === 1) return pieces;
      maxTokens = Math.max(1, maxTokens - (worst - window));
    }
  }

  private assemble(
    note: NoteInput,
    metadata: NoteMetadata,
    outline: MarkdownOutline,
    lines: number[],
    section: Section,
    prefix: string,
    piece: Span,
    ordinal: number,
    sub: number | null,
    overlap: string,
    index: number,
  ): Chunk {
    const text = note.text.slice(piece.start, piece.end);
    const content = contentOf(prefix, overlap, text);
    const hash = createHash('sha256').update(content).digest('hex').slice(0, 16);
    const refs = extractInlineRefs(note.text, piece.start, piece.end, outline.codeRanges);
    return {
      id: `${note.path}#${ordinal}${sub === null ? '' : `_sub_${sub}`}@${hash.slice(0, 8)}`,
      docId: note.path,
      index,
      headerPath: section.headerPath,
      level: section.level,
      anchor: section.anchor,
      sub,
      text,
      overlap,
      content,
      start: piece.start,
      end: piece.end,
      startLine: lineOf(lines, piece.start),
      endLine: lineOf(lines, piece.end - 1),
      tokenCount: this.tokens.count(content),
      hash,
      title: metadata.title,
      aliases: metadata.aliases,
      tags: unique([...metadata.tags, ...refs.tags]),
      links: refs.links,
      frontmatter: metadata.frontmatter,
      mtime: note.mtimeMs,
    };
  }
}

/** Sections at headings, small neighbours merged; split beyond `max_chunk_chars`. */
export class HeaderBasedChunker extends SectionChunker {
  protected maxChars(): number {
    return this.config.max_chunk_chars;
  }

  protected sections(text: string, bodyStart: number, outline: MarkdownOutline): Section[] {
    return mergeSmallSections(sectionsAtHeadings(text, bodyStart, outline.headings), this.config.min_chunk_chars, this.config.max_chunk_chars);
  }
}

/** Whole notes, split only where they exceed the embedding window (strategy "none"). */
export class WholeNoteChunker extends SectionChunker {
  protected maxChars(): number {
    return Number.POSITIVE_INFINITY;
  }

  protected sections(text: string, bodyStart: number): Section[] {
    return wholeBody(text, bodyStart);
  }
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

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line number of offset `at`. */
function lineOf(starts: number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
