/**
 * The keyword index file: lines of JSON. A short header first (format, version, counts, MiniSearch's settings),
 * then MiniSearch's document tables and the title map, a few thousand entries a line, each line an object naming
 * its table (`{"documentIds":[[shortId,"chunk id"],…]}`, `{"fieldLength":[[shortId,[lengths]],…]}`,
 * `{"titles":[["key",[shortId,…]],…]}`, a key shared by many chunks in several rows), then the postings, a few
 * thousand terms a line: each term's row gives, per field, the byte length of its postings (varints), how many
 * postings they hold and the highest chunk among them, and the line ends with all its rows' bytes as one base64
 * string. Written and read a line at a time, so a large index neither holds the event loop for long nor needs one
 * giant string (version 2 had the tables in its header line: 9 MB at 50,000 chunks, parsed in one go). Loaded, the
 * postings stay varint bytes (all of a line's in one buffer) until used.
 *
 * Older versions still read (the next save writes version 5): version 4 gave each field's postings as a base64
 * string of its own, without their counts, so a load decoded every list to count it (at 50,000 chunks some 90 ms
 * of the main thread, with the strings' parsing); version 3 also named a title's chunks by id, each id then parsed
 * and looked up once more (some 3 MB of the file and 80 ms of the load).
 */
import type { AsPlainObject } from 'minisearch';
import { eachLine } from '../lineFile.js';
import { FIELDS, TitleKeys } from './keywordDocs.js';
import { ChunkPostings, type TermPostings } from './miniSearchInternals.js';
import { PackedPostings, pairsInIdOrder } from './packedPostings.js';
import { TimeSlices } from '../../process/timeSlices.js';
import { OWN_STRINGS, type StringTable } from '../../process/sharedStrings.js';

export class KeywordIndexCorruptError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeywordIndexCorruptError';
  }
}

const FORMAT = 'cairn-keyword-index';
const FORMAT_VERSION = 5;
/** Each field's postings a base64 string of their own, without counts: read, never written. */
const INLINE_POSTINGS_VERSION = 4;
/** Also title rows naming chunks by id rather than short id: read, never written. */
const CHUNK_ID_TITLES_VERSION = 3;

// Terms per piece of the written JSON: about 10 ms of encoding each.
const TERMS_PER_LINE = 2000;
// Table entries a line, and characters at most (a title key can list every chunk of many notes): a few
// milliseconds to parse.
const ENTRIES_PER_LINE = 5000;
const TABLE_LINE_CHARS = 256 * 1024;
// A title key's chunks, a row: a key shared by thousands of chunks takes several rows.
const TITLE_IDS_PER_ROW = 1000;
const TABLES = ['documentIds', 'fieldLength', 'titles'] as const;
type Table = (typeof TABLES)[number];

/**
 * The index as lines of JSON, in pieces taken in turns (the event loop runs between them; a long line comes in
 * several pieces). It must not change while they are taken (settle it first: vacuuming changes it).
 */
export async function* keywordIndexLines(index: ChunkPostings, titles: TitleKeys): AsyncGenerator<string | Uint8Array> {
  const turns = new TimeSlices();
  const terms = await index.prepareToSave(turns);
  const titleEntries = titles.entries();
  const titleRows = titleEntries.reduce((rows, [, docs]) => rows + Math.ceil(docs.length / TITLE_IDS_PER_ROW), 0);
  yield `${JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, terms, titles: titleRows, miniSearch: index.plain() })}\n`;
  yield* tableLines('documentIds', index.documentIds(), ([doc, id]) => `[${doc},${JSON.stringify(id)}]`, turns);
  yield* tableLines('fieldLength', index.fieldLengthRows(), (doc) => `[${doc},${index.fieldLengthJson(doc)}]`, turns);
  const rows = function* (): Generator<[string, number[]]> {
    for (const [key, docs] of titleEntries) {
      for (let i = 0; i < docs.length; i += TITLE_IDS_PER_ROW) yield [key, docs.slice(i, i + TITLE_IDS_PER_ROW)];
    }
  };
  yield* tableLines('titles', rows(), (row) => JSON.stringify(row), turns);
  yield* postingLines(index, turns);
}

