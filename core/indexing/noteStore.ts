import path from 'node:path';
import type { Chunk } from '../chunking/types.js';
import { hasShownText } from '../chunking/shownText.js';
import type { NoteLink } from '../parse/links.js';
import type { GraphNote } from '../indices/graph/linkGraph.js';
import { eachLine } from '../indices/lineFile.js';
import { writeFileAtomic } from './atomicWrite.js';
import { BlockTexts } from './blockTexts.js';
import { PendingTexts, type PendingText } from './pendingTexts.js';
import { TextLineReader, TextStoreReader, textsFileBeside, type ChunkTexts, type TextLocation } from './textStore.js';
import type { FileDigest } from '../embedding/fileDigest.js';
import { OWN_STRINGS, type StringTable } from '../process/sharedStrings.js';

/**
 * A chunk as the index keeps it: everything but what the note record already holds, `content` and `overlap`
 * (derivable) and its texts, which are in the generation's text store (read them through `NoteStore.texts`).
 */
export type StoredChunk = Omit<Chunk, 'docId' | 'content' | 'overlap' | 'title' | 'aliases' | 'frontmatter' | 'mtime' | 'text' | 'displayText' | 'links'> & {
  /** Where its texts are in the text store (-1 while they are still pending: put since the last save). */
  textAt: number;
  textBytes: number;
  /** Set when the chunk has nothing to show (see `hasShownText`): stored and cited, but neither searchable nor embedded. */
  blank?: true;
};

/**
 * A chunk as the indexer hands it over: with its texts (`displayText` only when it differs from `text`) and its
 * links. `overlap`, if given, is not kept (only `content` holds it, and that is embedded and indexed already), nor
 * are the links: the link graph takes them (`graphNoteOf`) and keeps them.
 */
export type NewChunk = Omit<StoredChunk, 'textAt' | 'textBytes' | 'blank'> & ChunkTexts & Pick<Chunk, 'links'> & { overlap?: string };

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
  /** How the file was read when not as UTF-8 (readNoteFile's notice): the same text saved as UTF-8 drops its warning. */
  notice?: string;
  /** A journal page's day, ISO `YYYY-MM-DD`: the note's time for date filters and listing, instead of its mtime. */
  date?: string;
  /** The note's blocks that carry an `id::`, uuid → text: what `((uuid))` in other notes reads as. */
  blockTexts?: Record<string, string>;
  chunks: StoredChunk[];
}

/** A note record as the indexer makes it: its chunks carry their texts. */
export type NewNoteRecord = Omit<NoteRecord, 'chunks'> & { chunks: NewChunk[] };

export interface ChunkRef {
  note: NoteRecord;
  chunk: StoredChunk;
}

export const NOTES_FILE = 'notes.jsonl';
/** The generation's text store (see textStore.ts). */
export const TEXTS_FILE = path.basename(textsFileBeside(NOTES_FILE));

export class NoteStoreCorruptError extends Error {}

/** Texts are written to the text store in pieces of about this size. */
const TEXT_PIECE_BYTES = 1 << 16;
const NEWLINE = Buffer.from('\n');

/**
 * The indexed notes and their chunks, by path and by chunk id; persisted as one JSON line per note, with the chunk
 * texts in a text store beside it. Only what ranking and filters need stays in memory.
 */
export class NoteStore {
  private readonly notes = new Map<string, NoteRecord>();
  private readonly chunks = new Map<string, ChunkRef>();
  /** Texts of the chunks put since the last save: readable at once, written by the next save. */
  private readonly pending: PendingTexts<StoredChunk>;
  /** The text store the saved chunks' locations point into: the generation loaded or last saved. */
  private textStore?: TextStoreReader;
  /** One copy of each header path and tag list: most chunks of a note (and many notes) share theirs. */
  private readonly lists = new Map<string, string[]>();
  /** Files that could not be indexed, with the reason (unreadable, binary...). */
  readonly failures = new Map<string, string>();
  /** Vault-wide block texts and who references them, kept in step with the records. */
  readonly blocks = new BlockTexts();

