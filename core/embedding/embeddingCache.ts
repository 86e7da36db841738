/**
 * Embedding cache file, little-endian (version 2):
 *
 *   magic "CAIRNEMB" | u32 version | u32 dims | u32 count | u32 key bytes | 32-byte SHA-256 of all records
 *   | model key (UTF-8) | zero padding to 4
 *   count records of: 8-byte hash (the chunk hash's 16 hex digits) | dims float32 | 8-byte check (the first bytes
 *   of the SHA-256 of the hash and the floats)
 *
 * The model key (modelId|dtype|fingerprint) and dims are in the header, so a cache written for another model is
 * never mistaken for this one's. When the file's digest holds (one pass over it) every record is good; otherwise
 * each record is checked by itself and a damaged one is dropped (it is embedded again), never used. Version 1 files
 * (no checks) are still read, so an upgrade does not re-embed a vault; the next save writes version 2.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { endianness } from 'node:os';
import path from 'node:path';
import { TimeSlices } from '../process/timeSlices.js';
import { digestBytes } from './fileDigest.js';

const MAGIC = Buffer.from('CAIRNEMB', 'latin1');
const VERSION = 2;
const LEGACY_VERSION = 1;
const DIGEST_BYTES = 32;
/** magic, four u32 (version, dims, count, key bytes), then (version 2) the records' digest. */
const HEADER_BYTES = { [LEGACY_VERSION]: MAGIC.length + 4 * 4, [VERSION]: MAGIC.length + 4 * 4 + DIGEST_BYTES } as const;
const HASH_BYTES = 8;
const CHECK_BYTES = 8;
const HASH = /^[0-9a-f]{16}$/;
// Float32Array views need 4-byte alignment; little-endian hosts (all supported ones) copy records in bulk.
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

interface Decoded {
  vectors: Float32Array;
  index: Map<string, number>;
  /** Damage found and repaired (entries dropped), if any. */
  problem?: string;
}

/** Persisted vectors keyed by (model key, dims, content hash): re-chunking or restarting only embeds text never embedded before. */
export class EmbeddingCache {
  /** Why an existing file was discarded or partly dropped (damaged, truncated, another model), if it was. */
  readonly recovered?: string;
  /** Vectors read from the file, back to back; `loadedIndex` maps a hash to its slot. */
  private loaded: Float32Array;
  private loadedIndex: Map<string, number>;
  /** Vectors set since opening (or replacing loaded ones). */
  private readonly added = new Map<string, Float32Array>();
  /** How many of `added` are not also in `loadedIndex`. */
  private addedOnly = 0;

  private constructor(
    readonly file: string,
    readonly modelKey: string,
    readonly dims: number,
    loaded: { vectors: Float32Array; index: Map<string, number> },
    recovered?: string,
  ) {
    this.loaded = loaded.vectors;
    this.loadedIndex = loaded.index;
    if (recovered !== undefined) this.recovered = recovered;
  }

