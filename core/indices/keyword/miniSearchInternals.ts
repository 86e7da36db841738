// ---------------------------------------------------------------------------------------------------------
// The one file that touches MiniSearch's internals. MiniSearch maintains the index (add, discard); vacuuming, which
// drops discarded chunks' postings, is done here (see `vacuum`).
// Queries are scored elsewhere (bm25Scorer.ts), over its postings, with its BM25+ formula: its own `search`
// builds a result object per matching chunk and sorts them all, which on a large vault costs more than the
// scoring (a common word matches tens of thousands of chunks). Saving and loading also write its postings
// directly, in a compact form. These are the fields of MiniSearch 7 used.
// ---------------------------------------------------------------------------------------------------------
import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import { tokenizeForSearch } from '../searchTokenizer.js';
import { extractField, FIELDS, type KeywordDoc } from './keywordDocs.js';
import { TimeSlices } from '../../process/timeSlices.js';
import { forEachPosting, PackedPostings } from './packedPostings.js';
import { FieldLengthTable } from './fieldLengthTable.js';

/** Field id → (chunk short id → term frequency). */
export type TermPostings = Map<number, Map<number, number>>;

/** A node of MiniSearch's radix tree of terms: edge label → child node, and '' → the postings of the term ending here. */
type TermNode = Map<string, TermNode | TermPostings>;
const LEAF = '';

interface MiniSearchInternals {
  _index: {
    get(term: string): TermPostings | undefined;
    set(term: string, value: TermPostings): unknown;
    fetch(term: string, initial: () => TermPostings): TermPostings;
    delete(term: string): void;
    atPrefix(prefix: string): Iterable<[string, TermPostings]>;
    fuzzyGet(term: string, maxDistance: number): Map<string, [TermPostings, number]>;
    [Symbol.iterator](): Iterator<[string, TermPostings]>;
    readonly size: number;
    _tree: TermNode;
    _prefix: string;
  };
  _documentIds: Map<number, string>;
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  _nextId: number;
  _dirtCount: number;
  _fieldIds: Record<string, number>;
}

/** MiniSearch 7's own steps of `add` that `ChunkPostings.add` takes as they are. */
interface MiniSearchMethods {
  addDocumentId(id: string): number;
  addFieldLength(doc: number, fieldId: number, count: number, length: number): void;
}

// Vacuuming walks the whole term tree: only once a tenth of the chunks (and at least 100) are discarded ones.
const VACUUM_AT = { dirtCount: 100, dirtFactor: 0.1 };

/** The same options at build and load time: MiniSearch does not store them in its JSON. */
const MINISEARCH_OPTIONS: Options<KeywordDoc> = {
  fields: [...FIELDS],
  idField: 'id',
  storeFields: [],
  extractField,
  tokenize: tokenizeForSearch,
  processTerm: (term) => term,
  // MiniSearch's own vacuum walks the tree with an iterator that an add can break (a new term splitting an edge it
  // has yet to visit), and makes an array per posting: ChunkPostings vacuums instead.
  autoVacuum: false,
};

function internals(mini: MiniSearch<KeywordDoc>): MiniSearchInternals {
  const m = mini as unknown as MiniSearchInternals;
  const ok =
    m._documentIds instanceof Map &&
    m._idToShortId instanceof Map &&
    m._fieldLength instanceof Map &&
    Array.isArray(m._avgFieldLength) &&
    typeof m._documentCount === 'number' &&
    typeof m._nextId === 'number' &&
    typeof m._dirtCount === 'number' &&
    typeof m._index?.atPrefix === 'function' &&
    m._index._tree instanceof Map &&
    m._index._prefix === '' &&
    typeof m._index.fetch === 'function' &&
    typeof (mini as unknown as Partial<MiniSearchMethods>).addDocumentId === 'function' &&
    typeof (mini as unknown as Partial<MiniSearchMethods>).addFieldLength === 'function' &&
    typeof m._index.fuzzyGet === 'function';
  if (!ok) throw new Error('minisearch internals are not those of version 7; core/indices/keyword/miniSearchInternals.ts needs updating');
  return m;
}

