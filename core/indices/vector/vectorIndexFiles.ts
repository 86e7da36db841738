import { createHash } from 'node:crypto';
import { DigestingCounter, digestBytes, digestFile, type FileDigest } from '../../embedding/fileDigest.js';
import { TimeSlices } from '../../process/timeSlices.js';
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FaissIndex, FaissModule } from './faissRuntime.js';
import type { NativeFile, NativeIndexWriter, VectorBackendName, VectorIndexKind } from './vectorTypes.js';

/*
 * On-disk layout of a saved vector index (all in one directory):
 *   vector-index.json      header: format, version, generation, backend, kind, dims, count, ids in label
 *                          order, and the size and SHA-256 of the files below
 *   vectors-<gen>.f32      count x dims float32 little-endian: the source of truth
 *   vectors-<gen>.faiss    optional faiss index over the same rows (so loading skips re-adding / rebuilding); an
 *                          HNSW graph built before the latest changes comes with nativeRows (each graph label's row)
 * The faiss file is checksummed because faiss aborts the process (bad_alloc) on some
 * damaged files instead of throwing.
 * A save writes generation gen+1 under new names, then replaces the header (the
 * commit point), then deletes older generations: a crash at any moment leaves a
 * header that points at complete files.
 */
export const HEADER_FILE = 'vector-index.json';
const FORMAT = 'cairn-vector-index';
const FORMAT_VERSION = 1;
const GENERATION_FILE = /^vectors-(\d+)\.(f32|faiss)(\.tmp)?$/;
const LITTLE_ENDIAN = os.endianness() === 'LE';

export interface VectorIndexHeader {
  format: typeof FORMAT;
  version: number;
  generation: number;
  backend: VectorBackendName;
  kind: VectorIndexKind;
  dims: number;
  count: number;
  vectorsFile: string;
  vectorsSha256: string;
  nativeFile: string | null;
  nativeBytes: number | null;
  nativeSha256: string | null;
  /** Each native label's row in `ids` (-1: removed since the graph was built); null when labels are rows. */
  nativeRows: number[] | null;
  ids: string[];
}

export interface IndexSnapshot {
  backend: VectorBackendName;
  kind: VectorIndexKind;
  dims: number;
  ids: string[];
  /** The live rows (count x dims): written as they are, so the index must not change until the save ends. */
  vectors: Float32Array;
  native: NativeIndexWriter | null;
  /** False once the index has changed since the snapshot: the save is then abandoned, not committed. */
  unchanged(): boolean;
}

export class VectorIndexCorruptError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`Vector index file ${file} is unusable: ${reason}`);
    this.name = 'VectorIndexCorruptError';
  }
}

const vectorsName = (generation: number) => `vectors-${generation}.f32`;
const nativeName = (generation: number) => `vectors-${generation}.faiss`;

/**
 * Saves a snapshot into `dir`. `takeSnapshot` runs synchronously before the first await. Nothing is copied: the
 * vectors are written from the live store in slices (the event loop runs between them) and a faiss file that is
 * already on disk (an HNSW graph built in the background, or the one loaded) is linked or copied, not written again
 * on the event loop. The caller keeps the index unchanged until the save ends (saves run with the index's writers
 * held); a change meanwhile abandons the save before its header is written.
 */
export async function saveIndexFiles(dir: string, takeSnapshot: () => IndexSnapshot): Promise<Record<string, FileDigest>> {
  // Synchronous on purpose: faiss's write aborts the process if the directory is missing.
  fs.mkdirSync(dir, { recursive: true });
  const generation = highestGeneration(fs.readdirSync(dir)) + 1;
  const snapshot = takeSnapshot();
  const vectorsFile = vectorsName(generation);
  const nativeFile = snapshot.native ? nativeName(generation) : null;
  const tmp = (name: string) => path.join(dir, `${name}.tmp`);
  const written: string[] = [];
  const vectorBytes = toLittleEndianBytes(snapshot.vectors);
  const changed = () => new Error(`the vector index changed while it was being saved into ${dir}`);
  let native: FileDigest | null = null;
  let vectors: FileDigest;
  let headerDigest: FileDigest;
  try {
    if (snapshot.native && nativeFile) {
      written.push(tmp(nativeFile));
      native = await placeNativeFile(dir, snapshot.native, tmp(nativeFile), vectorBytes.byteLength + snapshot.ids.length * 1024 + 2 ** 20);
      await syncFile(tmp(nativeFile));
    }
    written.push(tmp(vectorsFile));
    vectors = await writeDurably(tmp(vectorsFile), slices(vectorBytes));
    if (!snapshot.unchanged()) throw changed();
    await fsp.rename(tmp(vectorsFile), path.join(dir, vectorsFile));
    if (nativeFile) await fsp.rename(tmp(nativeFile), path.join(dir, nativeFile));
    await syncDirectory(dir);

    const header: VectorIndexHeader = {
      format: FORMAT,
      version: FORMAT_VERSION,
      generation,
      backend: snapshot.backend,
      kind: snapshot.kind,
      dims: snapshot.dims,
      count: snapshot.ids.length,
      vectorsFile,
      vectorsSha256: vectors.sha256,
      nativeFile,
      nativeBytes: native?.bytes ?? null,
      nativeSha256: native?.sha256 ?? null,
      nativeRows: snapshot.native?.rows ? [...snapshot.native.rows] : null,
      ids: snapshot.ids,
    };
    written.push(tmp(HEADER_FILE));
    headerDigest = await writeDurably(tmp(HEADER_FILE), headerPieces(header));
    if (!snapshot.unchanged()) throw changed();
    await fsp.rename(tmp(HEADER_FILE), path.join(dir, HEADER_FILE));
    await syncDirectory(dir);
  } catch (error) {
    await Promise.all(written.map((file) => fsp.rm(file, { force: true })));
    throw error;
  }
  if (nativeFile && native) snapshot.native?.saved?.({ path: path.join(dir, nativeFile), digest: native });
  await removeOtherGenerations(dir, generation);
  const digests: Record<string, FileDigest> = { [HEADER_FILE]: headerDigest, [vectorsFile]: vectors };
  if (nativeFile && native) digests[nativeFile] = native;
  return digests;
}

