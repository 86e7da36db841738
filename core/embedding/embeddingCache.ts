/**
 * Embedding cache file, little-endian:
 *
 *   magic "CAIRNEMB" | u32 version | u32 dims | u32 count | u32 key bytes | model key (UTF-8) | zero padding to 4
 *   count records of: 8-byte hash (the chunk hash's 16 hex digits) | dims float32
 *
 * The model key (modelId|dtype|fingerprint) and dims are in the header, so a cache written for another model is
 * never mistaken for this one's.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { endianness } from 'node:os';
import path from 'node:path';

const MAGIC = Buffer.from('CAIRNEMB', 'latin1');
const VERSION = 1;
const FIXED_HEADER_BYTES = MAGIC.length + 4 * 4;
const HASH_BYTES = 8;
const HASH = /^[0-9a-f]{16}$/;
// Float32Array views need 4-byte alignment; little-endian hosts (all supported ones) copy records in bulk.
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/** Persisted vectors keyed by (model key, dims, content hash): re-chunking or restarting only embeds text never embedded before. */
export class EmbeddingCache {
  /** Why an existing file was discarded (corrupt, truncated, another model), if it was. */
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

  /** Missing file → empty; corrupt, truncated or another model's file → empty with `recovered` set. Throws only for I/O errors. */
  static async open(file: string, modelKey: string, dims: number): Promise<EmbeddingCache> {
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
    const empty = { vectors: new Float32Array(0), index: new Map<string, number>() };
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new EmbeddingCache(file, modelKey, dims, empty);
      throw e;
    }
    const decoded = decode(bytes, modelKey, dims);
    return typeof decoded === 'string'
      ? new EmbeddingCache(file, modelKey, dims, empty, `${path.basename(file)}: ${decoded}; starting with an empty cache`)
      : new EmbeddingCache(file, modelKey, dims, decoded);
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
    // A copy: the caller's vector may be a view into a larger buffer it reuses or transfers.
    this.added.set(hash, Float32Array.from(vector));
  }

  /**
   * Atomic (temp + rename). Keeps every entry in `keep` and drops others only when unreferenced entries outnumber
   * referenced ones (so flipping a config back and forth stays cheap).
   */
  async save(keep?: ReadonlySet<string>): Promise<void> {
    let hashes = this.hashes();
    if (keep) {
      const referenced = hashes.filter((h) => keep.has(h));
      if (hashes.length - referenced.length > referenced.length) hashes = referenced;
    }
    const keyBytes = Buffer.from(this.modelKey, 'utf8');
    const headerBytes = align4(FIXED_HEADER_BYTES + keyBytes.length);
    const recordBytes = HASH_BYTES + 4 * this.dims;
    const out = Buffer.alloc(headerBytes + hashes.length * recordBytes);
    MAGIC.copy(out, 0);
    let at = MAGIC.length;
    for (const n of [VERSION, this.dims, hashes.length, keyBytes.length]) at = out.writeUInt32LE(n, at);
    keyBytes.copy(out, at);
    const vectors = new Float32Array(hashes.length * this.dims);
    at = headerBytes;
    hashes.forEach((hash, i) => {
      out.write(hash, at, HASH_BYTES, 'hex');
      const vector = this.get(hash)!;
      vectors.set(vector, i * this.dims);
      writeFloats(out, at + HASH_BYTES, vector);
      at += recordBytes;
    });

    await mkdir(path.dirname(this.file), { recursive: true });
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
    // Memory now mirrors the file: one block again, pruned entries gone.
    this.loaded = vectors;
    this.loadedIndex = new Map(hashes.map((h, i) => [h, i]));
    this.added.clear();
    this.addedOnly = 0;
  }

  private hashes(): string[] {
    const all = new Set(this.loadedIndex.keys());
    for (const hash of this.added.keys()) all.add(hash);
    return [...all];
  }
}

const align4 = (n: number) => (n + 3) & ~3;

/** The file's vectors in one block, or why the file cannot be used. */
function decode(bytes: Buffer, modelKey: string, dims: number): { vectors: Float32Array; index: Map<string, number> } | string {
  if (bytes.length < FIXED_HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return 'not an embedding cache file';
  let at = MAGIC.length;
  const [version, fileDims, count, keyLength] = [0, 1, 2, 3].map(() => ((at += 4), bytes.readUInt32LE(at - 4)));
  if (version !== VERSION) return `unsupported cache version ${version}`;
  if (FIXED_HEADER_BYTES + keyLength > bytes.length) return 'truncated header';
  const fileKey = bytes.toString('utf8', FIXED_HEADER_BYTES, FIXED_HEADER_BYTES + keyLength);
  if (fileKey !== modelKey) return `written for another model (${fileKey}, now ${modelKey})`;
  if (fileDims !== dims) return `written for ${fileDims}-d vectors, the model has ${dims}`;
  const headerBytes = align4(FIXED_HEADER_BYTES + keyLength);
  const recordBytes = HASH_BYTES + 4 * dims;
  const expected = headerBytes + count * recordBytes;
  if (bytes.length !== expected) return `${bytes.length < expected ? 'truncated' : 'has trailing bytes'} (${bytes.length} bytes, expected ${expected} for ${count} entries)`;

  const vectors = new Float32Array(count * dims);
  const index = new Map<string, number>();
  for (let i = 0, offset = headerBytes; i < count; i++, offset += recordBytes) {
    index.set(bytes.toString('hex', offset, offset + HASH_BYTES), i);
    readFloats(bytes, offset + HASH_BYTES, vectors.subarray(i * dims, (i + 1) * dims));
  }
  if (index.size !== count) return 'duplicate entries';
  for (let i = 0; i < vectors.length; i++) if (!Number.isFinite(vectors[i])) return 'non-finite vector values';
  return { vectors, index };
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