/** A table's entries, each written by `encode`, to lines `{"<table>":[…]}` of ENTRIES_PER_LINE or TABLE_LINE_CHARS. */
async function* tableLines<T>(table: Table, items: Iterable<T>, encode: (item: T) => string, turns: TimeSlices): AsyncGenerator<string> {
  let line = '';
  let count = 0;
  for (const item of items) {
    line += `${count === 0 ? `{"${table}":[` : ','}${encode(item)}`;
    if (++count === ENTRIES_PER_LINE || line.length >= TABLE_LINE_CHARS) {
      yield `${line}]}\n`;
      line = '';
      count = 0;
    }
    if (turns.due()) await turns.next();
  }
  if (count > 0) yield `${line}]}\n`;
}

/**
 * The posting lines, `[["term",fieldId,bytes,pairs,lastDoc,…],…,"<base64 of the rows' varints>"]`, TERMS_PER_LINE
 * terms a line, written straight into bytes: no string or array per list, which a save made for every term after
 * every edit (most of its garbage). A packed list built in memory (8 bytes a posting, and room to grow) is swapped
 * for its encoding, as a loaded index holds it (2–3 bytes a posting): after a save the index that built the vault
 * takes the memory of one opened from its files. A list is decoded again when a chunk is added to it.
 */
async function* postingLines(index: ChunkPostings, turns: TimeSlices): AsyncGenerator<Uint8Array> {
  const writer = new VarintWriter();
  const arena = new EncodedArena();
  const line = new LineBytes();
  const idLimit = index.idLimit;
  let terms = 0;
  for (const [term, fields] of index.entries()) {
    line.text(terms === 0 ? '[' : ',');
    line.text(`[${JSON.stringify(term)}`);
    for (const [fieldId, docs] of fields) {
      const { bytes, start, end, pairs, lastDoc } = writer.encodePostings(docs);
      line.text(`,${fieldId},${end - start},${pairs},${lastDoc}`);
      line.binary(bytes, start, end);
      // A list built in memory becomes bytes. A loaded list keeps its form: swapping the lists an edit touched for
      // new copies on every save made garbage that V8 let pile up (the live stage's peak at 50k, 572 → 872 MB).
      if (docs instanceof PackedPostings && !(docs instanceof LazyPostings)) {
        const placed = arena.place(bytes.subarray(start, end));
        fields.set(fieldId, new LazyPostings(placed.block, placed.start, placed.end, idLimit, pairs, lastDoc));
      }
    }
    line.text(']');
    if (++terms === TERMS_PER_LINE) {
      yield line.takeWithBinary();
      terms = 0;
    }
    if (turns.due()) await turns.next();
  }
  if (terms > 0) yield line.takeWithBinary();
}

const BASE64 = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 'latin1');
const PAD = 0x3d;

/** A line of the file being written, in a buffer that grows as needed, and the bytes its end is to give as base64. */
class LineBytes {
  private bytes = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  private pending = Buffer.allocUnsafe(1 << 16);
  private pendingUsed = 0;

  text(text: string): void {
    this.room(text.length * 3);
    this.used += this.bytes.write(text, this.used, 'utf8');
  }

  /** Bytes for the line's closing base64 string (see `takeWithBinary`). */
  binary(bytes: Uint8Array, start: number, end: number): void {
    if (this.pendingUsed + (end - start) > this.pending.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.pending.length * 2, this.pendingUsed + (end - start)));
      this.pending.copy(grown, 0, 0, this.pendingUsed);
      this.pending = grown;
    }
    this.pending.set(bytes.subarray(start, end), this.pendingUsed);
    this.pendingUsed += end - start;
  }

  /** The line so far, closed with `,"<base64 of the binary bytes>"]` and a newline, copied out; both start over. */
  takeWithBinary(): Buffer {
    this.text(',"');
    this.base64(this.pending, 0, this.pendingUsed);
    this.text('"]\n');
    this.pendingUsed = 0;
    const line = Buffer.from(this.bytes.subarray(0, this.used));
    this.used = 0;
    return line;
  }

  /** `bytes[start..end)` as base64, exactly as `Buffer#toString('base64')` writes it. */
  private base64(bytes: Uint8Array, start: number, end: number): void {
    this.room(Math.ceil((end - start) / 3) * 4);
    const out = this.bytes;
    let at = this.used;
    let i = start;
    for (; i + 2 < end; i += 3) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      out[at++] = BASE64[n >> 18]!;
      out[at++] = BASE64[(n >> 12) & 63]!;
      out[at++] = BASE64[(n >> 6) & 63]!;
      out[at++] = BASE64[n & 63]!;
    }
    if (i < end) {
      const n = (bytes[i]! << 16) | (i + 1 < end ? bytes[i + 1]! << 8 : 0);
      out[at++] = BASE64[n >> 18]!;
      out[at++] = BASE64[(n >> 12) & 63]!;
      out[at++] = i + 1 < end ? BASE64[(n >> 6) & 63]! : PAD;
      out[at++] = PAD;
    }
    this.used = at;
  }

  private room(bytes: number): void {
    if (this.used + bytes <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + bytes));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}