/** How many terms' postings `ChunkPostings` keeps at hand between adds (see termsSeen). */
const TERMS_SEEN_LIMIT = 50_000;

/** A term's postings in a field are packed once they hold this many chunks: below it a Map costs about the same. */
const PACK_AT = 32;

const newFields = (): TermPostings => new Map();

/** A MiniSearch index of chunks, with its postings and document tables opened up for scoring and saving. */
export class ChunkPostings {
  private readonly m: MiniSearchInternals;
  /** Chunks added and discarded so far: a live count taken since is still right (vacuuming drops only dead postings). */
  private changes = 0;
  /**
   * Live counts of posting lists already counted for `liveFrequency`. Discarded chunks' postings stay until vacuumed,
   * even through a save and a load: without these, each keystroke's prefix completions would count every posting of
   * every candidate term while any are left.
   */
  private readonly liveCounts = new WeakMap<Map<number, number>, { changes: number; count: number }>();
  /** MiniSearch's field lengths, in typed arrays (see fieldLengthTable.ts). */
  private readonly lengths = new FieldLengthTable(FIELDS.length);
  /**
   * Which chunks are live, by short id: scoring reads it for every posting of a query's words, and a typed array
   * read is some 10x faster than a Map's lookup.
   */
  private live = new Uint8Array(0);

  /**
   * Terms' postings as last found in the term tree. MiniSearch looks every occurrence of a term up in its radix
   * tree, which was most of the cost of indexing; chunks added one after another share most of their words, also
   * across the short turns an indexing pass takes. A term's postings stay the same object while the term is in the
   * tree: only vacuuming and loading take terms out or replace them, and they empty this.
   */
  private readonly termsSeen = new Map<string, TermPostings>();
  /** While `addAll` runs: a chunk is added whole, so a discard from inside it (its `enough` callback) is a mistake. */
  private adding = false;
  /** The vacuum under way, if any, and whether chunks discarded meanwhile call for another. */
  private vacuuming: Promise<void> | null = null;
  private vacuumAgain = false;

  private constructor(
    private readonly mini: MiniSearch<KeywordDoc>,
    /** How long a turn of vacuuming runs (shorter in tests, to interleave adds with it). */
    private readonly vacuumTurnMs?: number,
  ) {
    this.m = internals(mini);
    this.m._fieldLength = this.lengths;
  }

  static create(vacuumTurnMs?: number): ChunkPostings {
    return new ChunkPostings(new MiniSearch(MINISEARCH_OPTIONS), vacuumTurnMs);
  }

  /**
   * From MiniSearch's own serialisation without its inverted index or document tables: the tables follow with
   * `addDocumentId` and `addFieldLengths`, the postings with `setTerm` (the index file holds them a few thousand to a
   * line, so no line is long work). The caller checks the counts once all are in.
   */
  static fromPlain(plain: AsPlainObject): ChunkPostings {
    return new ChunkPostings(MiniSearch.loadJS({ ...plain, index: [], documentIds: {}, fieldLength: {} }, MINISEARCH_OPTIONS));
  }

  /** A loaded chunk's short id; false for an entry that cannot be one (outside the ids in use, or already given). */
  addDocumentId(doc: number, id: string): boolean {
    const m = this.m;
    if (!Number.isInteger(doc) || doc < 0 || doc >= m._nextId || m._documentIds.has(doc) || m._idToShortId.has(id)) return false;
    m._documentIds.set(doc, id);
    m._idToShortId.set(id, doc);
    return true;
  }

  /** A loaded chunk's field lengths; false for an entry that cannot be one. */
  addFieldLengths(doc: number, lengths: number[]): boolean {
    const m = this.m;
    if (!Number.isInteger(doc) || doc < 0 || doc >= m._nextId || m._fieldLength.has(doc)) return false;
    if (lengths.length !== FIELDS.length || !lengths.every((n) => Number.isInteger(n) && n >= 0)) return false;
    m._fieldLength.set(doc, lengths);
    this.tabulate(doc);
    return true;
  }

  get documentCount(): number {
    return this.mini.documentCount;
  }

  has(id: string): boolean {
    return this.mini.has(id);
  }

