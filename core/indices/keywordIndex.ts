import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import { eachLine } from './lineFile.js';
import { QUERY_STOP_WORDS, foldAccents, scanTerms, tokenizeForSearch } from './searchTokenizer.js';

export interface KeywordDoc {
  id: string;
  path: string;
  title: string;
  aliases: string[];
  headerPath: string[];
  tags: string[];
  content: string;
}

export interface KeywordHit {
  id: string;
  score: number;
  exactTitle: boolean;
  /** Matched index terms. */
  terms: string[];
}

export interface KeywordSearchOptions {
  accept?: (id: string) => boolean;
  /** Extra weighted query terms (e.g. word-vector neighbours), OR-ed in with weight < 1. */
  expansions?: ReadonlyArray<{ term: string; weight: number }>;
}

export class KeywordIndexCorruptError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeywordIndexCorruptError';
  }
}

const FORMAT = 'cairn-keyword-index';
const FORMAT_VERSION = 2;

const FIELDS = ['title', 'aliases', 'headerPath', 'tags', 'content'] as const;
type Field = (typeof FIELDS)[number];

/**
 * A title or alias names what the whole note is about, a heading what this section is about, a tag a topic
 * someone chose; the body merely mentions. But title, aliases and tags are copied onto every chunk of a note:
 * they cannot tell its chunks apart, only the content can, and a large title boost lets every chunk of a note
 * whose title shares one word with the query outrank the passage that discusses it. Measured on the PowerShell
 * docs (300 queries of 3 rare words of a passage / 300 "title heading" queries, MRR@10): boosts 3/2/1 gave
 * 0.45 / 0.95, 2/1.5/1 gave 0.52 / 0.94, all 1 gave 0.58 / 0.92. Exact title and alias matches rank first by
 * themselves, so the boost need not do that job: the middle setting.
 */
export const KEYWORD_FIELD_BOOSTS: Readonly<Record<Field, number>> = { title: 2, aliases: 2, headerPath: 1.5, tags: 1.5, content: 1 };
const BOOST_BY_FIELD_ID = FIELDS.map((field) => KEYWORD_FIELD_BOOSTS[field]);

// BM25+ as MiniSearch defines it (its defaults).
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;

// Prefix matching completes the word being typed: only the last query word, only from 3 characters on.
const PREFIX_MIN_LENGTH = 3;
// A 3-letter prefix can cover thousands of terms; the most frequent completions are the likely ones.
const MAX_PREFIX_EXPANSIONS = 30;
// Typo tolerance: only for words long enough that one edit rarely lands on another real word.
const FUZZY_MIN_LENGTH = 6;
const FUZZINESS = 0.15;
const MAX_FUZZY_DISTANCE = 2;
const MAX_FUZZY_EXPANSIONS = 20;
// MiniSearch's own weights for prefix and fuzzy matches.
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
// Vacuuming walks the whole term tree: only once a tenth of the documents (and at least 100) are stale.
const AUTO_VACUUM = { minDirtCount: 100, minDirtFactor: 0.1, batchSize: 2000, batchWait: 5 };
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

// Terms per piece of the written JSON: about 10 ms of encoding each.
const TERMS_PER_LINE = 2000;

const TIER_EXACT_TITLE = 0;
const TIER_QUERY_TERMS = 1;
const TIER_EXPANSIONS_ONLY = 2;

function extractField(doc: KeywordDoc, field: string): string {
  switch (field) {
    case 'id':
      return doc.id;
    case 'title': {
      const base = baseName(doc.path);
      return normalizeExactKey(base) === normalizeExactKey(doc.title) ? doc.title : `${doc.title}\n${base}`;
    }
    case 'aliases':
      return doc.aliases.join('\n');
    case 'headerPath':
      return doc.headerPath.join('\n');
    case 'tags':
      return doc.tags.join('\n');
    case 'content':
      return doc.content;
    default:
      throw new Error(`unknown keyword field ${field}`);
  }
}

/** The same options at build and load time: MiniSearch does not store them in its JSON. */
const MINISEARCH_OPTIONS: Options<KeywordDoc> = {
  fields: [...FIELDS],
  idField: 'id',
  storeFields: [],
  extractField,
  tokenize: tokenizeForSearch,
  processTerm: (term) => term,
  autoVacuum: AUTO_VACUUM,
};