  /** `scratchDir`: where pending texts past a few MB wait for the save (see PendingTexts); without it they stay in memory. */
  constructor(textsFile?: string, scratchDir?: string, holdChars?: number) {
    this.textStore = textsFile === undefined ? undefined : new TextStoreReader(textsFile);
    this.pending = new PendingTexts(scratchDir, holdChars);
  }

  /** Pending texts: how many, how many characters of them are in memory, how many wait in a scratch file. */
  get pendingTexts(): { count: number; charsHeld: number; inScratch: number } {
    return { count: this.pending.size, charsHeld: this.pending.charsHeld, inScratch: this.pending.inScratch };
  }

  /** Waits for pending texts being written to a scratch file (tests). */
  pendingSettled(): Promise<void> {
    return this.pending.settled();
  }

  /** The store is replaced (a rebuild took over): its pending texts go, their scratch file once no read uses it. */
  dispose(): void {
    this.pending.dispose();
    this.textStore?.retire();
  }

  /** This store is the index in use: its text store file is held open from now on (see TextStoreReader). */
  holdTexts(): void {
    this.textStore?.hold();
  }

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

  /** Adds or replaces a note, keeping its chunks' texts until the next save; returns the ids of the chunks it replaced. */
  put(record: NewNoteRecord): string[] {
    const texts: ChunkTexts[] = [];
    const chunks = record.chunks.map(({ text, displayText, overlap: _overlap, links: _links, ...chunk }) => {
      const shown = displayText === undefined ? { text } : { text, displayText };
      texts.push(shown);
      return { ...chunk, textAt: -1, textBytes: 0, ...(hasShownText(shown) ? {} : { blank: true as const }) };
    });
    const stored: NoteRecord = { ...record, chunks };
    const removed = this.add(stored);
    chunks.forEach((chunk, i) => this.pending.set(chunk, texts[i]!));
    return removed;
  }

  /**
   * Whether the store holds this record already, as `put` would store it (texts aside: each chunk's hash covers
   * them). Compared in the form saved, JSON: a record read back from the notes file has no other.
   */
  holds(record: NewNoteRecord): boolean {
    const held = this.notes.get(record.path);
    if (!held || held.chunks.length !== record.chunks.length) return false;
    const { chunks: _heldChunks, ...heldNote } = held;
    const { chunks: _chunks, ...note } = record;
    if (JSON.stringify(heldNote) !== JSON.stringify(note)) return false;
    return record.chunks.every(({ text: _text, displayText: _displayText, overlap: _overlap, links: _links, ...chunk }, i) => {
      const { textAt: _textAt, textBytes: _textBytes, blank: _blank, ...heldChunk } = held.chunks[i]!;
      return JSON.stringify(heldChunk) === JSON.stringify(chunk);
    });
  }

  /** Removes a note; returns the ids of its chunks. */
  delete(notePath: string): string[] {
    const record = this.notes.get(notePath);
    if (!record) return [];
    this.notes.delete(notePath);
    for (const chunk of record.chunks) {
      this.chunks.delete(chunk.id);
      this.pending.delete(chunk);
    }
    this.blocks.remove(record);
    return record.chunks.map((c) => c.id);
  }

  clear(): void {
    this.notes.clear();
    this.chunks.clear();
    this.pending.clear();
    this.lists.clear();
    this.failures.clear();
    this.blocks.clear();
  }

  /**
   * The texts of these chunks, in order: read from the text store (see TextStoreReader), those put since the last
   * save from memory. Where each one is is looked up now, before any await: a save meanwhile moves nothing read here.
   */
  texts(chunks: readonly StoredChunk[]): Promise<ChunkTexts[]> {
    const textStore = this.textStore;
    const saved = chunks.flatMap((chunk, i) => (this.pending.has(chunk) ? [] : [{ i, at: chunk.textAt, bytes: chunk.textBytes }]));
    const pending = saved.length < chunks.length ? this.pending.read(chunks) : undefined;
    const lost = saved.find((s) => s.at < 0);
    if (lost || (saved.length && !textStore)) {
      void pending?.catch(() => {});
      return Promise.reject(new Error(`the texts of chunk ${chunks[lost?.i ?? saved[0]!.i]!.id} are not in the index (removed meanwhile)`));
    }
    const fromStore = saved.length ? textStore!.read(saved) : Promise.resolve([]);
    return Promise.all([pending ?? Promise.resolve(chunks.map(() => undefined)), fromStore]).then(([out, read]) => {
      saved.forEach((s, j) => (out[s.i] = read[j]));
      return out as ChunkTexts[];
    });
  }