  /**
   * Adds chunks not in the index (discard a chunk's previous version first), in order, until `enough()` says to stop
   * (asked after each one); returns how many it added.
   */
  addAll(docs: readonly KeywordDoc[], enough: () => boolean = () => false): number {
    this.adding = true;
    let added = 0;
    try {
      while (added < docs.length) {
        const doc = docs[added++]!;
        this.add(doc);
        this.tabulate(this.m._idToShortId.get(doc.id)!);
        this.changes++;
        if (enough()) break;
      }
    } finally {
      this.adding = false;
      // Bounded: the words of the last few thousand chunks, not the vault's vocabulary.
      if (this.termsSeen.size > TERMS_SEEN_LIMIT) this.termsSeen.clear();
    }
    return added;
  }

  /**
   * MiniSearch's `add`, with the same tree, postings and field lengths as a result, except that a chunk's terms are
   * counted first: MiniSearch updates the term's postings for every occurrence, which made a term tree lookup and a
   * posting update per word of the text. A term's postings in a field are packed (packedPostings.ts) once they reach
   * PACK_AT chunks, and then grow packed.
   */
  private add(chunk: KeywordDoc): void {
    const m = this.m;
    const mini = this.mini as unknown as MiniSearchMethods;
    if (m._idToShortId.has(chunk.id)) throw new Error(`MiniSearch: duplicate ID ${chunk.id}`);
    const doc = mini.addDocumentId(chunk.id);
    const counts = new Map<string, number>();
    for (const field of FIELDS) {
      const fieldId = m._fieldIds[field]!;
      counts.clear();
      for (const term of tokenizeForSearch(extractField(chunk, field))) counts.set(term, (counts.get(term) ?? 0) + 1);
      mini.addFieldLength(doc, fieldId, m._documentCount - 1, counts.size);
      for (const [term, frequency] of counts) {
        if (term === '') continue;
        let fields = this.termsSeen.get(term);
        if (fields === undefined) {
          fields = m._index.fetch(term, newFields);
          this.termsSeen.set(term, fields);
        }
        const postings = fields.get(fieldId);
        if (postings === undefined) fields.set(fieldId, new Map([[doc, frequency]]));
        else {
          postings.set(doc, frequency);
          if (postings.size >= PACK_AT && !(postings instanceof PackedPostings)) fields.set(fieldId, PackedPostings.from(postings));
        }
      }
    }
  }

  /**
   * Gives a chunk another id, keeping its postings, lengths and short id: the same text under a new id (a section
   * whose place in its note moved). False, changing nothing, when `from` is absent or `to` is taken.
   */
  relabel(from: string, to: string): boolean {
    const m = this.m;
    const doc = m._idToShortId.get(from);
    if (doc === undefined || m._idToShortId.has(to)) return false;
    m._idToShortId.delete(from);
    m._idToShortId.set(to, doc);
    m._documentIds.set(doc, to);
    return true;
  }

  discard(id: string): void {
    if (this.adding) throw new Error('a chunk was discarded while chunks were being added');
    const doc = this.m._idToShortId.get(id);
    this.mini.discard(id);
    if (doc !== undefined) this.live[doc] = 0;
    this.changes++;
    this.maybeVacuum();
  }

  private maybeVacuum(): void {
    if (this.vacuuming) {
      this.vacuumAgain = true;
      return;
    }
    const dirt = this.m._dirtCount;
    if (dirt < VACUUM_AT.dirtCount || dirt / (1 + this.m._documentCount + dirt) < VACUUM_AT.dirtFactor) return;
    const run = this.vacuum().finally(() => {
      this.vacuuming = null;
      if (this.vacuumAgain) {
        this.vacuumAgain = false;
        this.maybeVacuum();
      }
    });
    this.vacuuming = run;
    // Handled: a failure reaches whoever settles the index (a save), not the process as an unhandled rejection.
    run.catch(() => {});
  }

