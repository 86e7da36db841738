// The texts of chunks put since the last save. A live edit puts a few, held in memory; a cold index or a re-chunk
// puts every chunk of the vault before its save, so past a budget the held texts are written to a scratch file and
// read back from there when shown or saved: the heap does not grow with the vault's text (issue 16).
import { ScratchFile } from '../process/scratchFile.js';
import { TimeSlices } from '../process/timeSlices.js';
import { parseTextsLine, TextLineReader, textsLine, type ChunkTexts } from './textStore.js';

/** Held texts past this many characters are written out (about 4 MB of text, a few thousand chunks). */
const HOLD_CHARS = 1 << 22;
const NEWLINE = Buffer.from('\n');

/** A pending text as a save takes it: in memory, or a line of a scratch file (kept open until the save is done). */
export type PendingText = { texts: ChunkTexts } | { file: ScratchFile; at: number; bytes: number };

/** Chunk → texts put since the last save, in memory up to `holdChars` characters, the rest in a scratch file in `scratchDir`. */
export class PendingTexts<K extends object> {
  private readonly held = new Map<K, ChunkTexts>();
  private heldChars = 0;
  private readonly spilled = new Map<K, { file: ScratchFile; at: number; bytes: number }>();
  /** The file the next spill appends to. */
  private current?: ScratchFile;
  private spilling?: Promise<void>;
  private scratchDir?: string;

  /** Without `scratchDir` every text stays in memory. */
  constructor(scratchDir?: string, private readonly holdChars = HOLD_CHARS) {
    this.scratchDir = scratchDir;
  }

  get size(): number {
    return this.held.size + this.spilled.size;
  }

  /** Characters of text held in memory now. */
  get charsHeld(): number {
    return this.heldChars;
  }

  /** How many texts are in scratch files now. */
  get inScratch(): number {
    return this.spilled.size;
  }

  has(key: K): boolean {
    return this.held.has(key) || this.spilled.has(key);
  }

  set(key: K, texts: ChunkTexts): void {
    this.delete(key);
    this.held.set(key, texts);
    this.heldChars += chars(texts);
    this.spillIfOver();
  }

  delete(key: K): void {
    const texts = this.held.get(key);
    if (texts) {
      this.held.delete(key);
      this.heldChars -= chars(texts);
      return;
    }
    const spilled = this.spilled.get(key);
    if (!spilled) return;
    this.spilled.delete(key);
    spilled.file.live--;
    this.release(spilled.file);
  }

  clear(): void {
    for (const key of [...this.spilled.keys()]) this.delete(key);
    this.held.clear();
    this.heldChars = 0;
  }

  /** No more texts are put (the store is replaced): what is held goes, and scratch files close once unused. */
  dispose(): void {
    this.scratchDir = undefined;
    this.clear();
  }

  /**
   * The texts of these keys, undefined for a key not pending. Where each one is is looked up now, before any await,
   * and the files it reads stay open until it is done.
   */
  read(keys: readonly K[]): Promise<Array<ChunkTexts | undefined>> {
    const out: Array<ChunkTexts | undefined> = keys.map((key) => this.held.get(key));
    const reads = keys.flatMap((key, i) => {
      const spilled = out[i] ? undefined : this.spilled.get(key);
      return spilled ? [{ i, ...spilled }] : [];
    });
    if (reads.length === 0) return Promise.resolve(out);
    for (const r of reads) r.file.pins++;
    return Promise.all(
      reads.map((r) =>
        r.file.read(r.at, r.bytes).then((bytes) => parseTextsLine(bytes, r.file.file, r.at)).finally(() => {
          r.file.pins--;
          this.release(r.file);
        }),
      ),
    ).then((texts) => {
      reads.forEach((r, j) => (out[r.i] = texts[j]));
      return out;
    });
  }

  /**
   * What a save writes: every pending text as it is now. The scratch files it names stay open until `done`; reading
   * their lines in the order they were put reads each file straight through.
   */
  snapshot(): { texts: Map<K, PendingText>; line: (text: PendingText) => Promise<Buffer>; done: () => Promise<void> } {
    const texts = new Map<K, PendingText>();
    for (const [key, held] of this.held) texts.set(key, { texts: held });
    const files = new Map<ScratchFile, TextLineReader>();
    for (const [key, spilled] of this.spilled) {
      texts.set(key, spilled);
      if (!files.has(spilled.file)) {
        spilled.file.pins++;
        files.set(spilled.file, new TextLineReader('pending texts', spilled.file.handle));
      }
    }
    return {
      texts,
      line: async (text) => ('texts' in text ? textsLine(text.texts) : files.get(text.file)!.line(text)),
      done: async () => {
        for (const [file, reader] of files) {
          await reader.close();
          file.pins--;
          this.release(file);
        }
        files.clear();
      },
    };
  }

  /** Waits for the write of held texts to a scratch file, if one is under way (tests; a save does not need to). */
  async settled(): Promise<void> {
    while (this.spilling) await this.spilling;
  }

  private spillIfOver(): void {
    if (this.spilling || this.scratchDir === undefined || this.heldChars <= this.holdChars) return;
    this.spilling = this.spill(this.scratchDir)
      .catch(() => {
        // The texts stay in memory: a full or read-only disk costs memory here, never a text.
        this.scratchDir = undefined;
      })
      .finally(() => {
        this.spilling = undefined;
        this.spillIfOver();
      });
  }

  /**
   * Writes the texts held now to the current scratch file, then reads them from there. A turn's worth of them is
   * encoded and appended at a time: encoding all 4 MB at once held the event loop for 80-150 ms (a re-chunk at 50k).
   */
  private async spill(dir: string): Promise<void> {
    const batch = [...this.held];
    const file = (this.current ??= await ScratchFile.create(dir, 'pending-texts'));
    // Pinned until the texts written are counted in it: a delete meanwhile must not close it.
    file.pins++;
    try {
      const turns = new TimeSlices();
      for (let from = 0; from < batch.length; ) {
        // Each step in a turn of its own, taken in order with the other passes: the first began inside the turn of the
        // pass that put the text, and a step resumed by the file's write ran in the same turn as another pass's.
        await turns.next();
        const lines: Buffer[] = [];
        do lines.push(textsLine(batch[from + lines.length]![1]));
        while (from + lines.length < batch.length && !turns.due());
        let at = await file.append(Buffer.concat(lines.flatMap((line) => [line, NEWLINE])));
        lines.forEach((line, i) => {
          const [key, texts] = batch[from + i]!;
          // Put again or deleted while it was written: the line is left unread.
          if (this.held.get(key) === texts) {
            this.held.delete(key);
            this.heldChars -= chars(texts);
            this.spilled.set(key, { file, at, bytes: line.length });
            file.live++;
          }
          at += line.length + 1;
        });
        from += lines.length;
      }
    } finally {
      file.pins--;
    }
    this.release(file);
  }

  /** Closes a file nothing uses. */
  private release(file: ScratchFile): void {
    if (!file.unused) return;
    if (this.current === file) this.current = undefined;
    file.close();
  }
}

function chars(texts: ChunkTexts): number {
  return texts.text.length + (texts.displayText?.length ?? 0);
}
