import { createHash, randomBytes } from 'node:crypto';
import { open, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { CHUNKER_VERSION } from '../chunking/noteChunker.js';
import type { OutlineUse } from '../chunking/types.js';
import { OUTLINE_FORMAT } from '../chunking/outlineCodec.js';
import { GRAMMAR_VERSION } from '../parse/markdownTree.js';
import { writeFileAtomic } from './atomicWrite.js';

/** The data folder's outline cache folder. */
export const OUTLINES_DIR = 'outlines';
/** Outlines per segment file: about one indexing batch. */
const SEGMENT_RECORDS = 500;
const MAGIC = 'COL1';
const HASH_BYTES = 32;
/** Table entry: text hash, payload offset, payload length. */
const ENTRY_BYTES = HASH_BYTES + 8;

/** What cached outlines were made by (a file-name prefix): outlines of another grammar, chunker or encoding are never read. */
export function outlineCacheVersion(grammarVersion: string, chunkerVersion: number, outlineFormat: number): string {
  return createHash('sha256').update(`${grammarVersion}|chunker ${chunkerVersion}|outline ${outlineFormat}`).digest('hex').slice(0, 12);
}

export const OUTLINE_CACHE_VERSION = outlineCacheVersion(GRAMMAR_VERSION, CHUNKER_VERSION, OUTLINE_FORMAT);

interface Located {
  segment: string;
  offset: number;
  length: number;
}

/**
 * Each note's parse outline (see `outlineCodec.ts`) by the SHA-256 of its text, so that a `[chunking]` change re-packs
 * sections instead of parsing every note again. Kept in immutable segment files (`<version>-<random>.seg`: a table of
 * hashes, offsets and lengths, then the encoded outlines), one per `flush`; only the tables are held in memory, an
 * outline is read when its note is chunked. It is a cache: a segment missing, damaged or of another version is a miss,
 * and no failure here fails indexing. Segments of other versions are deleted; `retain` rewrites the segments when
 * most of what they hold is no longer in the index.
 */
export class OutlineCache {
  private readonly located = new Map<string, Located>();
  /** Records held by each segment file (dead ones included): what `retain` weighs. */
  private readonly segmentRecords = new Map<string, number>();
  private readonly pending = new Map<string, string>();
  private loading?: Promise<void>;

  constructor(
    private readonly dir: string,
    private readonly version = OUTLINE_CACHE_VERSION,
  ) {}

  /** The encoded outline of the text with this SHA-256 (hex), if cached. */
  async get(textHash: string): Promise<string | undefined> {
    const pending = this.pending.get(textHash);
    if (pending !== undefined) return pending;
    await this.load();
    const at = this.located.get(textHash);
    if (!at) return undefined;
    try {
      const handle = await open(path.join(this.dir, at.segment), 'r');
      try {
        const bytes = Buffer.alloc(at.length);
        const { bytesRead } = await handle.read(bytes, 0, at.length, at.offset);
        return bytesRead === at.length ? bytes.toString('utf8') : undefined;
      } finally {
        await handle.close();
      }
    } catch {
      // Deleted by another process's `retain`, say: parse again.
      this.located.delete(textHash);
      return undefined;
    }
  }

  /** How the chunker uses the cache for the text with this hash: its outline if cached, and where to keep a new one. */
  async useFor(textHash: string): Promise<OutlineUse> {
    return { cached: await this.get(textHash), keep: (encoded) => this.put(textHash, encoded) };
  }

  /** Remembers an outline; written by the next `flush`. */
  put(textHash: string, encoded: string): void {
    this.pending.set(textHash, encoded);
  }

  /** Writes the outlines put since the last flush as new segment files. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    await this.load();
    const records = [...this.pending];
    this.pending.clear();
    for (let from = 0; from < records.length; from += SEGMENT_RECORDS) await this.writeSegment(records.slice(from, from + SEGMENT_RECORDS));
  }

  /**
   * Forgets the outlines of texts no longer indexed; when the segment files hold more than twice the live outlines,
   * rewrites the live ones into new segments and deletes the old (a vault that changes keeps its cache small).
   */
  async retain(live: ReadonlySet<string>): Promise<void> {
    await this.flush();
    for (const hash of this.located.keys()) if (!live.has(hash)) this.located.delete(hash);
    const records = [...this.segmentRecords.values()].reduce((a, b) => a + b, 0);
    if (records <= 2 * this.located.size + SEGMENT_RECORDS) return;
    const old = [...this.segmentRecords.keys()];
    const liveIn = new Map<string, Array<[string, Located]>>();
    for (const entry of this.located) {
      if (!liveIn.has(entry[1].segment)) liveIn.set(entry[1].segment, []);
      liveIn.get(entry[1].segment)!.push(entry);
    }
    for (const segment of old) {
      const bytes = await readFile(path.join(this.dir, segment)).catch(() => undefined);
      if (bytes) for (const [hash, at] of liveIn.get(segment) ?? []) this.pending.set(hash, bytes.toString('utf8', at.offset, at.offset + at.length));
      if (this.pending.size >= SEGMENT_RECORDS) await this.flush();
    }
    await this.flush();
    for (const segment of old) {
      this.segmentRecords.delete(segment);
      await rm(path.join(this.dir, segment), { force: true }).catch(() => {});
    }
  }

  /** Reads the segments' tables, once; deletes segments of other versions (and temp files left by a crash). */
  private load(): Promise<void> {
    this.loading ??= (async () => {
      const names = await readdir(this.dir).catch(() => [] as string[]);
      for (const name of names) {
        if (name.startsWith(`${this.version}-`) && name.endsWith('.seg')) await this.readTable(name);
        else await rm(path.join(this.dir, name), { recursive: true, force: true }).catch(() => {});
      }
    })();
    return this.loading;
  }

  private async readTable(segment: string): Promise<void> {
    try {
      const handle = await open(path.join(this.dir, segment), 'r');
      try {
        const head = Buffer.alloc(8);
        await handle.read(head, 0, 8, 0);
        if (head.toString('latin1', 0, 4) !== MAGIC) return;
        const count = head.readUInt32LE(4);
        const table = Buffer.alloc(count * ENTRY_BYTES);
        const { bytesRead } = await handle.read(table, 0, table.length, 8);
        if (bytesRead !== table.length) return;
        for (let i = 0; i < count; i++) {
          const at = i * ENTRY_BYTES;
          const hash = table.toString('hex', at, at + HASH_BYTES);
          this.located.set(hash, { segment, offset: table.readUInt32LE(at + HASH_BYTES), length: table.readUInt32LE(at + HASH_BYTES + 4) });
        }
        this.segmentRecords.set(segment, count);
      } finally {
        await handle.close();
      }
    } catch {
      // An unreadable segment is a miss for its notes.
    }
  }

  private async writeSegment(records: Array<[string, string]>): Promise<void> {
    const payloads = records.map(([, encoded]) => Buffer.from(encoded, 'utf8'));
    const head = Buffer.alloc(8 + records.length * ENTRY_BYTES);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(records.length, 4);
    let offset = head.length;
    const segment = `${this.version}-${randomBytes(6).toString('hex')}.seg`;
    const located: Array<[string, Located]> = [];
    records.forEach(([hash, ], i) => {
      const at = 8 + i * ENTRY_BYTES;
      head.write(hash, at, HASH_BYTES, 'hex');
      head.writeUInt32LE(offset, at + HASH_BYTES);
      head.writeUInt32LE(payloads[i].length, at + HASH_BYTES + 4);
      located.push([hash, { segment, offset, length: payloads[i].length }]);
      offset += payloads[i].length;
    });
    try {
      await writeFileAtomic(path.join(this.dir, segment), [head, ...payloads]);
    } catch {
      return;
    }
    for (const [hash, at] of located) this.located.set(hash, at);
    this.segmentRecords.set(segment, records.length);
  }
}