  /**
   * Drops discarded chunks' postings, and terms left with none, in turns. Between turns chunks may be added, and
   * MiniSearch's tree restructured by new terms: each turn walks on from the last term it reached, in term order,
   * through the tree as it is then. A posting list without discarded chunks is left as it is (a loaded one encoded).
   */
  private async vacuum(): Promise<void> {
    const turns = new TimeSlices(this.vacuumTurnMs);
    // Not in the turn of the discard that started it: that one has work of its own to finish.
    await turns.next();
    // Every chunk discarded by now loses its postings in this walk.
    const dirt = this.m._dirtCount;
    let after: string | undefined;
    for (;;) {
      let finished = true;
      const emptied: Array<[string, TermPostings]> = [];
      for (const [term, fields] of termsAfter(this.m._index._tree, '', after)) {
        for (const [fieldId, postings] of fields) {
          if (dropDead(postings, this.live) && postings.size === 0) fields.delete(fieldId);
        }
        if (fields.size === 0) emptied.push([term, fields]);
        after = term;
        if (turns.due()) {
          finished = false;
          break;
        }
      }
      // After the walk: deleting restructures the tree it walks.
      for (const [term, fields] of emptied) if (fields.size === 0 && this.m._index.get(term) === fields) this.m._index.delete(term);
      if (emptied.length > 0) this.termsSeen.clear();
      if (finished) break;
      await turns.next();
    }
    // Chunks discarded during the walk may keep postings in terms it had passed: they stay counted.
    this.m._dirtCount -= dirt;
  }

  /** Seals a chunk just added (or loaded) into the field-length table, and counts it live. */
  private tabulate(doc: number): void {
    this.lengths.seal();
    if (doc >= this.live.length) {
      const live = new Uint8Array(Math.max(1024, doc + 1, this.live.length * 2));
      live.set(this.live);
      this.live = live;
    }
    this.live[doc] = 1;
  }

  /** The chunk id of a short id (MiniSearch's number for a chunk). */
  idOf(doc: number): string | undefined {
    return this.m._documentIds.get(doc);
  }

  shortIdOf(id: string): number | undefined {
    return this.m._idToShortId.get(id);
  }

  /** Every short id is below this. */
  get idLimit(): number {
    return this.m._nextId;
  }

  /** Whether a short id is a chunk of the index (not discarded). */
  isLive(doc: number): boolean {
    return this.live[doc] === 1;
  }

  /** A live chunk's length in a field (its count of distinct terms there). */
  lengthIn(doc: number, fieldId: number): number {
    return this.lengths.lengthAt(doc, fieldId);
  }

  averageFieldLength(fieldId: number): number {
    return this.m._avgFieldLength[fieldId]!;
  }

  postings(term: string): TermPostings | undefined {
    return this.m._index.get(term);
  }

  atPrefix(prefix: string): Iterable<[string, TermPostings]> {
    return this.m._index.atPrefix(prefix);
  }

  fuzzyGet(term: string, maxDistance: number): Map<string, [TermPostings, number]> {
    return this.m._index.fuzzyGet(term, maxDistance);
  }

  get termCount(): number {
    return this.m._index.size;
  }

  /** Every term with its postings (discarded chunks' ones included until vacuumed). */
  entries(): Iterable<[string, TermPostings]> {
    return this.m._index;
  }

  setTerm(term: string, fields: TermPostings): void {
    this.termsSeen.delete(term);
    this.m._index.set(term, fields);
  }

  /** How many live chunks a posting list holds. */
  private liveCount(postings: Map<number, number>): number {
    const cached = this.liveCounts.get(postings);
    if (cached?.changes === this.changes) return cached.count;
    let count = 0;
    const visit = (_: number, doc: number) => {
      if (this.live[doc] === 1) count++;
    };
    // Packed postings are walked without allocating, and loaded ones without decoding them for good.
    forEachPosting(postings, visit);
    this.liveCounts.set(postings, { changes: this.changes, count });
    return count;
  }

  /**
   * How many chunks (per field) hold a term, counting only live ones while discarded chunks await vacuuming: which
   * completions and corrections a query gets must not depend on the index's edit history or on vacuum timing.
   */
  liveFrequency(fields: TermPostings | undefined): number {
    if (!fields) return 0;
    let count = 0;
    for (const postings of fields.values()) count += this.m._dirtCount > 0 ? this.liveCount(postings) : postings.size;
    return count;
  }

