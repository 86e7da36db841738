/**
 * The file faiss writes for an exact inner-product flat index (IndexFlatIP), made by Cairn in pieces instead.
 * faiss-node's write is synchronous and held the event loop for the whole file: 20 MB at 50,000 vectors of 100
 * dimensions took 10-180 ms on the project machine, 80 MB just under the HNSW threshold 0.6-0.9 s. The flat index
 * holds nothing but the rows, so its file is a 45-byte header and the rows as they are in memory, and a save writes
 * it a few megabytes a turn like the vectors file. faiss reads it back as its own (test/vector-index.test.ts checks
 * the bytes against faiss's write).
 *
 * The same bytes make a flat index from rows without faiss-node's `add`, which reads every float of its argument
 * through N-API (51,293 rows of 101 dimensions added in batches of 500: 607-796 ms, against 157-242 ms this way):
 * rows are appended as an index faiss reads from their file, merged in (a copy of memory).
 *
 * The layout (faiss's index_write.cpp, in the machine's byte order): "IxFI", the dimension (int32), the row count
 * (int64), two int64 fields faiss no longer reads and writes as 2^20, is_trained (one byte, 1), the metric (int32,
 * 0 = inner product), the number of floats (uint64), then the floats.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addRows } from './faissRows.js';
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
 * A flat inner-product index holding these rows, read by faiss from their file (written to a temporary file and
 * removed at once: faiss-node's `fromBuffer` never frees the copy it reads from). Always faiss-node's generic
 * `Index` wrapper, as `Index.read` gives: `mergeFrom` takes the other index as its own wrapper class.
 */
export function flatIndexOf(faiss: FaissModule, dims: number, vectors: Float32Array): FaissIndex {
  const file = path.join(os.tmpdir(), `cairn-rows-${process.pid}-${++rowFiles}.faiss`);
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    try {
      fs.writevSync(fd, [...faissFlatFile(dims, vectors)]);
    } finally {
      fs.closeSync(fd);
    }
    return faiss.Index.read(file);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

let rowFiles = 0;

/** An empty flat inner-product index that rows can be merged into (see flatIndexOf). */
export function emptyFlatIndex(faiss: FaissModule, dims: number): FaissIndex {
  try {
    return flatIndexOf(faiss, dims, new Float32Array(0));
  } catch {
    // No temporary file: rows will go through faiss's add (faiss merges only indices of one class).
    return faiss.Index.fromFactory(dims, 'Flat', faiss.MetricType.METRIC_INNER_PRODUCT);
  }
}

/**
 * Appends rows `from .. to - 1` of a row-major matrix to an index made by emptyFlatIndex or read from its file;
 * through faiss's `add` when that cannot be done (no temporary file can be written: a full disk).
 */
export function addFlatRows(faiss: FaissModule, index: FaissIndex, data: Float32Array, dims: number, from: number, to: number): void {
  if (to <= from) return;
  try {
    index.mergeFrom(flatIndexOf(faiss, dims, data.subarray(from * dims, to * dims)));
  } catch {
    // faiss checks that the two can merge before it changes anything.
    addRows(index, data, dims, from, to);
  }
}
