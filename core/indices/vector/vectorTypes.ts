import type { FileDigest } from '../../embedding/fileDigest.js';

export type VectorBackendName = 'faiss' | 'flat';
export type VectorIndexKind = 'flat' | 'hnsw';

/** score = inner product (cosine for normalised vectors); higher is better. */
export interface VectorHit {
  id: string;
  score: number;
}

export type AcceptId = (id: string) => boolean;

/**
 * A native index file that can be written alongside the vectors (labels = store rows unless `rows` says otherwise):
 * by faiss (`write`, synchronous), or from its bytes (`pieces`, written by the save in turns like the vectors file;
 * see faissFlatFile.ts).
 */
export type NativeIndexWriter = NativeIndexFile & ({ write(file: string): void; pieces?: never } | { pieces(): Iterable<Uint8Array>; write?: never });

interface NativeIndexFile {
  /** Four bytes at the start of the file, checked again on load. */
  readonly fourcc: string;
  /** Each native label's row among the saved vectors, -1 for one removed since, when they are not the same. */
  readonly rows?: readonly number[];
  /** A file that already holds exactly what the writer would write (and its digest): a save links or copies it. */
  readonly file?: NativeFile;
  /** Told where the save put the file, once the save is committed (a later save may link that one). */
  saved?(file: NativeFile): void;
}

/** A faiss index file on disk and the size and SHA-256 of its bytes. */
export interface NativeFile {
  path: string;
  digest: FileDigest;
}

/**
 * The search side of a vector index. The VectorStore holds the vectors and the
 * label <-> id mapping; an engine is told about every change right after it is
 * made to the store and keeps whatever it needs in step.
 */
export interface SearchEngine {
  readonly backend: VectorBackendName;
  readonly kind: VectorIndexKind;
  /** Whether it searches 8-bit codes of the vectors (re-scoring its best candidates exactly). */
  readonly quantised: boolean;
  /** Rows `from .. store.size - 1` were appended. */
  appended(from: number): void;
  /** These rows (ascending, numbered before compaction) and ids were removed and the store compacted. */
  removed(labels: readonly number[], ids: readonly string[]): void;
  /** The store row that held id `from` holds the same vector as `to` now. */
  relabeled?(from: string, to: string): void;
  /** `k` >= 1, the store is non-empty and `query` has been validated. */
  search(query: Float32Array, k: number, accept?: AcceptId): VectorHit[];
  /** Brings native state in line with the store rows; null when there is nothing native to write. */
  prepareSave(): NativeIndexWriter | null;
  /** Background work a save should wait for first (a first HNSW graph being built). */
  beforeSave?(): Promise<void>;
  /** Resolves once no background work (a graph build) is running. */
  settled?(): Promise<void>;
}

/** Internal hit before label -> id mapping; label is the store row (or graph label). */
export interface LabelHit {
  label: number;
  score: number;
}

/** Best first; equal scores in label (insertion) order, so every backend ranks ties alike. */
export function compareLabelHits(a: LabelHit, b: LabelHit): number {
  return b.score - a.score || a.label - b.label;
}
