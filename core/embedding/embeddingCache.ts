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
 *
 * Only the hashes stay in memory, with where each record is in the file: a vector is read when it is asked for
 * (`read`), and vectors set since the last save are held until the next one writes them, packed in slabs (see
 * `AddedVectors`): a cold index sets every vector of the vault before its save. The file is read and
 * written a block at a time, never whole: at a million chunks it is over 400 MB.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import path from 'node:path';
import { TimeSlices } from '../process/timeSlices.js';
import { AddedVectors } from './addedVectors.js';

const MAGIC = Buffer.from('CAIRNEMB', 'latin1');
const VERSION = 2;
const LEGACY_VERSION = 1;
const DIGEST_BYTES = 32;
/** magic, four u32 (version, dims, count, key bytes), then (version 2) the records' digest. */
const HEADER_BYTES = { [LEGACY_VERSION]: MAGIC.length + 4 * 4, [VERSION]: MAGIC.length + 4 * 4 + DIGEST_BYTES } as const;
const COUNT_AT = MAGIC.length + 4 * 2;
const DIGEST_AT = MAGIC.length + 4 * 4;
const HASH_BYTES = 8;
const CHECK_BYTES = 8;
const HASH = /^[0-9a-f]{16}$/;
// Float32Array views need 4-byte alignment; little-endian hosts (all supported ones) copy records in bulk.
const LITTLE_ENDIAN_HOST = endianness() === 'LE';
/** Records read or written per block: about 850 KB at 101 dims. */
const BLOCK_RECORDS = 2048;
/** `read` reads records this close together (in records) in one go rather than one by one. */
const READ_GAP_RECORDS = 16;

/** Where a file's records are. */
interface Layout {
  version: typeof VERSION | typeof LEGACY_VERSION;
  headerBytes: number;
  recordBytes: number;
  /** Complete records in the file, good or not. */
  records: number;
  /** Whether the records held the file's digest when it was read (version 2 only), and that digest. */
  intact: boolean;
  digest?: Buffer;
}

interface Scanned {
  layout: Layout;
  /** Each good record's hash → its record number in the file. */
  index: Map<string, number>;
  /** Damage found and repaired (entries dropped), if any. */
  problem?: string;
}

/** Persisted vectors keyed by (model key, dims, content hash): re-chunking or restarting only embeds text never embedded before. */
export class EmbeddingCache {
  /** Why an existing file was discarded or partly dropped (damaged, truncated, another model), if it was. */
  readonly recovered?: string;
  /** The file as last opened or saved: each hash → its record number there (none when there is no usable file). */
  private saved: Map<string, number>;
  private layout?: Layout;
  /** Vectors set since opening or the last save (replacing saved ones of the same hash). */
  private added: AddedVectors;
  /** How many of `added` are not also in `saved`. */
  private addedOnly = 0;

  private constructor(
    readonly file: string,
    readonly modelKey: string,
    readonly dims: number,
    scanned?: Scanned,
    recovered?: string,
  ) {
    this.saved = scanned?.index ?? new Map();
    this.layout = scanned?.layout;
    this.added = new AddedVectors(dims, path.dirname(file));
    if (recovered !== undefined) this.recovered = recovered;
  }

  /**
   * Missing file → empty; another model's file, a damaged header or a folder in its place → empty with `recovered`
   * set; damaged records → dropped, with `recovered` set. Throws only for other I/O errors.
   */
  static async open(file: string, modelKey: string, dims: number): Promise<EmbeddingCache> {
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
    const name = path.basename(file);
    const info = await lstat(file).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
    if (!info) return new EmbeddingCache(file, modelKey, dims);
    if (info.isDirectory()) return new EmbeddingCache(file, modelKey, dims, undefined, `${name} is a folder; starting with an empty cache (the next save replaces it)`);
    const handle = await open(file, 'r');
    let scanned: Scanned | string;
    try {
      scanned = await scan(handle, (await handle.stat()).size, modelKey, dims);
    } finally {
      await handle.close();
    }
    if (typeof scanned === 'string') return new EmbeddingCache(file, modelKey, dims, undefined, `${name}: ${scanned}; starting with an empty cache`);
    const recovered = scanned.problem && `${name}: ${scanned.problem} (what was dropped is embedded again)`;
    return new EmbeddingCache(file, modelKey, dims, scanned, recovered);
  }