  /**
   * Missing file → empty; another model's file, a damaged header or a folder in its place → empty with `recovered`
   * set; damaged records → dropped, with `recovered` set. Throws only for other I/O errors.
   */
  static async open(file: string, modelKey: string, dims: number): Promise<EmbeddingCache> {
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
    const empty = { vectors: new Float32Array(0), index: new Map<string, number>() };
    const name = path.basename(file);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return new EmbeddingCache(file, modelKey, dims, empty);
      if (code === 'EISDIR') return new EmbeddingCache(file, modelKey, dims, empty, `${name} is a folder; starting with an empty cache (the next save replaces it)`);
      throw e;
    }
    const decoded = await decode(bytes, modelKey, dims);
    if (typeof decoded === 'string') return new EmbeddingCache(file, modelKey, dims, empty, `${name}: ${decoded}; starting with an empty cache`);
    const recovered = decoded.problem && `${name}: ${decoded.problem} (what was dropped is embedded again)`;
    return new EmbeddingCache(file, modelKey, dims, decoded, recovered);
  }

  get size(): number {
    return this.loadedIndex.size + this.addedOnly;
  }

  get(hash: string): Float32Array | undefined {
    const added = this.added.get(hash);
    if (added) return added;
    const slot = this.loadedIndex.get(hash);
    return slot === undefined ? undefined : this.loaded.subarray(slot * this.dims, (slot + 1) * this.dims);
  }

  set(hash: string, vector: Float32Array): void {
    if (!HASH.test(hash)) throw new RangeError(`cache keys are 16 lowercase hex digits, got "${hash}"`);
    if (vector.length !== this.dims) throw new RangeError(`expected a ${this.dims}-d vector, got ${vector.length}`);
    if (!this.added.has(hash) && !this.loadedIndex.has(hash)) this.addedOnly++;
    // A copy: the caller's vector may be a view into a larger buffer it reuses or transfers. (slice() copies the
    // view's floats directly; Float32Array.from goes through the iterator, some 40 µs a vector.)
    this.added.set(hash, vector.slice());
  }

  /**
   * Atomic (temp + rename). Keeps every entry in `keep` and drops others only when unreferenced entries outnumber
   * referenced ones (so flipping a config back and forth stays cheap). Vectors set while it runs are kept.
   */
  async save(keep?: ReadonlySet<string>): Promise<void> {
    // Every step that visits each entry runs in turns: a large vault's cache holds hundreds of thousands.
    const turns = new TimeSlices();
    let hashes = await this.hashes(turns);
    if (keep) {
      const referenced: string[] = [];
      for (const hash of hashes) {
        if (keep.has(hash)) referenced.push(hash);
        if (turns.due()) await turns.next();
      }
      if (hashes.length - referenced.length > referenced.length) hashes = referenced;
    }
    const saved: Float32Array[] = [];
    for (const hash of hashes) {
      saved.push(this.get(hash)!);
      if (turns.due()) await turns.next();
    }
    const keyBytes = Buffer.from(this.modelKey, 'utf8');
    const headerBytes = align4(HEADER_BYTES[VERSION] + keyBytes.length);
    const recordBytes = recordSize(this.dims);
    const out = Buffer.alloc(headerBytes + hashes.length * recordBytes);
    MAGIC.copy(out, 0);
    let at = MAGIC.length;
    for (const n of [VERSION, this.dims, hashes.length, keyBytes.length]) at = out.writeUInt32LE(n, at);
    keyBytes.copy(out, HEADER_BYTES[VERSION]);
    const vectors = new Float32Array(hashes.length * this.dims);
    for (let i = 0, offset = headerBytes; i < hashes.length; i++, offset += recordBytes) {
      out.write(hashes[i], offset, HASH_BYTES, 'hex');
      vectors.set(saved[i], i * this.dims);
      writeFloats(out, offset + HASH_BYTES, saved[i]);
      recordCheck(out, offset, this.dims).copy(out, offset + recordBytes - CHECK_BYTES);
      if (turns.due()) await turns.next();
    }
    Buffer.from((await digestBytes(out.subarray(headerBytes))).sha256, 'hex').copy(out, at);
    await this.writeAtomically(out);
    // Memory now mirrors the file: one block again, pruned entries gone; what was set meanwhile stays added. Built
    // aside in turns, then swapped in at once.
    const loadedIndex = new Map<string, number>();
    for (const [i, hash] of hashes.entries()) {
      loadedIndex.set(hash, i);
      if (turns.due()) await turns.next();
    }
    this.loaded = vectors;
    this.loadedIndex = loadedIndex;
    for (const [i, hash] of hashes.entries()) if (this.added.get(hash) === saved[i]) this.added.delete(hash);
    this.addedOnly = 0;
    for (const hash of this.added.keys()) if (!loadedIndex.has(hash)) this.addedOnly++;
  }

  private async writeAtomically(out: Buffer): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    // Whatever is in the file's place and is not a file (a folder: damage) would make every save fail.
    const existing = await lstat(this.file).catch(() => undefined);
    if (existing && !existing.isFile()) await rm(this.file, { recursive: true, force: true });
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      const handle = await open(temp, 'w');
      try {
        await handle.writeFile(out);
        // On disk before the rename, so a crash leaves the old file or the new one, never a torn one.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.file);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  private async hashes(turns: TimeSlices): Promise<string[]> {
    const all = [...this.loadedIndex.keys()];
    for (const hash of this.added.keys()) {
      if (!this.loadedIndex.has(hash)) all.push(hash);
      if (turns.due()) await turns.next();
    }
    return all;
  }
}

const align4 = (n: number) => (n + 3) & ~3;
const recordSize = (dims: number, version = VERSION) => HASH_BYTES + 4 * dims + (version === VERSION ? CHECK_BYTES : 0);

/** The check of the record at `offset`: the first bytes of the SHA-256 of its hash and floats. */
function recordCheck(bytes: Buffer, offset: number, dims: number): Buffer {
  return createHash('sha256')
    .update(bytes.subarray(offset, offset + HASH_BYTES + 4 * dims))
    .digest()
    .subarray(0, CHECK_BYTES);
}