/** Lowercased, accent-folded, runs of whitespace and punctuation collapsed to one space. */
export function normalizeExactKey(text: string): string {
  const folded = foldAccents(text).toLowerCase();
  const collapsed = folded.replace(/[\s\p{P}\p{S}]+/gu, ' ').trim();
  return collapsed !== '' ? collapsed : folded.trim();
}

function baseName(path: string): string {
  const file = path.slice(path.lastIndexOf('/') + 1);
  return file.replace(/\.(md|markdown)$/i, '');
}

// ---------------------------------------------------------------------------------------------------------
// MiniSearch maintains the index (add, discard, vacuum). Queries are scored here, over its postings, with its
// BM25+ formula: its own `search` builds a result object per matching chunk and sorts them all, which on a
// large vault costs more than the scoring (a common word matches tens of thousands of chunks). Saving and
// loading also write its postings directly, in a compact form. These are the fields of MiniSearch 7 used.
// ---------------------------------------------------------------------------------------------------------

/** Field id → (chunk short id → term frequency). */
type TermPostings = Map<number, Map<number, number>>;

interface MiniSearchInternals {
  _index: {
    get(term: string): TermPostings | undefined;
    set(term: string, value: TermPostings): unknown;
    delete(term: string): void;
    atPrefix(prefix: string): Iterable<[string, TermPostings]>;
    fuzzyGet(term: string, maxDistance: number): Map<string, [TermPostings, number]>;
    [Symbol.iterator](): Iterator<[string, TermPostings]>;
    readonly size: number;
  };
  _documentIds: Map<number, string>;
  _idToShortId: Map<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  _nextId: number;
  _dirtCount: number;
  _fieldIds: Record<string, number>;
  _currentVacuum: Promise<void> | null;
}

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
    typeof m._index.fuzzyGet === 'function' &&
    '_currentVacuum' in m;
  if (!ok) throw new Error('minisearch internals are not those of version 7; core/indices/keywordIndex.ts needs updating');
  return m;
}

/** The terms scored for a query, each with a boost and the query slot (original query term) it stands for. */
class QueryPlan {
  readonly terms: string[] = [];
  readonly boosts: number[] = [];
  readonly slots: number[] = [];
  private readonly isQueryTerm: boolean[] = [];
  private readonly position = new Map<string, number>();

  /** Adds a term of the query itself; returns its slot. */
  addQueryTerm(term: string): number {
    const at = this.position.get(term);
    if (at !== undefined) return this.slots[at]!;
    this.push(term, 1, this.terms.length, true);
    return this.terms.length - 1;
  }

  /** Adds a completion, correction or synonym standing for `slot`; a query term is never demoted by one. */
  addCandidate(term: string, boost: number, slot: number): void {
    const at = this.position.get(term);
    if (at === undefined) this.push(term, boost, slot, false);
    else if (!this.isQueryTerm[at] && boost > this.boosts[at]!) {
      this.boosts[at] = boost;
      this.slots[at] = slot;
    }
  }

  has(term: string): boolean {
    return this.position.has(term);
  }

  private push(term: string, boost: number, slot: number, isQueryTerm: boolean): void {
    this.position.set(term, this.terms.length);
    this.terms.push(term);
    this.boosts.push(boost);
    this.slots.push(slot);
    this.isQueryTerm.push(isQueryTerm);
  }
}

/** BM25+ sums per chunk (indexed by MiniSearch short id), and how many query slots each chunk matched. */
interface Scores {
  sum: Float64Array;
  slotCount: Uint16Array;
  touched: number[];
}

/** Caches `accept` per chunk for one query: it is asked once per chunk, not once per matching term. */
class ChunkFilter {
  private readonly state: Uint8Array | undefined;

  constructor(
    private readonly accept: ((id: string) => boolean) | undefined,
    private readonly ids: Map<number, string>,
    size: number,
  ) {
    this.state = accept ? new Uint8Array(size) : undefined;
  }