  get size(): number {
    return this.saved.size + this.addedOnly;
  }

  has(hash: string): boolean {
    return this.added.has(hash) || this.saved.has(hash);
  }

  /**
   * The vectors of these hashes, undefined for a miss. Saved ones are read from the file, checked: a record that
   * no longer matches (damaged since, or replaced by a save meanwhile) is a miss, never a wrong vector.
   */
  async read(hashes: readonly string[]): Promise<Array<Float32Array | undefined>> {
    const out: Array<Float32Array | undefined> = new Array(hashes.length).fill(undefined);
    const wanted: Array<{ record: number; i: number }> = [];
    const added: Array<Promise<void>> = [];
    hashes.forEach((hash, i) => {
      const vector = this.added.get(hash);
      // One that cannot be read back from its scratch file is a miss, like a damaged record: it is embedded again.
      if (vector) added.push(vector.then((v) => void (out[i] = v), () => {}));
      else {
        const record = this.saved.get(hash);
        if (record !== undefined) wanted.push({ record, i });
      }
    });
    await Promise.all(added);
    const layout = this.layout;
    if (!wanted.length || !layout) return out;
    wanted.sort((a, b) => a.record - b.record);
    const handle = await open(this.file, 'r').catch(() => undefined);
    if (!handle) return out;
    try {
      for (let from = 0; from < wanted.length; ) {
        let to = from + 1;
        while (to < wanted.length && wanted[to].record - wanted[to - 1].record <= READ_GAP_RECORDS && wanted[to].record - wanted[from].record < BLOCK_RECORDS) to++;
        const first = wanted[from].record;
        const bytes = Buffer.alloc((wanted[to - 1].record - first + 1) * layout.recordBytes);
        const { bytesRead } = await handle.read(bytes, 0, bytes.length, layout.headerBytes + first * layout.recordBytes);
        for (let k = from; k < to; k++) {
          const at = (wanted[k].record - first) * layout.recordBytes;
          if (at + layout.recordBytes > bytesRead || bytes.toString('hex', at, at + HASH_BYTES) !== hashes[wanted[k].i]) continue;
          if (recordGood(bytes, at, this.dims, layout.version === VERSION)) out[wanted[k].i] = floatsAt(bytes, at + HASH_BYTES, this.dims).slice();
        }
        from = to;
      }
    } finally {
      await handle.close();
    }
    return out;
  }

  set(hash: string, vector: Float32Array): void {
    if (!HASH.test(hash)) throw new RangeError(`cache keys are 16 lowercase hex digits, got "${hash}"`);
    if (vector.length !== this.dims) throw new RangeError(`expected a ${this.dims}-d vector, got ${vector.length}`);
    if (!this.added.has(hash) && !this.saved.has(hash)) this.addedOnly++;
    // Copied into a slab: the caller's vector may be a view into a larger buffer it reuses or transfers.
    this.added.set(hash, vector);
  }