/** Bytes of encoded postings, copied into shared blocks: one allocation per block, not per list. */
class EncodedArena {
  private static readonly BLOCK_BYTES = 1 << 16;
  private block = new Uint8Array(0);
  private used = 0;

  place(bytes: Uint8Array): { block: Uint8Array; start: number; end: number } {
    if (this.used + bytes.length > this.block.length) {
      this.block = new Uint8Array(Math.max(EncodedArena.BLOCK_BYTES, bytes.length));
      this.used = 0;
    }
    const start = this.used;
    this.block.set(bytes, start);
    this.used += bytes.length;
    return { block: this.block, start, end: this.used };
  }
}

/**
 * Loads what `keywordIndexLines` wrote: the header, the document tables and title map, then the postings, line by
 * line, giving the event loop a turn every few milliseconds. Every count the header gives is checked. `strings`:
 * where chunk ids are shared with the other indices loaded alongside (see SharedStrings).
 */
export async function readKeywordIndex(bytes: Uint8Array, strings: StringTable = OWN_STRINGS): Promise<{ index: ChunkPostings; titles: TitleKeys }> {
  let loaded: { header: Header; index: ChunkPostings } | undefined;
  const titles = new TitleKeys();
  let titleRows = 0;
  let terms = 0;
  await eachLine(bytes, (line, lineNumber) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new KeywordIndexCorruptError(`keyword index line ${lineNumber} is not valid JSON`, { cause: error });
    }
    if (!loaded) {
      const header = checkHeader(parsed);
      try {
        loaded = { header, index: ChunkPostings.fromPlain(header.miniSearch) };
      } catch (error) {
        throw new KeywordIndexCorruptError('keyword index data is damaged', { cause: error });
      }
    } else if (Array.isArray(parsed)) {
      terms += loaded.header.version === FORMAT_VERSION ? loadPostings(loaded.index, parsed) : loadInlinePostings(loaded.index, parsed);
    } else {
      const [table, entries] = tableOf(parsed, lineNumber);
      if (table === 'titles') titleRows += loadTitles(entries, loaded.index, titles, loaded.header.version);
      else loadTable(table, entries, loaded.index, strings);
    }
  });
  if (!loaded) throw new KeywordIndexCorruptError('keyword index is empty');
  const { header, index } = loaded;
  const { documentIds, fieldLength } = index.tableSizes();
  if (documentIds !== header.miniSearch.documentCount || fieldLength !== header.miniSearch.documentCount) {
    throw new KeywordIndexCorruptError(`keyword index holds ${documentIds} document ids and ${fieldLength} field-length rows, its header says ${header.miniSearch.documentCount} chunks`);
  }
  if (titleRows !== header.titles) throw new KeywordIndexCorruptError(`keyword index holds ${titleRows} titles, its header says ${header.titles}`);
  // Counted as read (counting the term tree walks all of it); the manifest's digest of the file catches the rest.
  if (terms !== header.terms) throw new KeywordIndexCorruptError(`keyword index holds ${terms} terms, its header says ${header.terms}`);
  return { index, titles };
}

interface Header {
  version: number;
  terms: number;
  titles: number;
  miniSearch: AsPlainObject;
}