  accepts(doc: number): boolean {
    if (!this.state) return true;
    let state = this.state[doc]!;
    if (state === 0) this.state[doc] = state = this.accept!(this.ids.get(doc)!) ? 1 : 2;
    return state === 1;
  }
}

interface Candidate {
  doc: number;
  tier: number;
  score: number;
}

/**
 * BM25+ keyword search over chunks, with exact title/alias matches first, as-you-type prefix on the last word,
 * light typo tolerance, and optional weighted expansion terms.
 */
export class KeywordIndex {
  private readonly idsByTitleKey = new Map<string, Set<string>>();
  private readonly titleKeysById = new Map<string, string[]>();
  private readonly m: MiniSearchInternals;

  private constructor(private readonly mini: MiniSearch<KeywordDoc>) {
    this.m = internals(mini);
  }

  static create(): KeywordIndex {
    return new KeywordIndex(new MiniSearch(MINISEARCH_OPTIONS));
  }

  /**
   * Loads what `lines()` wrote: the header first (MiniSearch's document tables and the title map), then the
   * postings, line by line, giving the event loop a turn every few milliseconds.
   */
  static async read(bytes: Uint8Array): Promise<KeywordIndex> {
    let index: KeywordIndex | undefined;
    let expectedTerms = 0;
    await eachLine(bytes, (line, lineNumber) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (error) {
        throw new KeywordIndexCorruptError(`keyword index line ${lineNumber} is not valid JSON`, { cause: error });
      }
      if (!index) {
        ({ index, terms: expectedTerms } = KeywordIndex.fromHeader(parsed));
      } else {
        if (!Array.isArray(parsed)) throw new KeywordIndexCorruptError(`keyword index line ${lineNumber} holds no postings`);
        index.loadPostings(parsed);
      }
    });
    if (!index) throw new KeywordIndexCorruptError('keyword index is empty');
    if (index.m._index.size !== expectedTerms) throw new KeywordIndexCorruptError(`keyword index holds ${index.m._index.size} terms, its header says ${expectedTerms}`);
    return index;
  }

  private static fromHeader(parsed: unknown): { index: KeywordIndex; terms: number } {
    const data = parsed as { format?: unknown; version?: unknown; titles?: unknown; miniSearch?: unknown; terms?: unknown } | null;
    if (typeof data !== 'object' || data === null || data.format !== FORMAT) {
      throw new KeywordIndexCorruptError('not a keyword index');
    }
    if (data.version !== FORMAT_VERSION) {
      throw new KeywordIndexCorruptError(`keyword index format version ${String(data.version)}, expected ${FORMAT_VERSION}`);
    }
    checkMiniSearchShape(data.miniSearch);
    if (typeof data.terms !== 'number' || !Number.isSafeInteger(data.terms) || data.terms < 0) throw new KeywordIndexCorruptError('keyword index header has no term count');
    let index: KeywordIndex;
    try {
      index = new KeywordIndex(MiniSearch.loadJS({ ...data.miniSearch, index: [] }, MINISEARCH_OPTIONS));
    } catch (error) {
      throw new KeywordIndexCorruptError('keyword index data is damaged', { cause: error });
    }
    index.loadTitles(data.titles);
    return { index, terms: data.terms };
  }

  /**
   * The index as lines of JSON: a header, then the postings, a few thousand terms a line. Written and read a
   * line at a time, so a large index neither holds the event loop for long nor needs one giant string. The index
   * must not change while they are taken (call `settle()` first: an automatic vacuum in progress would change it).
   */
  *lines(): Generator<string> {
    yield `${JSON.stringify(this.header())}\n`;
    let piece: Array<Array<string | number>> = [];
    for (const row of this.postingRows()) {
      piece.push(row);
      if (piece.length === TERMS_PER_LINE) {
        yield `${JSON.stringify(piece)}\n`;
        piece = [];
      }
    }
    if (piece.length) yield `${JSON.stringify(piece)}\n`;
  }

  /** Waits for MiniSearch's automatic vacuuming, which changes the postings across event-loop turns. */
  async settle(): Promise<void> {
    while (this.m._currentVacuum) await this.m._currentVacuum;
  }

  /** Everything but the postings; stale postings are dropped first, so only live data is written. */
  private header(): { format: string; version: number; terms: number; titles: Array<[string, string[]]>; miniSearch: AsPlainObject } {
    this.dropStalePostings();
    const m = this.m;
    // MiniSearch's own serialisation, except the inverted index, which is written compactly by postingRows().
    const miniSearch: AsPlainObject = {
      documentCount: m._documentCount,
      nextId: m._nextId,
      documentIds: Object.fromEntries(m._documentIds),
      fieldIds: m._fieldIds,
      fieldLength: Object.fromEntries(m._fieldLength),
      averageFieldLength: m._avgFieldLength,
      storedFields: {},
      dirtCount: m._dirtCount,
      index: [],
      serializationVersion: 2,
    };
    const titles = [...this.idsByTitleKey].map(([key, ids]): [string, string[]] => [key, [...ids]]);
    return { format: FORMAT, version: FORMAT_VERSION, terms: m._index.size, titles, miniSearch };
  }

  private *postingRows(): Generator<Array<string | number>> {
    const writer = new VarintWriter();
    for (const [term, fields] of this.m._index) {
      const row: Array<string | number> = [term];
      for (const [fieldId, docs] of fields) row.push(fieldId, writer.encodePostings(docs));
      yield row;
    }
  }

  get size(): number {
    return this.mini.documentCount;
  }

  has(id: string): boolean {
    return this.mini.has(id);
  }

  upsert(docs: ReadonlyArray<KeywordDoc>): void {
    for (const doc of docs) {
      if (this.mini.has(doc.id)) this.discard(doc.id);
      this.mini.add(doc);
      for (const key of new Set([doc.title, baseName(doc.path), ...doc.aliases].map(normalizeExactKey))) {
        if (key !== '') this.addTitleKey(key, doc.id);
      }
    }
  }

  remove(ids: Iterable<string>): void {
    for (const id of ids) if (this.mini.has(id)) this.discard(id);
  }

  search(query: string, k: number, options: KeywordSearchOptions = {}): KeywordHit[] {
    const limit = Math.floor(k);
    if (!(limit > 0)) return [];
    const m = this.m;
    const filter = new ChunkFilter(options.accept, m._documentIds, m._nextId);
    const plan = this.planQuery(query);
    const main = this.score(plan, filter);
    const expansionPlan = this.planExpansions(options.expansions ?? [], plan);
    const expansions = expansionPlan.terms.length > 0 ? this.score(expansionPlan, filter) : undefined;

    const best = new TopK<Candidate>(limit, (a, b) => compareCandidates(a, b, m._documentIds));
    const exact = new Set<number>();
    for (const id of this.idsByTitleKey.get(normalizeExactKey(query)) ?? []) {
      const doc = m._idToShortId.get(id);
      if (doc !== undefined && filter.accepts(doc)) exact.add(doc);
    }
    const rank = (doc: number): Candidate => {
      // MiniSearch multiplies by the number of query terms matched; here by query slots, so a prefix completion
      // or typo correction does not count as a second matched word.
      const own = main.sum[doc]! * main.slotCount[doc]!;
      const extra = expansions ? expansions.sum[doc]! : 0;
      // Expansion-only matches rank after every chunk that matched the query's own terms: a synonym may add to
      // an exact match, never push one out of the top k.
      const tier = exact.has(doc) ? TIER_EXACT_TITLE : main.slotCount[doc]! > 0 ? TIER_QUERY_TERMS : TIER_EXPANSIONS_ONLY;
      return { doc, tier, score: own + extra };
    };
    for (const doc of main.touched) best.offer(rank(doc));
    for (const doc of expansions?.touched ?? []) if (main.slotCount[doc] === 0) best.offer(rank(doc));
    for (const doc of exact) if (main.slotCount[doc] === 0 && !(expansions && expansions.slotCount[doc]! > 0)) best.offer(rank(doc));

    return best.sorted().map(({ doc, tier, score }) => ({
      id: m._documentIds.get(doc)!,
      score,
      exactTitle: tier === TIER_EXACT_TITLE,
      terms: this.matchedTerms(doc, plan, expansionPlan),
    }));
  }

  /** Every distinct indexed term (for building query expansions over the vault's own vocabulary). */
  terms(): string[] {
    const terms: string[] = [];
    // Terms of discarded chunks linger until vacuuming; list only terms some live chunk still has. With none
    // discarded every term is live, and the postings (decoded lazily after loading) need not be read at all.
    const dirty = this.m._dirtCount > 0;
    for (const [term, fields] of this.m._index) if (!dirty || this.hasLiveChunk(fields)) terms.push(term);
    return terms;
  }

  private score(plan: QueryPlan, filter: ChunkFilter): Scores {
    const m = this.m;
    const size = m._nextId;
    const scores: Scores = { sum: new Float64Array(size), slotCount: new Uint16Array(size), touched: [] };
    const lastSlot = new Int32Array(size).fill(-1);
    const { sum, slotCount, touched } = scores;
    const fieldLength = m._fieldLength;
    const documentCount = m._documentCount;
    // Discarded chunks keep postings until vacuumed: then count only live ones, so scores do not depend on
    // when MiniSearch last vacuumed.
    const dirty = m._dirtCount > 0;
    // Slot by slot, so that "matched this slot already" is one comparison with the last slot seen.
    const order = plan.terms.map((_, t) => t).sort((a, b) => plan.slots[a]! - plan.slots[b]! || a - b);
    for (const t of order) {
      const fields = m._index.get(plan.terms[t]!);
      if (!fields) continue;
      const slot = plan.slots[t]!;
      const termBoost = plan.boosts[t]!;
      fields.forEach((postings, fieldId) => {
        const frequency = dirty ? this.liveCount(postings) : postings.size;
        if (frequency === 0) return;
        const idf = Math.log(1 + (documentCount - frequency + 0.5) / (frequency + 0.5));
        const weight = termBoost * BOOST_BY_FIELD_ID[fieldId]! * idf;
        const averageLength = m._avgFieldLength[fieldId]!;
        postings.forEach((tf, doc) => {
          const lengths = fieldLength.get(doc);
          if (lengths === undefined || !filter.accepts(doc)) return;
          const norm = BM25_K * (1 - BM25_B + (BM25_B * lengths[fieldId]!) / averageLength);
          sum[doc] += weight * (BM25_D + (tf * (BM25_K + 1)) / (tf + norm));
          if (lastSlot[doc] !== slot) {
            if (lastSlot[doc] === -1) touched.push(doc);
            lastSlot[doc] = slot;
            slotCount[doc]++;
          }
        });
      });
    }
    return scores;
  }

  private matchedTerms(doc: number, ...plans: QueryPlan[]): string[] {
    const matched: string[] = [];
    for (const plan of plans) {
      for (const term of plan.terms) {
        const fields = this.m._index.get(term);
        if (fields && [...fields.values()].some((postings) => postings.has(doc))) matched.push(term);
      }
    }
    return matched;
  }

  private liveCount(postings: Map<number, number>): number {
    let count = 0;
    for (const doc of postings.keys()) if (this.m._fieldLength.has(doc)) count++;
    return count;
  }

  /**
   * How many chunks (per field) hold a term, counting only live ones while discarded chunks await vacuuming: which
   * completions and corrections a query gets must not depend on the index's edit history or on vacuum timing.
   */
  private liveFrequency(fields: TermPostings | undefined): number {
    if (!fields) return 0;
    let count = 0;
    for (const postings of fields.values()) count += this.m._dirtCount > 0 ? this.liveCount(postings) : postings.size;
    return count;
  }

  private hasLiveChunk(fields: TermPostings): boolean {
    for (const postings of fields.values()) for (const doc of postings.keys()) if (this.m._fieldLength.has(doc)) return true;
    return false;
  }

  private planQuery(query: string): QueryPlan {
    const terms: string[] = [];
    const tokens: number[] = [];
    scanTerms(query, terms, tokens);
    const dropStopWords = terms.some((term) => !QUERY_STOP_WORDS.has(term));
    const kept = terms.map((_, i) => i).filter((i) => !(dropStopWords && QUERY_STOP_WORDS.has(terms[i]!)));
    const plan = new QueryPlan();
    if (kept.length === 0) return plan;

    const lastToken = tokens[kept.at(-1)!]!;
    const lastWhole = terms[tokens.indexOf(lastToken)]!;
    const queryTerms: Array<{ term: string; slot: number; last: boolean }> = [];
    for (const i of kept) {
      const term = terms[i]!;
      if (!plan.has(term)) queryTerms.push({ term, slot: plan.addQueryTerm(term), last: tokens[i] === lastToken });
    }
    for (const { term, slot, last } of queryTerms) {
      // The word being typed: the whole token and its trailing parts (`get-chil` → `get-chil`, `chil`).
      if (last && term.length >= PREFIX_MIN_LENGTH && lastWhole.endsWith(term)) this.addPrefixCompletions(plan, term, slot);
      // A word the vault does not contain is likely misspelt; a word it does contain is taken as meant.
      if (term.length >= FUZZY_MIN_LENGTH && !CJK.test(term) && !this.liveFrequency(this.m._index.get(term))) this.addTypoCorrections(plan, term, slot);
    }
    return plan;
  }

  private addPrefixCompletions(plan: QueryPlan, term: string, slot: number): void {
    const candidates: Array<{ term: string; frequency: number }> = [];
    for (const [candidate, fields] of this.m._index.atPrefix(term)) {
      const frequency = this.liveFrequency(fields);
      if (candidate !== term && frequency > 0) candidates.push({ term: candidate, frequency });
    }
    candidates.sort((a, b) => b.frequency - a.frequency || (a.term < b.term ? -1 : 1));
    for (const candidate of candidates.slice(0, MAX_PREFIX_EXPANSIONS)) {
      const extra = candidate.term.length - term.length;
      plan.addCandidate(candidate.term, (PREFIX_WEIGHT * candidate.term.length) / (candidate.term.length + 0.3 * extra), slot);
    }
  }

  /** Edit distance within ≈15 % of the length, plus adjacent transpositions (`recieve` → `receive`) as one edit. */
  private addTypoCorrections(plan: QueryPlan, term: string, slot: number): void {
    const index = this.m._index;
    const maxDistance = Math.min(MAX_FUZZY_DISTANCE, Math.max(1, Math.round(term.length * FUZZINESS)));
    const candidates = new Map<string, { distance: number; frequency: number }>();
    for (const [candidate, [fields, distance]] of index.fuzzyGet(term, maxDistance)) {
      const frequency = this.liveFrequency(fields);
      if (distance > 0 && frequency > 0) candidates.set(candidate, { distance, frequency });
    }
    for (let i = 0; i + 1 < term.length; i++) {
      if (term[i] === term[i + 1]) continue;
      const swapped = term.slice(0, i) + term[i + 1] + term[i] + term.slice(i + 2);
      const frequency = this.liveFrequency(index.get(swapped));
      if (frequency > 0) candidates.set(swapped, { distance: 1, frequency });
    }
    const best = [...candidates].sort(
      (a, b) => a[1].distance - b[1].distance || b[1].frequency - a[1].frequency || (a[0] < b[0] ? -1 : 1),
    );
    for (const [candidate, { distance }] of best.slice(0, MAX_FUZZY_EXPANSIONS)) {
      plan.addCandidate(candidate, (FUZZY_WEIGHT * candidate.length) / (candidate.length + distance), slot);
    }
  }

  /** An expansion that is an index term (as `terms()` lists them) is used as is, anything else tokenized. */
  private planExpansions(expansions: ReadonlyArray<{ term: string; weight: number }>, main: QueryPlan): QueryPlan {
    const plan = new QueryPlan();
    for (const { term, weight } of expansions) {
      if (!(weight > 0)) continue;
      const asIndexTerm = foldAccents(term).toLowerCase();
      const parts = this.m._index.get(asIndexTerm) ? [asIndexTerm] : tokenizeForSearch(term);
      for (const part of parts) if (!main.has(part)) plan.addCandidate(part, Math.min(weight, 1), plan.terms.length);
    }
    return plan;
  }

  /**
   * Discarded chunks keep their postings until MiniSearch vacuums. Saving is a full pass anyway, so drop them
   * first: the saved index then holds only live data.
   */
  private dropStalePostings(): void {
    if (this.m._dirtCount === 0 || this.mini.isVacuuming) return;
    const emptyTerms: string[] = [];
    for (const [term, fields] of this.m._index) {
      for (const [fieldId, postings] of fields) {
        for (const doc of postings.keys()) if (!this.m._fieldLength.has(doc)) postings.delete(doc);
        if (postings.size === 0) fields.delete(fieldId);
      }
      if (fields.size === 0) emptyTerms.push(term);
    }
    for (const term of emptyTerms) this.m._index.delete(term);
    this.m._dirtCount = 0;
  }

  private loadPostings(rows: unknown[]): void {
    const reader = new VarintReader();
    const fieldCount = FIELDS.length;
    for (const row of rows) {
      if (!Array.isArray(row) || typeof row[0] !== 'string' || row.length < 3 || row.length % 2 === 0) {
        throw new KeywordIndexCorruptError('keyword index postings are damaged');
      }
      const fields: TermPostings = new Map();
      for (let i = 1; i < row.length; i += 2) {
        const fieldId = row[i] as unknown;
        const encoded = row[i + 1] as unknown;
        if (typeof fieldId !== 'number' || !Number.isInteger(fieldId) || fieldId < 0 || fieldId >= fieldCount || typeof encoded !== 'string') {
          throw new KeywordIndexCorruptError('keyword index postings are damaged');
        }
        fields.set(fieldId, new LazyPostings(encoded, this.m._nextId, reader));
      }
      this.m._index.set(row[0], fields);
    }
  }

  private loadTitles(titles: unknown): void {
    if (!Array.isArray(titles)) throw new KeywordIndexCorruptError('keyword index has no title map');
    for (const entry of titles as unknown[]) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) {
        throw new KeywordIndexCorruptError('keyword index title map is damaged');
      }
      for (const id of entry[1] as unknown[]) {
        if (typeof id !== 'string' || !this.mini.has(id)) throw new KeywordIndexCorruptError('keyword index title map names an unknown chunk');
        this.addTitleKey(entry[0], id);
      }
    }
  }

  private discard(id: string): void {
    this.mini.discard(id);
    for (const key of this.titleKeysById.get(id) ?? []) {
      const ids = this.idsByTitleKey.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.idsByTitleKey.delete(key);
    }
    this.titleKeysById.delete(id);
  }

  private addTitleKey(key: string, id: string): void {
    let ids = this.idsByTitleKey.get(key);
    if (!ids) this.idsByTitleKey.set(key, (ids = new Set()));
    ids.add(id);
    const keys = this.titleKeysById.get(id);
    if (!keys) this.titleKeysById.set(id, [key]);
    else if (!keys.includes(key)) keys.push(key);
  }
}