  /**
   * Atomic (temp + rename). Keeps every entry in `keep` and drops others only when unreferenced entries outnumber
   * referenced ones (so flipping a config back and forth stays cheap). Vectors set while it runs are kept. Saved
   * entries are copied from the current file a block at a time; should the file no longer match its digest (damaged
   * since it was read), each record is checked instead and one that fails is dropped.
   */
  async save(keep?: ReadonlySet<string>): Promise<void> {
    // Every step that visits each entry runs in turns: a large vault's cache holds hundreds of thousands. Nothing
    // is allocated per entry on the usual path: a live service saves after every few edits.
    const turns = new TimeSlices();
    const setNow = this.added.slots();
    let referenced = 0;
    for (const hash of this.saved.keys()) {
      if (!setNow.has(hash) && (!keep || keep.has(hash))) referenced++;
      if (turns.due()) await turns.next();
    }
    for (const hash of setNow.keys()) {
      if (!keep || keep.has(hash)) referenced++;
      if (turns.due()) await turns.next();
    }
    const prune = keep !== undefined && this.size - referenced > referenced;
    const kept = (hash: string) => !prune || keep!.has(hash);
    // The saved records to copy, by record number, with their hashes.
    const records: number[] = [];
    const hashes: string[] = [];
    for (const hash of this.saved.keys()) {
      if (!setNow.has(hash) && kept(hash)) {
        records.push(this.saved.get(hash)!);
        hashes.push(hash);
      }
      if (turns.due()) await turns.next();
    }
    if (records.some((record, i) => i > 0 && record < records[i - 1])) {
      const order = records.map((_, i) => i).sort((a, b) => records[a] - records[b]);
      const [byRecord, byHash] = [order.map((i) => records[i]), order.map((i) => hashes[i])];
      records.splice(0, records.length, ...byRecord);
      hashes.splice(0, hashes.length, ...byHash);
    }

    let writer = await RecordWriter.create(this.file, this.modelKey, this.dims);
    let copied: Uint8Array | undefined;
    // The saved records renumbered (some pruned, replaced or damaged), known before the file replaces the old one:
    // from then on the record numbers must be the new file's.
    let renumbered: Map<string, number> | undefined;
    try {
      const layout = this.layout;
      if (layout && records.length) {
        copied = await copyRecords(this.file, layout, records, writer, this.dims, !layout.intact, turns);
        if (!copied) {
          await writer.abandon();
          writer = await RecordWriter.create(this.file, this.modelKey, this.dims);
          copied = (await copyRecords(this.file, layout, records, writer, this.dims, true, turns))!;
        }
      }
      for await (const [hash, vector] of this.added.vectors(setNow)) {
        if (kept(hash)) writer.add(hashAndFloats(hash, vector));
        if (writer.due()) await writer.flush();
        if (turns.due()) await turns.next();
      }
      if (records.length !== this.saved.size || records.some((record, i) => record !== i) || (copied !== undefined && copied.includes(0))) {
        renumbered = new Map();
        let next = 0;
        hashes.forEach((hash, i) => copied![i] === 1 && renumbered!.set(hash, next++));
        await this.numberAdded(renumbered, setNow, kept, turns);
      }
      await writer.finish();
    } catch (e) {
      await writer.abandon();
      throw e;
    }
    // Memory now mirrors the file: pruned entries gone; what was set meanwhile stays added. When every saved record
    // kept its number (the usual case), the map only gains the new ones, in turns: until they are forgotten below
    // they are read from memory, so nothing is read from the file by a number it does not have yet.
    this.layout = writer.layout;
    if (renumbered) this.saved = renumbered;
    else await this.numberAdded(this.saved, setNow, kept, turns);
    // What was set while the file was written stays added, in new slabs; the old ones go.
    await this.added.forgetWritten(setNow, kept, turns);
    this.addedOnly = 0;
    for (const hash of this.added.hashes()) if (!this.saved.has(hash)) this.addedOnly++;
  }

  /** The record numbers of the vectors a save wrote after the saved ones it copied, in turns. */
  private async numberAdded(index: Map<string, number>, written: ReadonlyMap<string, number>, kept: (hash: string) => boolean, turns: TimeSlices): Promise<void> {
    let next = index.size;
    for (const hash of written.keys()) {
      if (kept(hash)) index.set(hash, next++);
      if (turns.due()) await turns.next();
    }
  }
}

/**
 * Copies these records (ascending numbers) of a file into `writer`, reading it a block at a time; returns which
 * were copied (1) or dropped (0). Unless `checkEach`, records are copied as they are and the file's digest is
 * worked out on the way: undefined when it does not hold (the caller copies again, checking each).
 */