function checkHeader(parsed: unknown): Header {
  const data = parsed as { format?: unknown; version?: unknown; titles?: unknown; miniSearch?: unknown; terms?: unknown } | null;
  if (typeof data !== 'object' || data === null || data.format !== FORMAT) {
    throw new KeywordIndexCorruptError('not a keyword index');
  }
  if (data.version !== FORMAT_VERSION && data.version !== INLINE_POSTINGS_VERSION && data.version !== CHUNK_ID_TITLES_VERSION) {
    throw new KeywordIndexCorruptError(`keyword index format version ${String(data.version)}, expected ${FORMAT_VERSION}`);
  }
  checkMiniSearchShape(data.miniSearch);
  if (!isCount(data.terms)) throw new KeywordIndexCorruptError('keyword index header has no term count');
  if (!isCount(data.titles)) throw new KeywordIndexCorruptError('keyword index header has no title count');
  return { version: data.version, terms: data.terms, titles: data.titles, miniSearch: data.miniSearch };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A table line's table and entries. */
function tableOf(parsed: unknown, lineNumber: number): [Table, unknown[]] {
  const keys = typeof parsed === 'object' && parsed !== null ? Object.keys(parsed) : [];
  const table = keys[0] as Table;
  const entries = keys.length === 1 ? (parsed as Record<string, unknown>)[table] : undefined;
  if (!TABLES.includes(table) || !Array.isArray(entries)) throw new KeywordIndexCorruptError(`keyword index line ${lineNumber} is neither a table nor postings`);
  return [table, entries];
}

function loadTable(table: 'documentIds' | 'fieldLength', entries: unknown[], index: ChunkPostings, strings: StringTable): void {
  for (const entry of entries) {
    const ok =
      Array.isArray(entry) &&
      entry.length === 2 &&
      typeof entry[0] === 'number' &&
      (table === 'documentIds'
        ? typeof entry[1] === 'string' && index.addDocumentId(entry[0], strings.of(entry[1]))
        : Array.isArray(entry[1]) && index.addFieldLengths(entry[0], entry[1] as number[]));
    if (!ok) throw new KeywordIndexCorruptError(`keyword index ${table === 'documentIds' ? 'document ids are' : 'field lengths are'} damaged`);
  }
}

/**
 * One line's postings (its rows, then the base64 of their bytes), decoded into one buffer they share: no string or
 * buffer per term is kept, and no list is decoded, its counts being given. The manifest's digest of the file stands
 * for the bytes; a list whose bytes disagree with its counts is found when first decoded. Returns the line's terms.
 */
function loadPostings(index: ChunkPostings, line: unknown[]): number {
  const encoded = line.at(-1);
  if (typeof encoded !== 'string') throw new KeywordIndexCorruptError('keyword index postings are damaged');
  const arena = Buffer.from(encoded, 'base64');
  const idLimit = index.idLimit;
  const fieldCount = FIELDS.length;
  let offset = 0;
  const terms = line.length - 1;
  for (let t = 0; t < terms; t++) {
    const row = line[t];
    if (!Array.isArray(row) || typeof row[0] !== 'string' || row.length < 5 || row.length % 4 !== 1) throw new KeywordIndexCorruptError('keyword index postings are damaged');
    const fields: TermPostings = new Map();
    for (let i = 1; i < row.length; i += 4) {
      const fieldId: unknown = row[i];
      const bytes: unknown = row[i + 1];
      const pairs: unknown = row[i + 2];
      const lastDoc: unknown = row[i + 3];
      // Each posting is two varints of a byte or more, ids ascending from 0; an empty list is written as none.
      const fits =
        isIndex(fieldId, fieldCount) &&
        !fields.has(fieldId) &&
        isIndex(pairs, idLimit + 1) &&
        typeof lastDoc === 'number' &&
        (pairs === 0 ? lastDoc === -1 && bytes === 0 : isIndex(lastDoc, idLimit) && pairs <= lastDoc + 1) &&
        isIndex(bytes, arena.length - offset + 1) &&
        bytes >= 2 * pairs;
      if (!fits) throw new KeywordIndexCorruptError('keyword index postings are damaged');
      fields.set(fieldId, new LazyPostings(arena, offset, offset + bytes, idLimit, pairs, lastDoc));
      offset += bytes;
    }
    index.setTerm(row[0], fields);
  }
  if (offset !== arena.length) throw new KeywordIndexCorruptError('keyword index postings are damaged');
  return terms;
}

function isIndex(value: unknown, limit: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < limit;
}

/** One line of version 4's postings, each field's a base64 string of its own: each list decoded to count it. */
function loadInlinePostings(index: ChunkPostings, rows: unknown[]): number {
  const fieldCount = FIELDS.length;
  let bytes = 0;
  for (const row of rows) {
    if (!Array.isArray(row) || typeof row[0] !== 'string' || row.length < 3 || row.length % 2 === 0) {
      throw new KeywordIndexCorruptError('keyword index postings are damaged');
    }
    for (let i = 1; i < row.length; i += 2) {
      const fieldId = row[i] as unknown;
      const encoded = row[i + 1] as unknown;
      if (typeof fieldId !== 'number' || !Number.isInteger(fieldId) || fieldId < 0 || fieldId >= fieldCount || typeof encoded !== 'string') {
        throw new KeywordIndexCorruptError('keyword index postings are damaged');
      }
      bytes += Buffer.byteLength(encoded, 'base64');
    }
  }
  const arena = Buffer.allocUnsafeSlow(bytes);
  const reader = new VarintReader();
  let offset = 0;
  for (const row of rows as Array<Array<string | number>>) {
    const fields: TermPostings = new Map();
    for (let i = 1; i < row.length; i += 2) {
      const start = offset;
      offset += arena.write(row[i + 1] as string, offset, 'base64');
      const { pairs, lastDoc } = reader.checkPostings(arena, start, offset, index.idLimit);
      fields.set(row[i] as number, new LazyPostings(arena, start, offset, index.idLimit, pairs, lastDoc));
    }
    index.setTerm(row[0] as string, fields);
  }
  return rows.length;
}

/** Title rows into `keys` (their chunks' ids are loaded first); returns how many. */
function loadTitles(rows: unknown[], index: ChunkPostings, keys: TitleKeys, version: number): number {
  const byId = version === CHUNK_ID_TITLES_VERSION;
  for (const entry of rows) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) {
      throw new KeywordIndexCorruptError('keyword index title map is damaged');
    }
    for (const id of entry[1] as unknown[]) {
      const doc = byId ? (typeof id === 'string' ? index.shortIdOf(id) : undefined) : typeof id === 'number' && index.idOf(id) !== undefined ? id : undefined;
      if (doc === undefined) throw new KeywordIndexCorruptError('keyword index title map names an unknown chunk');
      keys.add(entry[0], doc);
    }
  }
  return rows.length;
}