function compareCandidates(a: Candidate, b: Candidate, ids: Map<number, string>): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.score !== b.score) return b.score - a.score;
  const idA = ids.get(a.doc)!;
  const idB = ids.get(b.doc)!;
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

/** The k best of a stream, in a binary heap whose root is the worst kept. */
class TopK<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly k: number,
    /** Negative when a ranks before b. */
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(item);
      this.siftUp(heap.length - 1);
    } else if (this.compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.siftDown(0);
    }
  }

  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.compare(heap[left]!, heap[worst]!) > 0) worst = left;
      if (right < heap.length && this.compare(heap[right]!, heap[worst]!) > 0) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}

/** Postings as base64 of varints: (short id delta, term frequency) pairs, ids ascending. ~4x smaller than JSON objects. */
class VarintWriter {
  private bytes = new Uint8Array(1 << 16);
  private length = 0;

  encodePostings(postings: Map<number, number>): string {
    this.length = 0;
    let docs = [...postings.keys()];
    if (!isAscending(docs)) docs = docs.sort((a, b) => a - b);
    let previous = 0;
    for (const doc of docs) {
      this.write(doc - previous);
      this.write(postings.get(doc)!);
      previous = doc;
    }
    return Buffer.from(this.bytes.buffer, 0, this.length).toString('base64');
  }