  /**
   * Writes the store into a generation folder, atomically file by file: the text store (pending texts, and the saved
   * ones copied from the current text store), then the notes file pointing into it. `commit`, called once the
   * manifest names the generation, moves reads to its text store and drops the pending texts it holds.
   */
  async save(dir: string): Promise<{ files: Record<string, FileDigest>; commit: () => void }> {
    // What is saved is fixed now: a note put or removed while the files are written waits for the next save.
    const records = [...this.notes.values()];
    const pending = this.pending.snapshot();
    const failures = Object.fromEntries(this.failures);
    const placed = new Map<StoredChunk, TextLocation>();
    const textsFile = path.join(dir, TEXTS_FILE);
    const texts = await writeFileAtomic(textsFile, this.textPieces(records, pending, placed)).finally(pending.done);
    const notes = await writeFileAtomic(
      path.join(dir, NOTES_FILE),
      (function* () {
        yield `${JSON.stringify({ failures })}\n`;
        for (const record of records) {
          const chunks = record.chunks.map((chunk) => ({ ...chunk, textAt: placed.get(chunk)!.at, textBytes: placed.get(chunk)!.bytes }));
          yield `${JSON.stringify({ ...record, chunks })}\n`;
        }
      })(),
    );
    const commit = () => {
      for (const [chunk, { at, bytes }] of placed) {
        chunk.textAt = at;
        chunk.textBytes = bytes;
        this.pending.delete(chunk);
      }
      this.textStore?.retire();
      this.textStore = new TextStoreReader(textsFile);
      this.textStore.hold();
    };
    return { files: { [NOTES_FILE]: notes, [TEXTS_FILE]: texts }, commit };
  }

  /** The text store's bytes, in pieces of about TEXT_PIECE_BYTES; records where each chunk's line went in `placed`. */
  private async *textPieces(records: NoteRecord[], pending: { texts: Map<StoredChunk, PendingText>; line: (text: PendingText) => Promise<Buffer> }, placed: Map<StoredChunk, TextLocation>): AsyncGenerator<Buffer> {
    // Through the reader's own handle: the generation's file may be gone from the folder (see TextStoreReader).
    const borrowed = await this.textStore?.borrow();
    const lines = this.textStore === undefined ? undefined : new TextLineReader(this.textStore.file, borrowed?.handle);
    let piece: Buffer[] = [];
    let pieceBytes = 0;
    let at = 0;
    try {
      for (const record of records) {
        for (const chunk of record.chunks) {
          const texts = pending.texts.get(chunk);
          if (!texts && (!lines || chunk.textAt < 0)) throw new Error(`the texts of chunk ${chunk.id} are missing`);
          const line = texts ? await pending.line(texts) : await lines!.line({ at: chunk.textAt, bytes: chunk.textBytes });
          placed.set(chunk, { at, bytes: line.length });
          at += line.length + 1;
          piece.push(line, NEWLINE);
          pieceBytes += line.length + 1;
          if (pieceBytes >= TEXT_PIECE_BYTES) {
            yield Buffer.concat(piece);
            piece = [];
            pieceBytes = 0;
          }
        }
      }
      if (piece.length) yield Buffer.concat(piece);
    } finally {
      await lines?.close();
      borrowed?.release();
    }
  }

