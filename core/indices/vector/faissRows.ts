import type { FaissIndex } from './faissRuntime.js';

// faiss-node only takes plain number[]; converting ~64k floats per call keeps the
// temporary arrays small (measured faster than both 4k-row and whole-matrix batches).
const FLOATS_PER_ADD = 1 << 16;

/** Adds rows `from .. to - 1` of a row-major matrix to a faiss index, in batches. */
export function addRows(index: FaissIndex, data: Float32Array, dims: number, from: number, to: number): void {
  const rowsPerBatch = Math.max(1, Math.floor(FLOATS_PER_ADD / dims));
  let buffer: number[] = [];
  for (let start = from; start < to; start += rowsPerBatch) {
    const end = Math.min(to, start + rowsPerBatch);
    const length = (end - start) * dims;
    if (buffer.length !== length) buffer = new Array<number>(length).fill(0);
    const base = start * dims;
    for (let i = 0; i < length; i++) buffer[i] = data[base + i];
    index.add(buffer);
  }
}

/** Searches one query; `k` must be in 1..ntotal (faiss aborts otherwise). */
export function searchOne(index: FaissIndex, query: Float32Array, k: number): { labels: number[]; distances: number[] } {
  const total = index.ntotal();
  if (!(Number.isInteger(k) && k >= 1 && k <= total)) throw new Error(`faiss search: k=${k} outside 1..${total}`);
  return index.search(Array.from(query), k);
}