  private write(value: number): void {
    if (this.length + 5 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
  }
}

/**
 * The postings of one term in one field, decoded on first use. Loading a saved index then builds only the
 * postings that queries and updates touch, instead of millions of map entries up front (the bulk of the load
 * time and its garbage collection on a large vault). The encoding is checked when loaded, so damage is still
 * found at load.
 */
class LazyPostings extends Map<number, number> {
  private encoded: string | undefined;

  constructor(
    encoded: string,
    private readonly idLimit: number,
    reader: VarintReader,
  ) {
    super();
    reader.checkPostings(encoded, idLimit);
    this.encoded = encoded;
  }

  private decoded(): this {
    if (this.encoded !== undefined) {
      const encoded = this.encoded;
      this.encoded = undefined;
      for (const [doc, frequency] of new VarintReader().decodePostings(encoded, this.idLimit)) super.set(doc, frequency);
    }
    return this;
  }

  override get size(): number {
    return this.decoded() && super.size;
  }
  override get(key: number): number | undefined {
    return this.decoded() && super.get(key);
  }
  override has(key: number): boolean {
    return this.decoded() && super.has(key);
  }
  override set(key: number, value: number): this {
    // Map's constructor calls set() before `encoded` exists: nothing to decode then.
    if (this.encoded !== undefined) this.decoded();
    return super.set(key, value);
  }
  override delete(key: number): boolean {
    return this.decoded() && super.delete(key);
  }
  override clear(): void {
    this.encoded = undefined;
    super.clear();
  }
  override forEach(callback: (value: number, key: number, map: Map<number, number>) => void, thisArg?: unknown): void {
    this.decoded();
    super.forEach(callback, thisArg);
  }
  override entries(): MapIterator<[number, number]> {
    return this.decoded() && super.entries();
  }
  override keys(): MapIterator<number> {
    return this.decoded() && super.keys();
  }
  override values(): MapIterator<number> {
    return this.decoded() && super.values();
  }
  override [Symbol.iterator](): MapIterator<[number, number]> {
    return this.decoded() && super[Symbol.iterator]();
  }
}

class VarintReader {
  private bytes: Uint8Array = new Uint8Array(0);
  private offset = 0;

