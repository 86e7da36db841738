import { createRequire } from 'node:module';
import type * as FaissNode from 'faiss-node';

export type FaissModule = typeof FaissNode;
export type FaissIndex = FaissNode.Index;

export interface FaissStatus {
  available: boolean;
  reason?: string;
}

let loaded: { status: FaissStatus; module: FaissModule | null } | undefined;

function load(): { status: FaissStatus; module: FaissModule | null } {
  // Without these every search starts an OpenMP team (and, through BLAS, OpenBLAS threads), which stalls small
  // machines. They must be set before the native libraries initialise, hence the lazy require.
  process.env.OMP_NUM_THREADS ??= '1';
  process.env.OPENBLAS_NUM_THREADS ??= '1';
  try {
    const faiss = createRequire(import.meta.url)('faiss-node') as FaissModule;
    if (typeof faiss.IndexFlatIP !== 'function' || typeof faiss.Index?.fromFactory !== 'function') {
      return { status: { available: false, reason: 'faiss-node loaded but lacks IndexFlatIP/Index.fromFactory' }, module: null };
    }
    const probe = new faiss.IndexFlatIP(2);
    probe.add([1, 0, 0, 1]);
    const { labels } = probe.search([0, 1], 1);
    if (labels[0] !== 1) return { status: { available: false, reason: 'faiss-node returned a wrong search result' }, module: null };
    return { status: { available: true }, module: faiss };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { status: { available: false, reason: `faiss-node does not load: ${message}` }, module: null };
  }
}

/** Whether faiss-node loads here, and if not, why. Cached for the process. */
export function faissStatus(): FaissStatus {
  loaded ??= load();
  return { ...loaded.status };
}

/** The faiss-node module; throws a readable Error when it is unavailable. */
export function requireFaiss(): FaissModule {
  loaded ??= load();
  if (!loaded.module) throw new Error(`The faiss vector backend is unavailable: ${loaded.status.reason}`);
  return loaded.module;
}