  /**
   * Loads what `save` wrote: the notes file's bytes (already checked against the manifest's digest) and its text
   * store. `strings`: where chunk ids are shared with the indices loaded alongside (see SharedStrings).
   */
  static async read(bytes: Uint8Array, textsFile: string, scratchDir?: string, strings: StringTable = OWN_STRINGS): Promise<NoteStore> {
    const store = new NoteStore(textsFile, scratchDir);
    let lineNumber = 0;
    let failures: Record<string, string> | undefined;
    try {
      await eachLine(bytes, (line, n) => {
        lineNumber = n;
        const value = JSON.parse(line) as unknown;
        if (!failures) {
          failures = (value as { failures?: Record<string, string> } | null)?.failures;
          if (n !== 1 || !failures) throw new Error('missing header line');
          return;
        }
        const record = value as NoteRecord;
        if (typeof record?.path !== 'string' || !Array.isArray(record.chunks)) throw new Error('not a note record');
        if (!record.chunks.every((c) => Number.isSafeInteger(c?.textAt) && c.textAt >= 0 && Number.isSafeInteger(c.textBytes) && c.textBytes >= 0)) {
          throw new Error('a chunk without the place of its texts');
        }
        record.path = strings.of(record.path);
        record.title = strings.of(record.title);
        // A chunk's id is in the keyword and vector indices too. Anchors and headings recur as well, but sharing
        // them cost more load time than the memory was worth (README, Scale: stop 39).
        for (const chunk of record.chunks) chunk.id = strings.of(chunk.id);
        store.add(record);
      });
      if (!failures) throw new Error('missing header line');
      // After the notes: adding a note clears its entry, and an indexed note's entry is a warning that stays with it
      // (read as Windows-1252, chunked as plain text) until the note is chunked again.
      for (const [p, reason] of Object.entries(failures)) store.failures.set(p, reason);
      store.blocks.takeChanged();
    } catch (error) {
      throw new NoteStoreCorruptError(`${NOTES_FILE}:${Math.max(1, lineNumber)}: ${(error as Error).message}`);
    }
    return store;
  }

  /** Adds or replaces a note whose chunks' texts are in place (loaded, or pending); returns the ids of the chunks it replaced. */
  private add(record: NoteRecord): string[] {
    const removed = this.delete(record.path);
    for (const chunk of record.chunks) {
      // Stores written before the link graph alone kept links have them on every chunk.
      if ('links' in chunk) delete (chunk as { links?: unknown }).links;
      chunk.headerPath = this.shared(chunk.headerPath);
      chunk.tags = this.shared(chunk.tags);
      for (const part of chunk.parts ?? []) part.headerPath = this.shared(part.headerPath);
    }
    this.notes.set(record.path, record);
    for (const chunk of record.chunks) this.chunks.set(chunk.id, { note: record, chunk });
    this.blocks.add(record);
    this.failures.delete(record.path);
    return removed;
  }

  /** The one copy of a list of strings (never changed in place: shared by every chunk that has it). */
  private shared(list: string[]): string[] {
    const key = list.join('\0');
    const known = this.lists.get(key);
    if (known) return known;
    this.lists.set(key, list);
    return list;
  }
}

/** Whether a chunk has text to show (see `hasShownText`): only such chunks are searchable and embedded. */
export function isShown(chunk: Pick<StoredChunk, 'blank'>): boolean {
  return chunk.blank !== true;
}

/** The pieces of the section a chunk is in, in order: itself alone unless the chunker force-split the section. */
export function sectionPieces(note: Pick<NoteRecord, 'chunks'>, chunk: StoredChunk): StoredChunk[] {
  if (chunk.sub === null) return [chunk];
  const section = sectionKey(chunk.id);
  return note.chunks.filter((c) => c.sub !== null && sectionKey(c.id) === section);
}

/** `docId#<ordinal>` of a chunk id `docId#<ordinal>[_sub_<n>]@<hash>`. */
function sectionKey(id: string): string {
  return id.slice(0, id.lastIndexOf('@')).replace(/_sub_\d+$/, '');
}

/** The links of all chunks of a note. */
export function noteLinks(record: { chunks: ReadonlyArray<Pick<NewChunk, 'links'>> }): NoteLink[] {
  return record.chunks.flatMap((c) => c.links);
}

/** A note as the link graph takes it: its links, and its block ids and references (a `((uuid))` links to the block's note). */
export function graphNoteOf(record: Pick<NoteRecord, 'path' | 'title' | 'aliases'> & { chunks: ReadonlyArray<Pick<NewChunk, 'links' | 'blockIds' | 'blockRefs'>> }): GraphNote {
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
