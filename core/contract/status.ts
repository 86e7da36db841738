/**
 * What the core reports about an open vault and its work: the status (counts, model, table, failures), indexing
 * events, the progress of adapting the embedding table, and folder completions for the vault path field. Types only.
 */

/** What indexing reports as it goes: the CLI draws a progress bar from these, the app a status line. */
export type IndexPhase = 'scan' | 'chunk' | 'embed' | 'index' | 'persist';

export interface IndexSummary {
  notes: number;
  chunks: number;
  /** Notes whose text changed (or new notes), re-chunked. */
  changedNotes: number;
  removedNotes: number;
  /**
   * Chunks that needed a vector: embedded now vs. found in the embedding cache. A chunk that came out as it was keeps
   * its vector and counts in neither.
   */
  embedded: number;
  cached: number;
  /** Chunks added to the keyword and vector indices; the rest kept their entries (unchanged, or moved to a new id). */
  indexed: number;
  failed: number;
  seconds: number;
  phaseSeconds: Record<IndexPhase, number>;
  /**
   * Set when the index could not be saved (a full disk): why. The index in memory is complete and answers searches;
   * what was saved before is kept, and the next save writes the changes.
   */
  unsaved?: string;
}

export type IndexEvent =
  | { type: 'rebuild-started'; reason: string }
  | { type: 'indexing-started'; files: number }
  | { type: 'progress'; phase: IndexPhase; done: number; total: number; currentFile?: string; etaSeconds?: number }
  /** `indexed`: the note is indexed, and the reason is a warning about how it was read or chunked. */
  | { type: 'file-failed'; path: string; reason: string; indexed?: true }
  | { type: 'indexing-finished'; summary: IndexSummary };

export type IndexListener = (event: IndexEvent) => void;

/** Learning the vault's vocabulary (adapting the embedding table): which phase, how far. */
export interface AdaptProgress {
  phase: 'mining' | 'training' | 'writing';
  done: number;
  total: number;
}

/** What the status shows of the index's manifest (core/indexing/manifest.ts holds the rest). */
export interface IndexManifestSummary {
  /** The folder (g<generation>) holding the files this manifest describes. */
  generation: number;
  notes: number;
  chunks: number;
  builtAt: string;
  updatedAt: string;
}

/** What an open vault reports about itself: counts, model, table, failures (the status panel and `cairn status`). */
export interface VaultStatus {
  vault: string;
  dataDir: string;
  notes: number;
  chunks: number;
  vectorBackend: 'faiss' | 'flat';
  vectorKind: 'flat' | 'hnsw';
  /** Why faiss is not the backend, when it is not. */
  faissUnavailable?: string;
  model: string;
  dims: number;
  dtype: string;
  tokenWindow: number;
  /** The embedding table in use: the model's own, or one adapted to this vault (with how it was made). */
  table: { kind: 'shipped' } | { kind: 'adapted'; hash: string; adaptedAt: string; heldOutMrr?: { before: number; after: number }; pairs?: { train: number; heldOut: number }; seconds?: number };
  /** Why the table is due to be adapted (again), when it is. */
  adaptationDue?: string;
  /** Set when the next `index()` will rebuild everything, with the reason. */
  pendingRebuild?: string;
  manifest?: IndexManifestSummary;
  /**
   * Files not indexed, with the reason; and, with `indexed`, notes indexed with a warning about how they were read
   * or chunked (read as Windows-1252, chunked as plain text).
   */
  failed: Array<{ path: string; reason: string; indexed?: true }>;
  frontmatterErrors: Array<{ path: string; reason: string }>;
  /** Why the index could not be saved, until a save succeeds: the changes since are in memory only. */
  unsaved?: string;
  /** What in the vault's own settings could not be used (a Logseq journal format Cairn does not read). */
  warnings?: string[];
}

/** What a folder looks like it holds, so the list can mark likely vaults. */
export type FolderKind = 'obsidian' | 'logseq' | 'markdown';

export interface FolderCompletion {
  /** The folder's absolute path (no trailing separator). */
  path: string;
  /** Its own name. */
  name: string;
  /** Set when it looks like a vault: an .obsidian or logseq folder, or .md files at its top level. */
  kind?: FolderKind;
}
