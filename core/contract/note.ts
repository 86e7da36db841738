/**
 * A note as the app shows it: its text and everything the core already knows of it (properties, outline, resolved
 * links, referenced blocks), so that the renderer renders and parses nothing beyond Markdown. Types only.
 */

export interface NoteLinkView {
  path: string;
  title: string;
}

/** A Logseq block a note references with `((uuid))` or `{{embed ((uuid))}}`. */
export interface BlockRefView {
  /** The note holding the block (this note's own path for a block of the same note). */
  path: string;
  /** The block's own text (bullet, heading `#`s and property lines left out, references inside it resolved). */
  text: string;
  /** 1-based line of the block's bullet in its note. */
  line: number;
}

/**
 * The note's properties for the table above its body: front matter (Obsidian, Dendron) then a page's `key:: value`
 * lines (Logseq), values as display strings; front matter that cannot be read comes back raw.
 */
export type NoteProperties = { ok: true; entries: Array<[string, string]> } | { ok: false; raw: string };

/** What the note view does with a block of an outline, by the line of its bullet. */
export interface OutlineBlockView {
  /** The block's `id::` (lower-cased): where `((uuid))` references point. */
  uuid?: string;
  /** Set for a `heading:: true` block whose first line is not already a Markdown heading. */
  headingLevel?: number;
}

/** A note written as an outline (Logseq pages, Obsidian outline notes), as the core's outline scan sees it. */
export interface NoteOutlineView {
  /** 1-based file lines holding a `key:: value` property (metadata, never shown as text). */
  propertyLines: number[];
  /** 1-based line of a block's bullet → what the view does with it (only blocks with an id or a heading level). */
  blocks: Record<number, OutlineBlockView>;
  /** The page's properties (before the first block, or a first block made only of properties), as written. */
  pageProperties: Array<[string, string]>;
  /** The body is an outline: every line is in a bullet block, a property or a heading, or blocks sit indented under a heading line (Logseq). Indented code then cannot occur. */
  isOutline: boolean;
  /**
   * Top-level blocks indented as code would be (Logseq nests blocks under a `## Heading` line with a tab): their lines (1-based,
   * inclusive) and the columns to take off, so that Markdown reads them as a list rather than as indented code.
   */
  dedent: Array<{ from: number; to: number; columns: number }>;
}

export interface NoteView {
  path: string;
  title: string;
  /** The note's Markdown as on disk (BOM removed); the renderer renders and sanitises it. */
  text: string;
  /** Body start offset: where the front matter ends. */
  bodyStart: number;
  modified: string;
  tags: string[];
  /** Front matter and page properties together, or null when the note has none. */
  properties: NoteProperties | null;
  outline: NoteOutlineView;
  /**
   * Every link target the note writes (`[[target]]`, `![[target]]`, a Markdown link's path, as written, without its
   * `#heading`) → the note it resolves to from this note, as Obsidian resolves it, or null when no note matches.
   */
  links: Record<string, string | null>;
  outgoing: NoteLinkView[];
  backlinks: NoteLinkView[];
  /** Notes whose chunks are nearest to this note's (vector similarity). */
  related: NoteLinkView[];
  /**
   * The blocks this note's block references point to, uuid (lower-cased) → where and what; a uuid missing here names
   * a block no note defines (shown as "missing block", never as the raw uuid).
   */
  blockRefs: Record<string, BlockRefView>;
  /** obsidian://open?vault=…&file=… when the vault is an Obsidian vault. */
  obsidianUrl?: string;
}