  decodePostings(encoded: string, idLimit: number): Map<number, number> {
    this.bytes = Buffer.from(encoded, 'base64');
    this.offset = 0;
    const postings = new Map<number, number>();
    let doc = 0;
    while (this.offset < this.bytes.length) {
      doc += this.read();
      const frequency = this.read();
      if (doc >= idLimit || frequency === 0) throw new KeywordIndexCorruptError('keyword index postings are damaged');
      postings.set(doc, frequency);
    }
    return postings;
  }

  /** Walks the encoding without building anything: throws KeywordIndexCorruptError on damage. */
  checkPostings(encoded: string, idLimit: number): void {
    this.bytes = Buffer.from(encoded, 'base64');
    this.offset = 0;
    let doc = 0;
    while (this.offset < this.bytes.length) {
      doc += this.read();
      if (doc >= idLimit || this.read() === 0) throw new KeywordIndexCorruptError('keyword index postings are damaged');
    }
  }

  private read(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (this.offset >= this.bytes.length || shift > 28) throw new KeywordIndexCorruptError('keyword index postings are damaged');
      const byte = this.bytes[this.offset++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  }
}

function isAscending(values: number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i]! <= values[i - 1]!) return false;
  return true;
}

/** Enough structure that MiniSearch's loader cannot silently build a broken index. */
function checkMiniSearchShape(value: unknown): asserts value is AsPlainObject {
  const js = value as Partial<Record<keyof AsPlainObject, unknown>> | null;
  const ok =
    typeof js === 'object' &&
    js !== null &&
    js.serializationVersion === 2 &&
    typeof js.documentCount === 'number' &&
    typeof js.nextId === 'number' &&
    isPlainObject(js.documentIds) &&
    isPlainObject(js.fieldLength) &&
    isPlainObject(js.storedFields) &&
    Array.isArray(js.averageFieldLength) &&
    isPlainObject(js.fieldIds) &&
    FIELDS.every((field, i) => (js.fieldIds as Record<string, unknown>)[field] === i) &&
    Object.keys(js.documentIds as object).length === js.documentCount &&
    Object.keys(js.fieldLength as object).length === js.documentCount;
  if (!ok) throw new KeywordIndexCorruptError('keyword index data is damaged or from another version');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