async function copyRecords(file: string, layout: Layout, records: readonly number[], writer: RecordWriter, dims: number, checkEach: boolean, turns: TimeSlices): Promise<Uint8Array | undefined> {
  const copied = new Uint8Array(records.length);
  const digest = checkEach ? undefined : createHash('sha256');
  // A file deleted since it was opened (the data folder cleared): its vectors are gone, and are embedded again when needed.
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return copied;
  let next = 0;
  try {
    await eachRecordBlock(handle, layout, async (bytes, first, count) => {
      digest?.update(bytes.subarray(0, count * layout.recordBytes));
      for (; next < records.length && records[next] < first + count; next++) {
        const at = (records[next] - first) * layout.recordBytes;
        if (checkEach && !recordGood(bytes, at, dims, layout.version === VERSION)) continue;
        if (layout.version === VERSION) writer.addRecord(bytes, at);
        else writer.add(bytes.subarray(at, at + HASH_BYTES + 4 * dims));
        copied[next] = 1;
        if (writer.due()) await writer.flush();
      }
      if (turns.due()) await turns.next();
    });
  } finally {
    await handle.close();
  }
  if (digest && !digest.digest().equals(layout.digest!)) return undefined;
  return copied;
}

const align4 = (n: number) => (n + 3) & ~3;
const recordSize = (dims: number, version: number = VERSION) => HASH_BYTES + 4 * dims + (version === VERSION ? CHECK_BYTES : 0);

/** The check of a record's hash and floats: the first bytes of their SHA-256. */
function recordCheck(hashAndFloats: Buffer): Buffer {
  return createHash('sha256').update(hashAndFloats).digest().subarray(0, CHECK_BYTES);
}

/** Whether the record at `at` has finite floats and, `withCheck` (version 2), holds its check. */
function recordGood(bytes: Buffer, at: number, dims: number, withCheck: boolean): boolean {
  const end = at + HASH_BYTES + 4 * dims;
  if (withCheck && !recordCheck(bytes.subarray(at, end)).equals(bytes.subarray(end, end + CHECK_BYTES))) return false;
  return allFinite(floatsAt(bytes, at + HASH_BYTES, dims));
}

function hashAndFloats(hash: string, vector: Float32Array): Buffer {
  const out = Buffer.alloc(HASH_BYTES + 4 * vector.length);
  out.write(hash, 0, HASH_BYTES, 'hex');
  writeFloats(out, HASH_BYTES, vector);
  return out;
}

/**
 * Reads a file's complete records a block at a time, in order: `visit(bytes, first record number, records)`. A file
 * cut short since its layout was read ends early: the records it lost are missing, like damaged ones.
 */
async function eachRecordBlock(handle: FileHandle, layout: Layout, visit: (bytes: Buffer, first: number, count: number) => Promise<void> | void): Promise<void> {
  const bytes = Buffer.alloc(BLOCK_RECORDS * layout.recordBytes);
  for (let first = 0; first < layout.records; first += BLOCK_RECORDS) {
    const wanted = Math.min(BLOCK_RECORDS, layout.records - first);
    const { bytesRead } = await handle.read(bytes, 0, wanted * layout.recordBytes, layout.headerBytes + first * layout.recordBytes);
    const count = Math.floor(bytesRead / layout.recordBytes);
    if (count > 0) await visit(bytes, first, count);
    if (count < wanted) return;
  }
}

/**
 * A version 2 file written to a temporary name, records appended in blocks, its count and digest filled in at the
 * end; `finish` syncs it and renames it into place, so a crash leaves the old file or the new one, never a torn one.
 */
class RecordWriter {
  count = 0;
  private readonly digest = createHash('sha256');
  private readonly block: Buffer;
  private used = 0;
  private at: number;

  private constructor(
    private readonly file: string,
    private readonly temp: string,
    private readonly handle: FileHandle,
    readonly layout: Layout,
  ) {
    this.block = Buffer.alloc(BLOCK_RECORDS * layout.recordBytes);
    this.at = layout.headerBytes;
  }