/** Postings as base64 of varints: (short id delta, term frequency) pairs, ids ascending. ~4x smaller than JSON objects. */
class VarintWriter {
  private bytes = new Uint8Array(1 << 16);
  private length = 0;

  /**
   * The varint bytes of a posting list, as `bytes[start..end)` (valid until the next call), with its count and
   * highest id when it was encoded here: a loaded list with nothing added since gives its own bytes, as read.
   */
  encodePostings(postings: Map<number, number>): { bytes: Uint8Array; start: number; end: number; pairs: number; lastDoc: number } {
    const unread = postings instanceof LazyPostings ? postings.unreadBytes() : undefined;
    if (unread !== undefined && unread.added === 0) return unread;
    this.length = 0;
    let previous = 0;
    let pairs = 0;
    const add = (frequency: number, doc: number) => {
      this.write(doc - previous);
      this.write(frequency);
      previous = doc;
      pairs++;
    };
    if (unread !== undefined) {
      // The loaded bytes as they are, then the chunks added since, after the last id they hold.
      this.copy(unread.bytes, unread.start, unread.end);
      previous = unread.lastDoc;
      pairs = unread.pairs;
      (postings as LazyPostings).forEachAdded(add);
    } else if (postings instanceof PackedPostings) {
      // Packed postings go by in id order without a pair allocated per posting.
      postings.forEachUnchanging(add);
    } else for (const [doc, frequency] of pairsInIdOrder(postings)) add(frequency, doc);
    return { bytes: this.bytes, start: 0, end: this.length, pairs, lastDoc: pairs === 0 ? -1 : previous };
  }