/** The file's good vectors in one block, or why none of the file can be used. */
async function decode(bytes: Buffer, modelKey: string, dims: number): Promise<Decoded | string> {
  if (bytes.length < HEADER_BYTES[LEGACY_VERSION] || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return 'not an embedding cache file';
  let at = MAGIC.length;
  const [version, fileDims, count, keyLength] = [0, 1, 2, 3].map(() => ((at += 4), bytes.readUInt32LE(at - 4)));
  if (version !== VERSION && version !== LEGACY_VERSION) return `unsupported cache version ${version}`;
  const fixedHeader = HEADER_BYTES[version];
  if (fixedHeader + keyLength > bytes.length) return 'truncated header';
  const fileKey = bytes.toString('utf8', fixedHeader, fixedHeader + keyLength);
  if (fileKey !== modelKey) return `written for another model (${fileKey}, now ${modelKey})`;
  if (fileDims !== dims) return `written for ${fileDims}-d vectors, the model has ${dims}`;
  const headerBytes = align4(fixedHeader + keyLength);
  const recordBytes = recordSize(dims, version);
  if (version === LEGACY_VERSION) {
    const expected = headerBytes + count * recordBytes;
    if (bytes.length !== expected) return `${bytes.length < expected ? 'truncated' : 'has trailing bytes'} (${bytes.length} bytes, expected ${expected} for ${count} entries)`;
    const decoded = await readRecords(bytes, headerBytes, count, dims, recordBytes, false);
    return decoded.problem ? `damaged (${decoded.problem})` : decoded;
  }
  // Records check themselves: a count or length that disagrees only means fewer (or more) of them are complete.
  const complete = Math.floor((bytes.length - headerBytes) / recordBytes);
  const wellFormed = complete === count && headerBytes + complete * recordBytes === bytes.length;
  const digest = bytes.subarray(MAGIC.length + 4 * 4, MAGIC.length + 4 * 4 + DIGEST_BYTES).toString('hex');
  const intact = wellFormed && (await digestBytes(bytes.subarray(headerBytes))).sha256 === digest;
  const decoded = await readRecords(bytes, headerBytes, complete, dims, recordBytes, !intact);
  const problems = [
    ...(wellFormed ? [] : [`${bytes.length} bytes, ${complete} complete entries of the ${count} listed`]),
    ...(decoded.problem ? [decoded.problem] : []),
  ];
  if (!intact && problems.length === 0) problems.push('file checksum mismatch, every entry checked and kept');
  return { ...decoded, problem: problems.join('; ') || undefined };
}

/** Reads `count` records, dropping any that fail their check (when `checkEach`) or hold non-finite values. */
async function readRecords(bytes: Buffer, headerBytes: number, count: number, dims: number, recordBytes: number, checkEach: boolean): Promise<Decoded> {
  const vectors = new Float32Array(count * dims);
  const index = new Map<string, number>();
  let damaged = 0;
  let duplicates = 0;
  const turns = new TimeSlices();
  for (let i = 0, offset = headerBytes; i < count; i++, offset += recordBytes) {
    if (checkEach && !recordCheck(bytes, offset, dims).equals(bytes.subarray(offset + recordBytes - CHECK_BYTES, offset + recordBytes))) {
      damaged++;
      continue;
    }
    const hash = bytes.toString('hex', offset, offset + HASH_BYTES);
    if (index.has(hash)) {
      duplicates++;
      continue;
    }
    const slot = index.size;
    const into = vectors.subarray(slot * dims, (slot + 1) * dims);
    readFloats(bytes, offset + HASH_BYTES, into);
    if (!allFinite(into)) {
      damaged++;
      continue;
    }
    index.set(hash, slot);
    if (turns.due()) await turns.next();
  }
  const problems = [...(damaged ? [`${damaged} damaged entries dropped`] : []), ...(duplicates ? [`${duplicates} duplicate entries dropped`] : [])];
  // Kept entries are packed at the front: the block shrinks to them.
  return { vectors: index.size === count ? vectors : vectors.slice(0, index.size * dims), index, ...(problems.length ? { problem: problems.join(', ') } : {}) };
}

function allFinite(values: Float32Array): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}

function readFloats(bytes: Buffer, offset: number, into: Float32Array) {
  if (LITTLE_ENDIAN_HOST && (bytes.byteOffset + offset) % 4 === 0) {
    into.set(new Float32Array(bytes.buffer, bytes.byteOffset + offset, into.length));
  } else {
    for (let k = 0; k < into.length; k++) into[k] = bytes.readFloatLE(offset + 4 * k);
  }
}

function writeFloats(out: Buffer, offset: number, vector: Float32Array) {
  if (LITTLE_ENDIAN_HOST && (out.byteOffset + offset) % 4 === 0) {
    new Float32Array(out.buffer, out.byteOffset + offset, vector.length).set(vector);
  } else {
    for (let k = 0; k < vector.length; k++) out.writeFloatLE(vector[k], offset + 4 * k);
  }
}