  static async create(file: string, modelKey: string, dims: number): Promise<RecordWriter> {
    await mkdir(path.dirname(file), { recursive: true });
    // Whatever is in the file's place and is not a file (a folder: damage) would make every save fail.
    const existing = await lstat(file).catch(() => undefined);
    if (existing && !existing.isFile()) await rm(file, { recursive: true, force: true });
    const keyBytes = Buffer.from(modelKey, 'utf8');
    const layout: Layout = { version: VERSION, headerBytes: align4(HEADER_BYTES[VERSION] + keyBytes.length), recordBytes: recordSize(dims), records: 0, intact: false };
    const header = Buffer.alloc(layout.headerBytes);
    MAGIC.copy(header, 0);
    let at = MAGIC.length;
    for (const n of [VERSION, dims, 0, keyBytes.length]) at = header.writeUInt32LE(n, at);
    keyBytes.copy(header, HEADER_BYTES[VERSION]);
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(temp, 'w');
    try {
      await handle.write(header, 0, header.length, 0);
    } catch (e) {
      await handle.close();
      await rm(temp, { force: true });
      throw e;
    }
    return new RecordWriter(file, temp, handle, layout);
  }

  /** Appends a record from its hash and floats (its check worked out here). Flush when `due`. */
  add(hashAndFloats: Buffer): void {
    const at = this.take();
    hashAndFloats.copy(this.block, at);
    recordCheck(hashAndFloats).copy(this.block, at + hashAndFloats.length);
  }

  /** Appends a version 2 record as it is, from `bytes` at `at`. Flush when `due`. */
  addRecord(bytes: Buffer, at: number): void {
    bytes.copy(this.block, this.take(), at, at + this.layout.recordBytes);
  }

  /** Whether the block is full: `flush` before adding more. */
  due(): boolean {
    return this.used === BLOCK_RECORDS;
  }

  async finish(): Promise<void> {
    await this.flush();
    const fields = Buffer.alloc(4);
    fields.writeUInt32LE(this.count);
    await this.handle.write(fields, 0, 4, COUNT_AT);
    const digest = this.digest.digest();
    await this.handle.write(digest, 0, DIGEST_BYTES, DIGEST_AT);
    Object.assign(this.layout, { records: this.count, intact: true, digest });
    await this.handle.sync();
    await this.handle.close();
    try {
      await rename(this.temp, this.file);
    } catch (e) {
      await rm(this.temp, { force: true });
      throw e;
    }
  }

  private take(): number {
    if (this.used === BLOCK_RECORDS) throw new Error('the record block is full: flush it first');
    this.count++;
    return this.used++ * this.layout.recordBytes;
  }

  async abandon(): Promise<void> {
    await this.handle.close().catch(() => {});
    await rm(this.temp, { force: true });
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    const bytes = this.block.subarray(0, this.used * this.layout.recordBytes);
    this.digest.update(bytes);
    await this.handle.write(bytes, 0, bytes.length, this.at);
    this.at += bytes.length;
    this.used = 0;
  }
}

