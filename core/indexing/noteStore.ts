import path from 'node:path';
import type { Chunk } from '../chunking/types.js';
import { hasShownText } from '../chunking/shownText.js';
import type { NoteLink } from '../parse/links.js';
import type { GraphNote } from '../indices/graph/linkGraph.js';
import { TimeSlices } from '../process/timeSlices.js';
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

/** The notes file's first line: counts that let its notes be read when first asked for (see `NoteStore.read`). */
interface NotesHeader {
  failures: Record<string, string>;
  /** Chunks, and chunks with text to show (searchable), in all its notes. */
  chunks: number;
  searchable: number;
  /** The notes' front matter errors, by path (the status lists them before every note is read). */
  frontmatterErrors: Record<string, string>;
}

/** A note of a loaded notes file not parsed yet: its line, and the line's number (for errors). */
interface UnreadNote {
  line: Uint8Array;
  number: number;
}

/**
 * The indexed notes and their chunks, by path and by chunk id; persisted as one JSON line per note, with the chunk
 * texts in a text store beside it. Only what ranking and filters need stays in memory.
 */
export class NoteStore {
  private readonly notes = new Map<string, NoteRecord>();
  private readonly chunks = new Map<string, ChunkRef>();
  /**
   * Notes of the loaded notes file not parsed yet. A loaded store parses a note when it is first asked for, and all
   * of them in `readAll` (which an indexing pass and a save await, and which anything that walks every note runs
   * first): the first search of a fresh process needs a few hundred notes, and parsing all 4,903 of the 50k scale
   * vault was a fifth of the time to its first answer. Only reads happen meanwhile: every change is made by an
   * indexing pass.
   */
  private readonly unread = new Map<string, UnreadNote>();
  /** What the unread notes hold, from the header: counted down as they are parsed, zero once all are. */
  private unreadChunks = 0;
  private unreadSearchable = 0;
  private readonly unreadFrontmatterErrors = new Map<string, string>();
  /** Where the unread notes' ids are shared with the other indices (see SharedStrings): dropped once all are read. */
  private unreadStrings: StringTable = OWN_STRINGS;
  private readingAll?: Promise<void>;
  /** Texts of the chunks put since the last save: readable at once, written by the next save. */
  private readonly pending: PendingTexts<StoredChunk>;
  /** The text store the saved chunks' locations point into: the generation loaded or last saved. */
  private textStore?: TextStoreReader;
  /** One copy of each header path and tag list: most chunks of a note (and many notes) share theirs. */
  private readonly lists = new Map<string, string[]>();
  private empty?: string[];
  /** Files that could not be indexed, with the reason (unreadable, binary...). */
  readonly failures = new Map<string, string>();
  /** Vault-wide block texts and who references them, kept in step with the records (see `blocks`). */
  private readonly blockTexts = new BlockTexts();

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

  /** Vault-wide block texts and who references them: every note defining one is read first. */
  get blocks(): BlockTexts {
    this.readAllNow();
    return this.blockTexts;
  }

  get noteCount(): number {
    return this.notes.size + this.unread.size;
  }

  get chunkCount(): number {
    return this.chunks.size + this.unreadChunks;
  }

  /** Chunks with text to show: those the keyword and vector indices hold. */
  get searchableCount(): number {
    let count = this.unreadSearchable;
    for (const { chunk } of this.chunks.values()) if (isShown(chunk)) count++;
    return count;
  }

  note(notePath: string): NoteRecord | undefined {
    return this.notes.get(notePath) ?? this.readOne(notePath);
  }

  chunk(id: string): ChunkRef | undefined {
    const known = this.chunks.get(id);
    if (known || this.unread.size === 0) return known;
    // A chunk id is its note's path, `#`, and what follows holds no `#` (see Chunk.id).
    const hash = id.lastIndexOf('#');
    if (hash > 0) this.readOne(id.slice(0, hash));
    return this.chunks.get(id);
  }

  /** The notes' paths (a copy: asking for a note while walking them reads it). */
  paths(): IterableIterator<string> {
    return [...this.notes.keys(), ...this.unread.keys()].values();
  }

  /** Every note, read first if need be (in one go: an indexing pass reads them in turns beforehand, see readAll). */
  allNotes(): IterableIterator<NoteRecord> {
    this.readAllNow();
    return this.notes.values();
  }

  /** Notes whose front matter could not be read, with the reason (unread notes' from the notes file's header). */
  frontmatterErrors(): Array<{ path: string; reason: string }> {
    const errors: Array<{ path: string; reason: string }> = [];
    for (const note of this.notes.values()) if (note.frontmatterError) errors.push({ path: note.path, reason: note.frontmatterError });
    for (const [notePath, reason] of this.unreadFrontmatterErrors) errors.push({ path: notePath, reason });
    return errors;
  }