/**
 * Puts the faiss file at `target`: a hard link to (or else a copy of) the file the writer says already holds its
 * bytes, checked against that file's digest; otherwise it is written from the writer's pieces, in turns, or by
 * faiss, synchronously.
 */
async function placeNativeFile(dir: string, native: NativeIndexWriter, target: string, estimatedBytes: number): Promise<FileDigest> {
  if (native.file) {
    const placed = await fsp.link(native.file.path, target).then(
      () => true,
      () => fsp.copyFile(native.file!.path, target).then(() => true, () => false),
    );
    if (placed) {
      const digest = await digestFile(target).catch(() => null);
      if (digest && digest.bytes === native.file.digest.bytes && digest.sha256 === native.file.digest.sha256) return native.file.digest;
      await fsp.rm(target, { force: true });
    }
  }
  checkRoomForNativeWrite(dir, estimatedBytes);
  if (native.pieces) return writeDurably(target, native.pieces());
  native.write(target);
  return digestFile(target);
}

/** The bytes in slices of a few MB: each is hashed and written in a turn of its own. */
function* slices(bytes: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength || at === 0; at += SLICE_BYTES) yield bytes.subarray(at, at + SLICE_BYTES);
}

const SLICE_BYTES = 4 * 2 ** 20;

/** The header as JSON in pieces: its ids (one per vector) a few thousand at a time. */
async function* headerPieces(header: VectorIndexHeader): AsyncGenerator<string> {
  const turns = new TimeSlices();
  const { ids, nativeRows, ...rest } = header;
  yield `${JSON.stringify(rest).slice(0, -1)},"nativeRows":`;
  if (nativeRows === null) yield 'null';
  else yield* jsonArrayPieces(nativeRows, turns);
  yield ',"ids":';
  yield* jsonArrayPieces(ids, turns);
  yield '}';
}

async function* jsonArrayPieces(items: readonly unknown[], turns: TimeSlices): AsyncGenerator<string> {
  const PER_PIECE = 5000;
  if (items.length === 0) yield '[]';
  for (let at = 0; at < items.length; at += PER_PIECE) {
    const piece = JSON.stringify(items.slice(at, at + PER_PIECE));
    yield `${at === 0 ? '[' : ','}${piece.slice(1, -1)}${at + PER_PIECE >= items.length ? ']' : ''}`;
    if (turns.due()) await turns.next();
  }
}

export interface SavedIndex {
  header: VectorIndexHeader;
  vectors: Float32Array;
}