/** Reads a file's header and records: which records are good, or why none of the file can be used. */
async function scan(handle: FileHandle, size: number, modelKey: string, dims: number): Promise<Scanned | string> {
  const fixed = Buffer.alloc(HEADER_BYTES[VERSION]);
  const { bytesRead } = await handle.read(fixed, 0, fixed.length, 0);
  if (bytesRead < HEADER_BYTES[LEGACY_VERSION] || !fixed.subarray(0, MAGIC.length).equals(MAGIC)) return 'not an embedding cache file';
  let at = MAGIC.length;
  const [version, fileDims, count, keyLength] = [0, 1, 2, 3].map(() => ((at += 4), fixed.readUInt32LE(at - 4)));
  if (version !== VERSION && version !== LEGACY_VERSION) return `unsupported cache version ${version}`;
  const fixedHeader = HEADER_BYTES[version];
  if (fixedHeader > bytesRead || fixedHeader + keyLength > size) return 'truncated header';
  const keyBytes = Buffer.alloc(keyLength);
  await handle.read(keyBytes, 0, keyLength, fixedHeader);
  const fileKey = keyBytes.toString('utf8');
  if (fileKey !== modelKey) return `written for another model (${fileKey}, now ${modelKey})`;
  if (fileDims !== dims) return `written for ${fileDims}-d vectors, the model has ${dims}`;
  const headerBytes = align4(fixedHeader + keyLength);
  const recordBytes = recordSize(dims, version);
  const complete = Math.max(0, Math.floor((size - headerBytes) / recordBytes));
  const layout: Layout = { version, headerBytes, recordBytes, records: complete, intact: false };
  if (version === LEGACY_VERSION) {
    const expected = headerBytes + count * recordBytes;
    if (size !== expected) return `${size < expected ? 'truncated' : 'has trailing bytes'} (${size} bytes, expected ${expected} for ${count} entries)`;
    const read = await readRecords(handle, layout, dims, false);
    return read.problem ? `damaged (${read.problem})` : { layout, index: read.index };
  }
  // Records check themselves: a count or length that disagrees only means fewer (or more) of them are complete.
  const wellFormed = complete === count && headerBytes + complete * recordBytes === size;
  const stored = fixed.subarray(DIGEST_AT, DIGEST_AT + DIGEST_BYTES);
  // One pass when the digest holds (the usual case); a second, checking each record, when it does not.
  let read = await readRecords(handle, layout, dims, false, wellFormed ? createHash('sha256') : undefined);
  const intact = wellFormed && read.digest!.equals(stored);
  if (!intact) read = await readRecords(handle, layout, dims, true);
  Object.assign(layout, { intact, digest: Buffer.from(stored) });
  const problems = [...(wellFormed ? [] : [`${size} bytes, ${complete} complete entries of the ${count} listed`]), ...(read.problem ? [read.problem] : [])];
  if (!intact && problems.length === 0) problems.push('file checksum mismatch, every entry checked and kept');
  return { layout, index: read.index, problem: problems.join('; ') || undefined };
}

/**
 * The file's good records (finite floats, the first of any duplicate hash, and when `checkEach` holding their check),
 * by hash; with `digest`, every record's bytes go through it.
 */
async function readRecords(handle: FileHandle, layout: Layout, dims: number, checkEach: boolean, digest?: ReturnType<typeof createHash>): Promise<{ index: Map<string, number>; problem?: string; digest?: Buffer }> {
  const index = new Map<string, number>();
  let damaged = 0;
  let duplicates = 0;
  const turns = new TimeSlices();
  await eachRecordBlock(handle, layout, async (bytes, first, count) => {
    digest?.update(bytes.subarray(0, count * layout.recordBytes));
    for (let r = 0; r < count; r++) {
      const at = r * layout.recordBytes;
      if (!recordGood(bytes, at, dims, checkEach)) {
        damaged++;
        continue;
      }
      const hash = bytes.toString('hex', at, at + HASH_BYTES);
      if (index.has(hash)) duplicates++;
      else index.set(hash, first + r);
    }
    if (turns.due()) await turns.next();
  });
  const problems = [...(damaged ? [`${damaged} damaged entries dropped`] : []), ...(duplicates ? [`${duplicates} duplicate entries dropped`] : [])];
  return { index, ...(problems.length ? { problem: problems.join(', ') } : {}), ...(digest ? { digest: digest.digest() } : {}) };
}

function allFinite(values: Float32Array): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}

/** The floats at `offset`: a view when aligned on a little-endian host, else a copy. */
function floatsAt(bytes: Buffer, offset: number, dims: number): Float32Array {
  if (LITTLE_ENDIAN_HOST && (bytes.byteOffset + offset) % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset + offset, dims);
  const out = new Float32Array(dims);
  for (let k = 0; k < dims; k++) out[k] = bytes.readFloatLE(offset + 4 * k);
  return out;
}

function writeFloats(out: Buffer, offset: number, vector: Float32Array) {
  if (LITTLE_ENDIAN_HOST && (out.byteOffset + offset) % 4 === 0) {
    new Float32Array(out.buffer, out.byteOffset + offset, vector.length).set(vector);
  } else {
    for (let k = 0; k < vector.length; k++) out.writeFloatLE(vector[k], offset + 4 * k);
  }
}