  /** Parses every note not read yet, in turns; rejects with NoteStoreCorruptError when the file's header disagrees. */
  readAll(): Promise<void> {
    if (this.unread.size === 0 && !this.readingAll) return Promise.resolve();
    this.readingAll ??= (async () => {
      const turns = new TimeSlices();
      for (const notePath of [...this.unread.keys()]) {
        this.readOne(notePath);
        if (turns.due()) await turns.next();
      }
      this.checkAllRead();
    })().finally(() => (this.readingAll = undefined));
    return this.readingAll;
  }

  private readAllNow(): void {
    if (this.unread.size === 0) return;
    for (const notePath of [...this.unread.keys()]) this.readOne(notePath);
    this.checkAllRead();
  }

  private checkAllRead(): void {
    if (this.unread.size > 0) return;
    this.unreadStrings = OWN_STRINGS;
    if (this.unreadChunks !== 0 || this.unreadSearchable !== 0) {
      const counts = `${this.unreadChunks} chunks and ${this.unreadSearchable} searchable ones`;
      this.unreadChunks = this.unreadSearchable = 0;
      throw new NoteStoreCorruptError(`${NOTES_FILE}:1: its header counts ${counts} more than its notes hold`);
    }
  }

  /** Parses an unread note into the store (as loaded: its failure entry stays, its blocks are no change). */
  private readOne(notePath: string): NoteRecord | undefined {
    const unread = this.unread.get(notePath);
    if (!unread) return undefined;
    this.unread.delete(notePath);
    const record = parseNoteLine(Buffer.from(unread.line.buffer, unread.line.byteOffset, unread.line.byteLength).toString('utf8'), unread.number, this.unreadStrings);
    if (record.path !== notePath) throw new NoteStoreCorruptError(`${NOTES_FILE}:${unread.number}: the note's path is not the one its line begins with`);
    this.countRead(record);
    this.insert(record, false);
    return record;
  }

  /** A note of a notes file whose header counts them, parsed: what it holds is no longer unread. */
  private countRead(record: NoteRecord): void {
    this.unreadChunks -= record.chunks.length;
    for (const chunk of record.chunks) if (isShown(chunk)) this.unreadSearchable--;
    this.unreadFrontmatterErrors.delete(record.path);
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
    const held = this.note(record.path);
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
    const record = this.note(notePath);
    if (!record) return [];
    this.notes.delete(notePath);
    for (const chunk of record.chunks) {
      this.chunks.delete(chunk.id);
      this.pending.delete(chunk);
    }
    this.blockTexts.remove(record);
    return record.chunks.map((c) => c.id);
  }