/** Reads and checks the header and vectors file; throws VectorIndexCorruptError on any mismatch. */
export async function readIndexFiles(dir: string, dims: number): Promise<SavedIndex> {
  const headerPath = path.join(dir, HEADER_FILE);
  const header = validateHeader(headerPath, await readJson(headerPath), dims);
  const vectorsPath = path.join(dir, header.vectorsFile);
  const expectedBytes = header.count * header.dims * 4;
  const vectors = new Float32Array(header.count * header.dims);
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(vectorsPath, 'r');
  } catch (error) {
    throw new VectorIndexCorruptError(vectorsPath, describeIoError(error));
  }
  try {
    const { size } = await handle.stat();
    if (size !== expectedBytes) {
      throw new VectorIndexCorruptError(vectorsPath, `${size} bytes, expected ${header.count} x ${header.dims} x 4 = ${expectedBytes}`);
    }
    const bytes = new Uint8Array(vectors.buffer);
    let offset = 0;
    while (offset < expectedBytes) {
      const { bytesRead } = await handle.read(bytes, offset, expectedBytes - offset, offset);
      if (bytesRead === 0) throw new VectorIndexCorruptError(vectorsPath, `ended after ${offset} of ${expectedBytes} bytes`);
      offset += bytesRead;
    }
  } finally {
    await handle.close();
  }
  // Checked in turns: at 200,000 chunks the vectors are 80 MB.
  if ((await digestBytes(new Uint8Array(vectors.buffer))).sha256 !== header.vectorsSha256) throw new VectorIndexCorruptError(vectorsPath, 'checksum mismatch');
  if (!LITTLE_ENDIAN) swapFloat32Bytes(vectors);
  const bad = await firstNonFinite(vectors);
  if (bad >= 0) throw new VectorIndexCorruptError(vectorsPath, `non-finite value in row ${Math.floor(bad / header.dims)}`);
  return { header, vectors };
}

export interface NativeIndex {
  index: FaissIndex;
  /** Each label's row among the saved vectors when they differ (see VectorIndexHeader.nativeRows). */
  rows?: number[];
  /** The file it was read from. */
  file: NativeFile;
}

/**
 * Reads the saved faiss index when it is present and intact; null otherwise (the
 * caller rebuilds from the vectors file, the source of truth).
 */
export async function readNativeIndex(
  faiss: FaissModule,
  dir: string,
  header: VectorIndexHeader,
  fourcc: string,
  checked?: ReadonlyMap<string, FileDigest>,
): Promise<NativeIndex | null> {
  if (!header.nativeFile || header.nativeBytes === null || header.nativeSha256 === null) return null;
  const file = path.join(dir, header.nativeFile);
  const known = checked?.get(header.nativeFile);
  try {
    const { bytes, sha256: digest, head } = known ? { ...known, head: await readHead(file) } : await hashFile(file);
    // The type tag matters too: removeIds on an HNSW index taken for a flat one would abort.
    if (bytes !== header.nativeBytes || digest !== header.nativeSha256 || head !== fourcc) return null;
    const index = faiss.Index.read(file);
    if (index.ntotal() !== (header.nativeRows?.length ?? header.count) || index.getDimension() !== header.dims) return null;
    const read = { path: file, digest: { bytes, sha256: digest } };
    return header.nativeRows ? { index, rows: header.nativeRows, file: read } : { index, file: read };
  } catch {
    return null;
  }
}

/** Whether loading the index checks this file's digest itself (the vectors file: readIndexFiles). */
export function checkedWhenLoaded(name: string): boolean {
  return /^vectors-\d+\.f32$/.test(name);
}