  private copy(bytes: Uint8Array, start: number, end: number): void {
    this.room(end - start);
    this.bytes.set(bytes.subarray(start, end), this.length);
    this.length += end - start;
  }

  private write(value: number): void {
    this.room(5);
    let rest = value;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + bytes));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

/**
 * The postings of one term in one field, decoded on first use from its varint bytes (a range of a buffer shared
 * with the other terms of its line) into packed pairs. Loading a saved index then builds only the postings that
 * queries and updates touch, instead of millions of entries up front (the bulk of the load time and its garbage
 * collection on a large vault). The encoding is checked when loaded, so damage is still found at load.
 *
 * A chunk added to the index has a higher short id than every one held, so its postings are kept after the encoded
 * ones, as packed pairs, without decoding them: decoding every common word of a chunk at once (a long list each at
 * a million chunks) held the event loop for 175 ms in a rebuild at 50,000 chunks. Only what reads or changes the
 * older postings in place (a delete, dropping dead chunks, an iterator) decodes them.
 */
class LazyPostings extends PackedPostings {
  private encoded: Uint8Array | undefined;
  /** While set, the packed pairs are the postings added after the encoded ones, and the methods work on those alone. */
  private tailOnly = false;

  /**
   * `encodedPairs`: how many postings the bytes hold and `lastEncoded` the highest id among them
   * (`VarintReader.checkPostings` gives both for those read from a file).
   */
  constructor(
    encoded: Uint8Array,
    private start: number,
    private end: number,
    private readonly idLimit: number,
    private readonly encodedPairs: number,
    private readonly lastEncoded: number,
  ) {
    super();
    this.encoded = encoded;
  }

  /** Counted without decoding: a query asks how many chunks hold each of its words. */
  override get size(): number {
    return this.encoded !== undefined ? this.encodedPairs + this.onTail(() => super.size) : super.size;
  }

  override get(doc: number): number | undefined {
    return this.encoded !== undefined && doc > this.lastEncoded ? this.onTail(() => super.get(doc)) : super.get(doc);
  }

  override set(doc: number, frequency: number): this {
    if (this.encoded !== undefined && doc > this.lastEncoded) this.onTail(() => super.set(doc, frequency));
    else super.set(doc, frequency);
    return this;
  }

  /**
   * The varint bytes read from the file while they are undecoded (else undefined), with how many postings they hold,
   * the highest id among them, and how many postings were added after them.
   */
  unreadBytes(): { bytes: Uint8Array; start: number; end: number; pairs: number; lastDoc: number; added: number } | undefined {
    const encoded = this.encoded;
    if (encoded === undefined) return undefined;
    return { bytes: encoded, start: this.start, end: this.end, pairs: this.encodedPairs, lastDoc: this.lastEncoded, added: this.onTail(() => super.size) };
  }

  /** The postings added after the undecoded bytes, in id order. */
  forEachAdded(visit: (frequency: number, doc: number) => void): void {
    if (this.encoded !== undefined) this.onTail(() => super.forEachUnchanging(visit));
  }

  /**
   * Read-only walks (scoring, live counts) decode the bytes as they go and keep them as they are: a query leaves a
   * common word's postings as a few bytes each, not pairs of 32-bit numbers, and allocates nothing for them.
   */
  override forEachUnchanging(visit: (frequency: number, doc: number) => void): void {
    const encoded = this.encoded;
    if (encoded === undefined) return super.forEachUnchanging(visit);
    this.decodeEncoded(encoded, visit);
    this.onTail(() => super.forEachUnchanging(visit));
  }

  /** A list that has no posting of a dead chunk stays encoded. */
  override dropDead(live: Uint8Array): boolean {
    if (this.encoded !== undefined) {
      let dead = false;
      this.forEachUnchanging((_, doc) => {
        if (live[doc] !== 1) dead = true;
      });
      if (!dead) return false;
    }
    return super.dropDead(live);
  }

  /** Runs `work` on the postings added after the encoded ones. */
  private onTail<T>(work: () => T): T {
    this.tailOnly = true;
    try {
      return work();
    } finally {
      this.tailOnly = false;
    }
  }

