// What an open vault reports about itself: counts, model, table, failures (the status panel and `cairn status`).
import type { Manifest } from '../indexing/manifest.js';

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
  manifest?: Manifest;
  failed: Array<{ path: string; reason: string }>;
  frontmatterErrors: Array<{ path: string; reason: string }>;
  /** What in the vault's own settings could not be used (a Logseq journal format Cairn does not read). */
  warnings?: string[];
}