function validateHeader(file: string, raw: unknown, dims: number): VectorIndexHeader {
  const fail = (reason: string): never => {
    throw new VectorIndexCorruptError(file, reason);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('not a JSON object');
  const h = raw as Partial<Record<keyof VectorIndexHeader, unknown>>;
  if (h.format !== FORMAT) fail(`format is ${JSON.stringify(h.format)}, expected "${FORMAT}"`);
  if (h.version !== FORMAT_VERSION) fail(`format version ${JSON.stringify(h.version)}, expected ${FORMAT_VERSION}`);
  const generation = h.generation;
  if (!isCount(generation) || generation < 1) return fail(`bad generation ${JSON.stringify(generation)}`);
  if (h.backend !== 'faiss' && h.backend !== 'flat') fail(`unknown backend ${JSON.stringify(h.backend)}`);
  if (h.kind !== 'flat' && h.kind !== 'hnsw') fail(`unknown kind ${JSON.stringify(h.kind)}`);
  if (!isCount(h.dims) || h.dims < 1) fail(`bad dims ${JSON.stringify(h.dims)}`);
  if (h.dims !== dims) fail(`saved with ${String(h.dims)} dimensions, expected ${dims}`);
  if (!isCount(h.count)) fail(`bad count ${JSON.stringify(h.count)}`);
  if (!Array.isArray(h.ids) || !h.ids.every((id) => typeof id === 'string')) fail('ids is not an array of strings');
  const ids = h.ids as string[];
  if (ids.length !== h.count) fail(`count is ${String(h.count)} but ${ids.length} ids are listed`);
  // Uniqueness is checked as the store files the ids (VectorStore.fromRows), in turns: a Set of them here held the
  // event loop for tens of milliseconds at 200,000.
  if (h.vectorsFile !== vectorsName(generation)) fail(`vectorsFile ${JSON.stringify(h.vectorsFile)} does not match generation ${generation}`);
  if (!isSha256(h.vectorsSha256)) fail('vectorsSha256 is not a SHA-256 hex digest');
  const native = h.nativeFile === null ? null : nativeName(generation);
  if (h.nativeFile !== native) fail(`nativeFile ${JSON.stringify(h.nativeFile)} does not match generation ${generation}`);
  // A bad description of the optional faiss file only means it is not used.
  const nativeRows = h.nativeRows === undefined || h.nativeRows === null ? null : h.nativeRows;
  const rowsUsable = nativeRows === null || validRowMap(nativeRows, ids.length);
  const nativeUsable = native !== null && isCount(h.nativeBytes) && isSha256(h.nativeSha256) && rowsUsable;
  return {
    ...(h as VectorIndexHeader),
    ids,
    nativeFile: nativeUsable ? native : null,
    nativeBytes: nativeUsable ? (h.nativeBytes as number) : null,
    nativeSha256: nativeUsable ? (h.nativeSha256 as string) : null,
    nativeRows: nativeUsable ? (nativeRows as number[] | null) : null,
  };
}

/** Rows in -1..count-1, no row twice. */
function validRowMap(value: unknown, count: number): boolean {
  if (!Array.isArray(value)) return false;
  const seen = new Uint8Array(count);
  for (const row of value) {
    if (!Number.isInteger(row) || row < -1 || row >= count) return false;
    if (row < 0) continue;
    if (seen[row]) return false;
    seen[row] = 1;
  }
  return true;
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (error) {
    throw new VectorIndexCorruptError(file, describeIoError(error));
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new VectorIndexCorruptError(file, `not valid JSON (${(error as Error).message})`);
  }
}

async function firstNonFinite(values: Float32Array): Promise<number> {
  const turns = new TimeSlices();
  for (let from = 0; from < values.length; from += FLOATS_PER_STEP) {
    const to = Math.min(values.length, from + FLOATS_PER_STEP);
    for (let i = from; i < to; i++) if (!Number.isFinite(values[i])) return i;
    if (turns.due()) await turns.next();
  }
  return -1;
}

/** Floats checked between two looks at the clock. */
const FLOATS_PER_STEP = 1 << 16;

function isSha256(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

/** The first four bytes (faiss's type tag) as latin1. */
async function readHead(file: string): Promise<string> {
  const handle = await fsp.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return head.toString('latin1', 0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function hashFile(file: string): Promise<{ bytes: number; sha256: string; head: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  let head = '';
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    if (head.length < 4) head += chunk.toString('latin1', 0, 4 - head.length);
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex'), head };
}

/** faiss aborts the process when its write fails, so rule out the likely causes first. */
function checkRoomForNativeWrite(dir: string, estimatedBytes: number): void {
  fs.accessSync(dir, fs.constants.W_OK);
  let free: number;
  try {
    const { bavail, bsize } = fs.statfsSync(dir);
    free = bavail * bsize;
  } catch {
    return; // statfs is not available everywhere
  }
  if (free < 2 * estimatedBytes) {
    throw new Error(`Not enough free disk space in ${dir} to save the vector index (about ${Math.ceil((2 * estimatedBytes) / 2 ** 20)} MB needed, ${Math.floor(free / 2 ** 20)} MB free)`);
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'missing' : `cannot be read (${code ?? (error as Error).message})`;
}

function highestGeneration(names: readonly string[]): number {
  let highest = 0;
  for (const name of names) {
    const match = GENERATION_FILE.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

async function removeOtherGenerations(dir: string, keep: number): Promise<void> {
  const names = await fsp.readdir(dir);
  const stale = names.filter((name) => {
    const match = GENERATION_FILE.exec(name);
    return (match && Number(match[1]) !== keep) || name === `${HEADER_FILE}.tmp`;
  });
  await Promise.all(stale.map((name) => fsp.rm(path.join(dir, name), { force: true })));
}

/** Writes the pieces and flushes them to disk; the size and SHA-256 of what was written. */
async function writeDurably(file: string, pieces: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): Promise<FileDigest> {
  const counter = new DigestingCounter();
  const handle = await fsp.open(file, 'w');
  try {
    for await (const piece of pieces) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
      counter.add(bytes);
      for (let at = 0; at < bytes.byteLength; ) at += (await handle.write(bytes, at, bytes.byteLength - at)).bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return counter.digest();
}

async function syncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the renames durable; not supported on every platform (e.g. Windows), where it is skipped.
  try {
    const handle = await fsp.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

function toLittleEndianBytes(vectors: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength);
  const copy = vectors.slice();
  swapFloat32Bytes(copy);
  return new Uint8Array(copy.buffer);
}

function swapFloat32Bytes(vectors: Float32Array): void {
  const bytes = new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength);
  for (let i = 0; i < bytes.length; i += 4) {
    [bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]] = [bytes[i + 3], bytes[i + 2], bytes[i + 1], bytes[i]];
  }
}