  clear(): void {
    this.notes.clear();
    this.chunks.clear();
    this.unread.clear();
    this.unreadChunks = this.unreadSearchable = 0;
    this.unreadFrontmatterErrors.clear();
    this.unreadStrings = OWN_STRINGS;
    this.pending.clear();
    this.lists.clear();
    this.empty = undefined;
    this.failures.clear();
    this.blockTexts.clear();
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
    await this.readAll();
    // What is saved is fixed now: a note put or removed while the files are written waits for the next save.
    const records = [...this.notes.values()];
    const pending = this.pending.snapshot();
    const header: NotesHeader = {
      failures: Object.fromEntries(this.failures),
      chunks: this.chunks.size,
      searchable: this.searchableCount,
      frontmatterErrors: Object.fromEntries(this.frontmatterErrors().map((e) => [e.path, e.reason])),
    };
    const placed = new Map<StoredChunk, TextLocation>();
    const textsFile = path.join(dir, TEXTS_FILE);
    const texts = await writeFileAtomic(textsFile, this.textPieces(records, pending, placed)).finally(pending.done);
    const notes = await writeFileAtomic(
      path.join(dir, NOTES_FILE),
      (function* () {
        yield `${JSON.stringify(header)}\n`;
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
   * store. `strings`: where chunk ids are shared with the indices loaded alongside (see SharedStrings). A file whose
   * header counts its chunks is indexed by note path here and parsed note by note when asked (see `unread`); one
   * written before the header had counts is parsed whole.
   */
  static async read(bytes: Uint8Array, textsFile: string, scratchDir?: string, strings: StringTable = OWN_STRINGS): Promise<NoteStore> {
    const store = new NoteStore(textsFile, scratchDir);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let lineNumber = 1;
    try {
      const firstEnd = lineEnd(buffer, 0);
      const header = (firstEnd > 0 ? JSON.parse(buffer.toString('utf8', 0, firstEnd)) : undefined) as Partial<NotesHeader> | null | undefined;
      const failures = header?.failures;
      if (typeof failures !== 'object' || failures === null) throw new Error('missing header line');
      const counted = Number.isSafeInteger(header!.chunks) && Number.isSafeInteger(header!.searchable) && typeof header!.frontmatterErrors === 'object' && header!.frontmatterErrors !== null;
      if (counted) {
        store.unreadStrings = strings;
        store.unreadChunks = header!.chunks!;
        store.unreadSearchable = header!.searchable!;
        for (const [p, reason] of Object.entries(header!.frontmatterErrors!)) store.unreadFrontmatterErrors.set(p, String(reason));
      }
      const turns = new TimeSlices();
      for (let start = firstEnd + 1; start < buffer.length; ) {
        const end = lineEnd(buffer, start);
        lineNumber++;
        if (end > start) {
          const notePath = counted ? pathOfLine(buffer, start, end) : undefined;
          if (notePath !== undefined) store.unread.set(strings.of(notePath), { line: buffer.subarray(start, end), number: lineNumber });
          else {
            const record = parseNoteLine(buffer.toString('utf8', start, end), lineNumber, strings);
            if (counted) store.countRead(record);
            store.insert(record, false);
          }
        }
        start = end + 1;
        if (turns.due()) await turns.next();
      }
      // After the notes: adding a note clears its entry, and an indexed note's entry is a warning that stays with it
      // (read as Windows-1252, chunked as plain text) until the note is chunked again.
      for (const [p, reason] of Object.entries(failures)) store.failures.set(p, String(reason));
      if (store.unread.size === 0) store.checkAllRead();
    } catch (error) {
      if (error instanceof NoteStoreCorruptError) throw error;
      throw new NoteStoreCorruptError(`${NOTES_FILE}:${Math.max(1, lineNumber)}: ${(error as Error).message}`);
    }
    return store;
  }

  /** Adds or replaces a note whose chunks' texts are in place (loaded, or pending); returns the ids of the chunks it replaced. */
  private add(record: NoteRecord): string[] {
    const removed = this.delete(record.path);
    this.insert(record, true);
    this.failures.delete(record.path);
    return removed;
  }

  /** Puts a note not in the store into it; `tracked`: its blocks count as changed (see BlockTexts.takeChanged). */
  private insert(record: NoteRecord, tracked: boolean): void {
    for (const chunk of record.chunks) {
      // Stores written before the link graph alone kept links have them on every chunk.
      if ('links' in chunk) delete (chunk as { links?: unknown }).links;
      chunk.headerPath = this.shared(chunk.headerPath);
      chunk.tags = this.shared(chunk.tags);
      for (const part of chunk.parts ?? []) part.headerPath = this.shared(part.headerPath);
    }
    this.notes.set(record.path, record);
    for (const chunk of record.chunks) this.chunks.set(chunk.id, { note: record, chunk });
    this.blockTexts.add(record, tracked);
  }

  /**
   * The one copy of a list of strings (never changed in place: shared by every chunk that has it). Most lists are
   * empty (tags) or one heading long: those need no joined key (the join was a fifth of reading the store).
   */
  private shared(list: string[]): string[] {
    if (list.length === 0) return (this.empty ??= list);
    const key = list.length === 1 ? list[0]! : list.join('\0');
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

/** A note's line of a notes file, parsed and checked; its path, title and chunk ids shared through `strings`. */
function parseNoteLine(line: string, lineNumber: number, strings: StringTable): NoteRecord {
  let record: NoteRecord;
  try {
    record = JSON.parse(line) as NoteRecord;
    if (typeof record?.path !== 'string' || !Array.isArray(record.chunks)) throw new Error('not a note record');
    if (!record.chunks.every((c) => Number.isSafeInteger(c?.textAt) && c.textAt >= 0 && Number.isSafeInteger(c.textBytes) && c.textBytes >= 0)) {
      throw new Error('a chunk without the place of its texts');
    }
  } catch (error) {
    throw new NoteStoreCorruptError(`${NOTES_FILE}:${lineNumber}: ${(error as Error).message}`);
  }
  record.path = strings.of(record.path);
  record.title = strings.of(record.title);
  // A chunk's id is in the keyword and vector indices too. Anchors and headings recur as well, but sharing
  // them cost more load time than the memory was worth (README, Scale: stop 39).
  for (const chunk of record.chunks) chunk.id = strings.of(chunk.id);
  return record;
}

function lineEnd(buffer: Buffer, start: number): number {
  const newline = buffer.indexOf(10, start);
  return newline === -1 ? buffer.length : newline;
}

const PATH_FIRST = Buffer.from('{"path":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The path a note's line begins with (`save` writes it first), read without parsing the rest; undefined when the
 * line does not begin so (it is then parsed whole).
 */
function pathOfLine(buffer: Buffer, start: number, end: number): string | undefined {
  if (end - start < PATH_FIRST.length || buffer.compare(PATH_FIRST, 0, PATH_FIRST.length, start, start + PATH_FIRST.length) !== 0) return undefined;
  const from = start + PATH_FIRST.length - 1;
  for (let i = from + 1; i < end; i++) {
    const byte = buffer[i]!;
    if (byte === BACKSLASH) i++;
    else if (byte === QUOTE) {
      try {
        const value = JSON.parse(buffer.toString('utf8', from, i + 1)) as unknown;
        return typeof value === 'string' ? value : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
