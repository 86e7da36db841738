import type { FrontmatterError, NoteMetadata } from '../parse/frontmatter.js';
import type { NoteLink } from '../parse/links.js';
import type { ChunkPart } from '../contract/search.js';

/** One heading's part of a chunk that small sections were merged into (a contract type: results carry it). */
export type { ChunkPart } from '../contract/search.js';

/** A citable passage of one note: exactly `source.slice(start, end)`, plus what gets indexed. */
export interface Chunk {
  /** Deterministic: `docId#<section ordinal>[_sub_<n>]@<hash prefix>`. */
  id: string;
  /** The note's vault-relative path, `/`-separated. */
  docId: string;
  /** Position among the note's chunks, from 0. */
  index: number;
  /** Headings above and at the chunk, root first, wikilinks reduced to their display text. */
  headerPath: string[];
  /** Level of the chunk's own heading (0 before the first heading). */
  level: number;
  /** URL slug of the chunk's heading, as GitHub and Obsidian make it ('' before the first heading). */
  anchor: string;
  /**
   * Set when the chunk holds several small sections merged (`min_chunk_chars`): each one's heading and first line,
   * in order. `headerPath` and `anchor` above are those of the longest part; a search cites the part it matched.
   */
  parts?: ChunkPart[];
  /** N of `_sub_N` when the chunk is a piece of a force-split section, else null. */
  sub: number | null;
  text: string;
  /**
   * The text as shown (snippets, answers) and indexed, line for line with `text` (as many lines; line i shows line i):
   * `key:: value` property lines emptied, Logseq code blocks (`#+BEGIN_SRC/QUERY…`) as fenced code, macros
   * (`{{query …}}`) left out, block references (`((uuid))`) resolved inline. Equal to `text` for a note with none of
   * these. See `core/parse/displayText.ts`; read it through `shownText` (stored chunks keep it only when it differs).
   */
  displayText: string;
  /** The tail of the previous sibling sub-chunk's `displayText` prepended to `content` ('' unless sub > 0). */
  overlap: string;
  /** What is indexed and embedded: header path (if configured) + overlap + displayText. */
  content: string;
  /** UTF-16 offsets into the note text after BOM removal. */
  start: number;
  end: number;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Tokens of `content` as the embedding model counts them. */
  tokenCount: number;
  /** SHA-256 prefix of `content`: the embedding cache key. */
  hash: string;
  title: string;
  aliases: string[];
  /** Front matter tags plus the inline #tags of this chunk. */
  tags: string[];
  /** Wikilinks, embeds and local Markdown links inside this chunk. */
  links: NoteLink[];
  frontmatter: Record<string, unknown>;
  /** Properties of the outline blocks starting in this chunk (`type:: x`; first value of a key), keys lower-cased; `id` is in `blockIds`. */
  properties?: Record<string, string>;
  /** The `id::` uuids (lower-cased) of the blocks starting in this chunk: where a `((uuid))` reference points. */
  blockIds?: string[];
  /** The block uuids this chunk references (`((uuid))`, `{{embed ((uuid))}}`), outside code: links to other blocks' chunks. */
  blockRefs?: string[];
  /** A journal page's day, ISO `YYYY-MM-DD` (the note's `metadata.date`). */
  date?: string;
  mtime: number;
}

/** A note as the chunker takes it. */
export interface NoteInput {
  /** Vault-relative, `/`-separated. */
  path: string;
  /** BOM already removed. */
  text: string;
  mtimeMs: number;
  /**
   * Texts of blocks in other notes this note references, uuid (lower-cased) → text (see `collectBlockTexts`), so
   * `((uuid))` reads as the block's text; the note's own blocks are always known. Unknown uuids read "[missing block]".
   */
  blockTexts?: Record<string, string>;
  /** The Logseq graph's journal file-name format (`yyyy_MM_dd` when absent): journal pages take their day from it. */
  journalFormat?: string;
}

export interface ChunkedNote {
  chunks: Chunk[];
  metadata: NoteMetadata;
  /** The note's own blocks that carry an `id::`, uuid → text (see `collectBlockTexts`): what other notes' `((uuid))` read. */
  blockTexts?: Record<string, string>;
  /** Set when the front matter could not be parsed; the note is still chunked as text. */
  frontmatterError?: FrontmatterError;
  /** Set when the note was chunked as plain text (see `SafeOutliner`): why, for the user. */
  warning?: string;
}

/** A chunking strategy, chosen from config by `createChunker`; chunks in the calling thread. */
export interface Chunker {
  chunk(note: NoteInput): ChunkedNote;
}

/** A note's outline cache entry as a `NoteChunker` uses it (see `ReusingOutliner`). */
export interface OutlineUse {
  /** The note's encoded outline from the cache: chunked without parsing. */
  cached?: string;
  /** Called with the outline tree-sitter parsed, encoded, when the note was parsed: what the cache keeps. */
  keep?(encoded: string): void;
}

/** Chunks notes off the calling thread, isolated from faults (see `createNoteChunker`); what the indexer uses. */
export interface NoteChunker {
  chunk(note: NoteInput, outline?: OutlineUse): Promise<ChunkedNote>;
  close(): Promise<void>;
}