  protected override materialize(): void {
    if (this.encoded === undefined || this.tailOnly) return;
    const encoded = this.encoded;
    const tail: number[] = [];
    this.onTail(() => super.forEachUnchanging((frequency, doc) => tail.push(doc, frequency)));
    // Dropped first: appending must not decode again.
    this.encoded = undefined;
    this.clear();
    // Room for all of them at once.
    this.reserveFor(this.encodedPairs + tail.length / 2);
    this.decodeEncoded(encoded, (frequency, doc) => this.append(doc, frequency));
    for (let i = 0; i < tail.length; i += 2) this.append(tail[i]!, tail[i + 1]!);
    this.start = this.end = 0;
  }

  /** The encoded postings in id order, checked against the counts they were loaded with (see `loadPostings`). */
  private decodeEncoded(encoded: Uint8Array, visit: (frequency: number, doc: number) => void): void {
    let lastDoc = -1;
    const pairs = new VarintReader().decodePostings(encoded, this.start, this.end, this.idLimit, (doc, frequency) => {
      lastDoc = doc;
      visit(frequency, doc);
    });
    if (pairs !== this.encodedPairs || lastDoc !== this.lastEncoded) throw new KeywordIndexCorruptError('keyword index postings are damaged');
  }
}

/** Reads the varint postings in bytes `start .. end - 1` of a buffer. */
class VarintReader {
  private bytes: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private end = 0;

  /** Calls `each` for every posting; returns how many there are. */
  decodePostings(bytes: Uint8Array, start: number, end: number, idLimit: number, each: (doc: number, frequency: number) => void): number {
    this.seek(bytes, start, end);
    let doc = 0;
    let pairs = 0;
    while (this.offset < end) {
      doc += this.read();
      const frequency = this.read();
      if (doc >= idLimit || frequency === 0) throw new KeywordIndexCorruptError('keyword index postings are damaged');
      each(doc, frequency);
      pairs++;
    }
    return pairs;
  }

  /**
   * Walks the encoding without building anything: how many postings it holds and the highest id among them (-1 for
   * none). Throws KeywordIndexCorruptError on damage.
   */
  checkPostings(bytes: Uint8Array, start: number, end: number, idLimit: number): { pairs: number; lastDoc: number } {
    let lastDoc = -1;
    const pairs = this.decodePostings(bytes, start, end, idLimit, (doc) => {
      lastDoc = doc;
    });
    return { pairs, lastDoc };
  }

  private seek(bytes: Uint8Array, start: number, end: number): void {
    this.bytes = bytes;
    this.offset = start;
    this.end = end;
  }

  /** One varint of at most five bytes. Most are one byte (a small id gap, a frequency of 1): read without a loop. */
  private read(): number {
    const bytes = this.bytes;
    let offset = this.offset;
    if (offset >= this.end) throw new KeywordIndexCorruptError('keyword index postings are damaged');
    let byte = bytes[offset++]!;
    let value = byte & 0x7f;
    for (let scale = 128; byte >= 0x80; scale *= 128) {
      if (offset >= this.end || scale > 2 ** 28) throw new KeywordIndexCorruptError('keyword index postings are damaged');
      byte = bytes[offset++]!;
      value += (byte & 0x7f) * scale;
    }
    this.offset = offset;
    return value;
  }
}

/** Enough structure that MiniSearch's loader cannot silently build a broken index. */
function checkMiniSearchShape(value: unknown): asserts value is AsPlainObject {
  const js = value as Partial<Record<keyof AsPlainObject, unknown>> | null;
  const ok =
    typeof js === 'object' &&
    js !== null &&
    js.serializationVersion === 2 &&
    typeof js.documentCount === 'number' &&
    // Short ids are 32-bit in the packed postings, and below nextId.
    typeof js.nextId === 'number' &&
    Number.isSafeInteger(js.nextId) &&
    js.nextId >= 0 &&
    js.nextId <= 2 ** 32 &&
    isPlainObject(js.storedFields) &&
    Array.isArray(js.averageFieldLength) &&
    isPlainObject(js.fieldIds) &&
    FIELDS.every((field, i) => (js.fieldIds as Record<string, unknown>)[field] === i);
  if (!ok) throw new KeywordIndexCorruptError('keyword index data is damaged or from another version');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
