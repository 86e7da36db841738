/**
 * The file faiss writes for an exact inner-product flat index (IndexFlatIP), made by Cairn in pieces instead.
 * faiss-node's write is synchronous and held the event loop for the whole file: 20 MB at 50,000 vectors of 100
 * dimensions took 10-180 ms on the project machine, 80 MB just under the HNSW threshold 0.6-0.9 s. The flat index
 * holds nothing but the rows, so its file is a 45-byte header and the rows as they are in memory, and a save writes
 * it a few megabytes a turn like the vectors file. faiss reads it back as its own (test/vector-index.test.ts checks
 * the bytes against faiss's write).
 *
 * The same bytes make a flat index from rows without faiss-node's `add`, which reads every float of its argument
 * through N-API (628 ms for 51,293 rows of 100 dimensions, against 89 ms for this): rows are appended as an index
 * read from their bytes and merged in, a copy of memory.
 *
 * The layout (faiss's index_write.cpp, in the machine's byte order): "IxFI", the dimension (int32), the row count
 * (int64), two int64 fields faiss no longer reads and writes as 2^20, is_trained (one byte, 1), the metric (int32,
 * 0 = inner product), the number of floats (uint64), then the floats.
 */
import os from 'node:os';
import type { FaissIndex, FaissModule } from './faissRuntime.js';

const HEADER_BYTES = 45;
const UNUSED_FIELD = 2n ** 20n;
const METRIC_INNER_PRODUCT = 0;
const SLICE_BYTES = 4 * 2 ** 20;

/** The bytes of the faiss file of a flat inner-product index holding `vectors` (rows of `dims` floats), in slices. */
export function* faissFlatFile(dims: number, vectors: Float32Array): Generator<Uint8Array> {
  const rows = vectors.length / dims;
  const header = Buffer.alloc(HEADER_BYTES);
  const le = os.endianness() === 'LE';
  let at = header.write('IxFI', 0, 'latin1');
  at = le ? header.writeInt32LE(dims, at) : header.writeInt32BE(dims, at);
  at = le ? header.writeBigInt64LE(BigInt(rows), at) : header.writeBigInt64BE(BigInt(rows), at);
  for (let i = 0; i < 2; i++) at = le ? header.writeBigInt64LE(UNUSED_FIELD, at) : header.writeBigInt64BE(UNUSED_FIELD, at);
  at = header.writeUInt8(1, at);
  at = le ? header.writeInt32LE(METRIC_INNER_PRODUCT, at) : header.writeInt32BE(METRIC_INNER_PRODUCT, at);
  if (le) header.writeBigUInt64LE(BigInt(vectors.length), at);
  else header.writeBigUInt64BE(BigInt(vectors.length), at);
  yield header;
  const bytes = new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength);
  for (let from = 0; from < bytes.byteLength; from += SLICE_BYTES) yield bytes.subarray(from, from + SLICE_BYTES);
}

/**
 * A flat inner-product index holding these rows. Always faiss-node's generic `Index` wrapper, as `Index.read` gives:
 * `mergeFrom` takes the other index as its own wrapper class.
 */
export function flatIndexOf(faiss: FaissModule, dims: number, vectors: Float32Array): FaissIndex {
  const file = Buffer.allocUnsafe(HEADER_BYTES + vectors.byteLength);
  let at = 0;
  for (const piece of faissFlatFile(dims, vectors)) at += Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).copy(file, at);
  return faiss.Index.fromBuffer(file);
}

/** Appends rows `from .. to - 1` of a row-major matrix to an index made by flatIndexOf or read from its file. */
export function addFlatRows(faiss: FaissModule, index: FaissIndex, data: Float32Array, dims: number, from: number, to: number): void {
  if (to > from) index.mergeFrom(flatIndexOf(faiss, dims, data.subarray(from * dims, to * dims)));
}