  /** Every distinct term some live chunk has. */
  terms(): string[] {
    const terms: string[] = [];
    // Terms of discarded chunks linger until vacuuming. With none discarded every term is live, and the postings
    // (decoded lazily after loading) need not be read at all.
    const dirty = this.m._dirtCount > 0;
    for (const [term, fields] of this.m._index) if (!dirty || this.hasLiveChunk(fields)) terms.push(term);
    return terms;
  }

  /** Waits for vacuuming, which changes the postings across event-loop turns. */
  async settle(): Promise<void> {
    while (this.vacuuming) await this.vacuuming;
  }

  /**
   * Counts the terms, in turns (on a large vault a walk over hundreds of thousands of them). Discarded chunks'
   * postings are saved as they are, with the count of discarded chunks, until they are vacuumed (once a tenth
   * of the chunks are discarded): dropping them here meant decoding and walking every posting of the index on
   * every save, about 1.5 GB of garbage for one edit at 50,000 chunks.
   */
  async prepareToSave(turns: TimeSlices): Promise<number> {
    let terms = 0;
    for (const _entry of this.m._index) {
      terms++;
      if (turns.due()) await turns.next();
    }
    return terms;
  }

  /**
   * MiniSearch's own serialisation, after `prepareToSave`, except the inverted index (written compactly from
   * `entries()`) and the document tables, which grow with the vault: `documentIds` and `fieldLength` give them.
   */
  plain(): Omit<AsPlainObject, 'documentIds' | 'fieldLength'> {
    const m = this.m;
    return {
      documentCount: m._documentCount,
      nextId: m._nextId,
      fieldIds: m._fieldIds,
      averageFieldLength: m._avgFieldLength,
      storedFields: {},
      dirtCount: m._dirtCount,
      index: [],
      serializationVersion: 2,
    };
  }

  /** How many entries the document tables hold. */
  tableSizes(): { documentIds: number; fieldLength: number } {
    return { documentIds: this.m._documentIds.size, fieldLength: this.m._fieldLength.size };
  }

  /** MiniSearch's `documentIds` table: short id → chunk id. */
  documentIds(): Iterable<[number, string]> {
    return this.m._documentIds;
  }

  /** MiniSearch's `fieldLength` table: the short ids it has a row for, in order. */
  fieldLengthRows(): Iterable<number> {
    return this.lengths.keys();
  }

  /** A row of the `fieldLength` table as JSON (each field's length), written without an array made for it. */
  fieldLengthJson(doc: number): string {
    return this.lengths.rowJson(doc);
  }

  private hasLiveChunk(fields: TermPostings): boolean {
    for (const postings of fields.values()) for (const doc of postings.keys()) if (this.live[doc] === 1) return true;
    return false;
  }
}

/**
 * The terms after `after` (every term when it is undefined), in code-unit order, with their postings. Edges leaving
 * a node start with different characters, so visiting them sorted visits terms in order, and a walk can go on from
 * any term whatever changed in the tree since.
 */
export function* termsAfter(node: TermNode, prefix: string, after: string | undefined): Generator<[string, TermPostings]> {
  for (const edge of [...node.keys()].sort()) {
    const child = node.get(edge)!;
    if (edge === LEAF) {
      if (after === undefined || prefix > after) yield [prefix, child as TermPostings];
      continue;
    }
    const reached = prefix + edge;
    // Every term below starts with `reached`: all sort before `after` unless `after` starts with it or is smaller.
    if (after !== undefined && reached < after && !after.startsWith(reached)) continue;
    yield* termsAfter(child as TermNode, reached, after);
  }
}

/** Drops the postings of chunks that are not live; says whether there were any. */
function dropDead(postings: Map<number, number>, live: Uint8Array): boolean {
  if (postings instanceof PackedPostings) return postings.dropDead(live);
  let dropped = false;
  for (const doc of postings.keys()) {
    if (live[doc] !== 1) {
      postings.delete(doc);
      dropped = true;
    }
  }
  return dropped;
}
