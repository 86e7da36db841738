/** What indexing reports as it goes: the CLI draws a progress bar from these, the app a status line. */
export type IndexPhase = 'scan' | 'chunk' | 'embed' | 'index' | 'persist';

export interface IndexSummary {
  notes: number;
  chunks: number;
  /** Notes whose text changed (or new notes), re-chunked. */
  changedNotes: number;
  removedNotes: number;
  /** Chunk texts embedded now vs. found in the embedding cache. */
  embedded: number;
  cached: number;
  failed: number;
  seconds: number;
  phaseSeconds: Record<IndexPhase, number>;
}

export type IndexEvent =
  | { type: 'rebuild-started'; reason: string }
  | { type: 'indexing-started'; files: number }
  | { type: 'progress'; phase: IndexPhase; done: number; total: number; currentFile?: string; etaSeconds?: number }
  | { type: 'file-failed'; path: string; reason: string }
  | { type: 'indexing-finished'; summary: IndexSummary };

export type IndexListener = (event: IndexEvent) => void;
