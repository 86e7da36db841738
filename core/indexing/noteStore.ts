import path from 'node:path';
import type { Chunk } from '../chunking/types.js';
import type { NoteLink } from '../parse/links.js';
import type { GraphNote } from '../indices/graph/linkGraph.js';
import { eachLine } from '../indices/lineFile.js';
import { writeFileAtomic } from './atomicWrite.js';
import { BlockTexts } from './blockTexts.js';
import type { FileDigest } from '../embedding/fileDigest.js';

/**
 * A chunk as persisted: everything but what the note record already holds, and `content` (derivable); `displayText`
 * only when it differs from `text` (read it through `shownText`).
 */
export type StoredChunk = Omit<Chunk, 'docId' | 'content' | 'title' | 'aliases' | 'frontmatter' | 'mtime' | 'displayText'> & { displayText?: string };

/** One indexed note: file identity (to skip unchanged files), metadata, and its chunks. */
export interface NoteRecord {
  path: string;
  size: number;
  mtimeMs: number;
  /** SHA-256 of the note text: an unchanged text is never re-chunked, whatever its mtime. */
  textHash: string;
  title: string;
  aliases: string[];
  tags: string[];
  frontmatter: Record<string, unknown>;
  frontmatterError?: string;
  /** A journal page's day, ISO `YYYY-MM-DD`: the note's time for date filters and listing, instead of its mtime. */
  date?: string;
  /** The note's blocks that carry an `id::`, uuid → text: what `((uuid))` in other notes reads as. */
  blockTexts?: Record<string, string>;
  chunks: StoredChunk[];
}

export interface ChunkRef {
  note: NoteRecord;
  chunk: StoredChunk;
}

export const NOTES_FILE = 'notes.jsonl';

export class NoteStoreCorruptError extends Error {}

/** The indexed notes and their chunks, by path and by chunk id; persisted as one JSON line per note. */
export class NoteStore {
  private readonly notes = new Map<string, NoteRecord>();
  private readonly chunks = new Map<string, ChunkRef>();
  /** Files that could not be indexed, with the reason (unreadable, binary...). */
  readonly failures = new Map<string, string>();
  /** Vault-wide block texts and who references them, kept in step with the records. */
  readonly blocks = new BlockTexts();

  get noteCount(): number {
    return this.notes.size;
  }

  get chunkCount(): number {
    return this.chunks.size;
  }

  note(notePath: string): NoteRecord | undefined {
    return this.notes.get(notePath);
  }

  chunk(id: string): ChunkRef | undefined {
    return this.chunks.get(id);
  }

  paths(): IterableIterator<string> {
    return this.notes.keys();
  }

  allNotes(): IterableIterator<NoteRecord> {
    return this.notes.values();
  }

  /** Adds or replaces a note; returns the ids of the chunks it replaced. */
  put(record: NoteRecord): string[] {
    const removed = this.delete(record.path);
    this.notes.set(record.path, record);
    for (const chunk of record.chunks) this.chunks.set(chunk.id, { note: record, chunk });
    this.blocks.add(record);
    this.failures.delete(record.path);
    return removed;
  }

  /** Removes a note; returns the ids of its chunks. */
  delete(notePath: string): string[] {
    const record = this.notes.get(notePath);
    if (!record) return [];
    this.notes.delete(notePath);
    for (const chunk of record.chunks) this.chunks.delete(chunk.id);
    this.blocks.remove(record);
    return record.chunks.map((c) => c.id);
  }

  clear(): void {
    this.notes.clear();
    this.chunks.clear();
    this.failures.clear();
    this.blocks.clear();
  }

  /** Writes the store atomically, a line per note; returns the file's digest (recorded in the manifest). */
  save(dir: string): Promise<FileDigest> {
    const store = this;
    return writeFileAtomic(
      path.join(dir, NOTES_FILE),
      (function* () {
        yield `${JSON.stringify({ failures: Object.fromEntries(store.failures) })}\n`;
        for (const record of store.notes.values()) yield `${JSON.stringify(record)}\n`;
      })(),
    );
  }

  /** Loads what `save` wrote (its bytes, already checked against the manifest's digest). */
  static async read(bytes: Uint8Array): Promise<NoteStore> {
    const store = new NoteStore();
    let lineNumber = 0;
    let header = false;
    try {
      await eachLine(bytes, (line, n) => {
        lineNumber = n;
        const value = JSON.parse(line) as unknown;
        if (!header) {
          const failures = (value as { failures?: Record<string, string> } | null)?.failures;
          if (n !== 1 || !failures) throw new Error('missing header line');
          for (const [p, reason] of Object.entries(failures)) store.failures.set(p, reason);
          header = true;
          return;
        }
        const record = value as NoteRecord;
        if (typeof record?.path !== 'string' || !Array.isArray(record.chunks)) throw new Error('not a note record');
        store.put(record);
      });
      if (!header) throw new Error('missing header line');
      store.blocks.takeChanged();
    } catch (error) {
      throw new NoteStoreCorruptError(`${NOTES_FILE}:${Math.max(1, lineNumber)}: ${(error as Error).message}`);
    }
    return store;
  }
}

/** The links of all chunks of a note. */
export function noteLinks(record: NoteRecord): NoteLink[] {
  return record.chunks.flatMap((c) => c.links);
}

/** A note as the link graph takes it: its links, and its block ids and references (a `((uuid))` links to the block's note). */
export function graphNoteOf(record: NoteRecord): GraphNote {
  return {
    path: record.path,
    title: record.title,
    aliases: record.aliases,
    links: noteLinks(record),
    blockIds: [...new Set(record.chunks.flatMap((c) => c.blockIds ?? []))],
    blockRefs: [...new Set(record.chunks.flatMap((c) => c.blockRefs ?? []))],
  };
}

/** A note's time for date filters and listing: a journal page's day (local midnight), else its file's mtime. */
export function noteTime(record: Pick<NoteRecord, 'date' | 'mtimeMs'>): number {
  if (record.date) {
    const [year, month, day] = record.date.split('-').map(Number);
    const time = new Date(year, month - 1, day).getTime();
    if (!Number.isNaN(time)) return time;
  }
  return record.mtimeMs;
}
