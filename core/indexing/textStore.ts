// The chunk texts of an index generation, kept on disk rather than in the heap: one JSON line per chunk
// (`[text]`, or `[text, displayText]` when they differ), addressed by byte offset and length from the notes file.
// Only what a result, snippet, answer or section listing shows is read, when it is shown.
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** A chunk's texts: `displayText` only when it differs from `text` (read what it shows through `shownText`). */
export interface ChunkTexts {
  text: string;
  displayText?: string;
}

/** Where a chunk's texts are in a text store file: its line's byte offset and length (without the newline). */
export interface TextLocation {
  at: number;
  bytes: number;
}

export class TextStoreCorruptError extends Error {}

/** Bytes read at once when a text store is read through (mostly in order). */
const WINDOW_BYTES = 1 << 20;

/** The text store of a notes file: beside it, named after it (`notes.jsonl` → `notes.texts.jsonl`). */
export function textsFileBeside(notesFile: string): string {
  return path.join(path.dirname(notesFile), `${path.basename(notesFile).replace(/\.jsonl$/, '')}.texts.jsonl`);
}

/** A chunk's line in a text store. */
export function textsLine(texts: ChunkTexts): Buffer {
  return Buffer.from(JSON.stringify(texts.displayText === undefined ? [texts.text] : [texts.text, texts.displayText]));
}

/** Decodes a chunk's line; a line that is not one throws TextStoreCorruptError (the file changed under the index). */
export function parseTextsLine(bytes: Uint8Array, file: string, at: number): ChunkTexts {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    value = undefined;
  }
  const strings = Array.isArray(value) && (value.length === 1 || value.length === 2) && value.every((v) => typeof v === 'string');
  if (!strings) throw new TextStoreCorruptError(`${path.basename(file)} at byte ${at}: not a chunk's texts`);
  const [text, displayText] = value as string[];
  return displayText === undefined ? { text } : { text, displayText };
}

/**
 * Reads chunks' texts from one text store file through one handle, held from when its generation is loaded or saved
 * until it is retired (replaced by the next) and the reads in flight are done. Why held: a search reads the texts of
 * its best 30 chunks, and opening and closing the file took two of its three trips to the I/O threads, each slow
 * while the search's other threads are busy (about half of the read's 3 ms on the 50k scale vault). And a generation
 * deleted meanwhile (another process saved twice since, or a person cleared the data folder) stays readable through
 * the handle where the system keeps an open file's data until it is closed (Linux, macOS): opened by path on the next
 * search, it failed every result with ENOENT, and every later save, which copies the texts, failed too.
 */
export class TextStoreReader {
  private handle?: Promise<FileHandle>;
  private reading = 0;
  private retired = false;

  constructor(readonly file: string) {}

  /** Opens the file now (the generation is in use from now on); one that cannot be opened is tried again by the first read. */
  hold(): void {
    this.opened().catch(() => {});
  }

  /** The texts at these locations, in order. */
  async read(locations: readonly TextLocation[]): Promise<ChunkTexts[]> {
    if (locations.length === 0) return [];
    this.reading++;
    try {
      const handle = await this.opened();
      return await Promise.all(
        locations.map(async ({ at, bytes }) => {
          const buffer = Buffer.allocUnsafe(bytes);
          const { bytesRead } = await handle.read(buffer, 0, bytes, at);
          return parseTextsLine(buffer.subarray(0, bytesRead), this.file, at);
        }),
      );
    } finally {
      this.done();
    }
  }

  /**
   * The held handle for a reader of the whole file (a save copying the texts into the next generation), or
   * undefined when the file cannot be opened; `release()` when done.
   */
  async borrow(): Promise<{ handle: FileHandle | undefined; release: () => void }> {
    this.reading++;
    const handle = await this.opened().catch(() => undefined);
    return { handle, release: () => this.done() };
  }

  /** No reads are to come (a read still made reopens the file and closes it after): closes once none is in flight. */
  retire(): void {
    this.retired = true;
    if (this.reading === 0) this.close();
  }

  /** The held handle, opened if need be; a failed open is not kept, so the next read tries again. */
  private opened(): Promise<FileHandle> {
    if (!this.handle) {
      const opening = open(this.file, 'r');
      opening.catch(() => {
        if (this.handle === opening) this.handle = undefined;
      });
      this.handle = opening;
    }
    return this.handle;
  }

  private done(): void {
    if (--this.reading === 0 && this.retired) this.close();
  }

  private close(): void {
    const handle = this.handle;
    this.handle = undefined;
    void handle?.then((h) => h.close()).catch(() => {});
  }
}

/**
 * Reads raw lines of a text store file through a window of bytes (copying them into the next generation's file,
 * mining a whole index): lines asked for in ascending order, as notes keep theirs, are read a megabyte at a time.
 */
export class TextLineReader {
  private handle?: FileHandle;
  private window = Buffer.alloc(0);
  private windowAt = 0;

  /** `borrowed`: read through this open handle of `file` (named in errors), which `close` leaves open. */
  constructor(
    private readonly file: string,
    private readonly borrowed?: FileHandle,
  ) {
    this.handle = borrowed;
  }

  async line({ at, bytes }: TextLocation): Promise<Buffer> {
    if (at < this.windowAt || at + bytes > this.windowAt + this.window.length) {
      this.handle ??= await open(this.file, 'r');
      const buffer = Buffer.allocUnsafe(Math.max(bytes, WINDOW_BYTES));
      const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, at);
      if (bytesRead < bytes) throw new TextStoreCorruptError(`${path.basename(this.file)} at byte ${at}: ends before the chunk's texts`);
      this.window = buffer.subarray(0, bytesRead);
      this.windowAt = at;
    }
    return this.window.subarray(at - this.windowAt, at - this.windowAt + bytes);
  }

  async close(): Promise<void> {
    if (!this.borrowed) await this.handle?.close();
  }
}
