/**
 * Keyword search over the chunk postings: BM25+ as MiniSearch defines it, counted per query slot, in the keyword
 * tiers (keywordTiers.ts), the k best kept in a heap rather than every match sorted.
 */
import { BestOf } from './bestOf.js';
import { BOOST_BY_FIELD_ID, normalizeExactKey, type TitleKeys } from './keywordDocs.js';
import { compareTiered, KEYWORD_TIER, keywordTier } from './keywordTiers.js';
import type { ChunkPostings } from './miniSearchInternals.js';
import { forEachPosting } from './packedPostings.js';
import { planExpansions, planQuery, type QueryPlan } from './queryPlan.js';

export interface KeywordHit {
  id: string;
  score: number;
  exactTitle: boolean;
  /** Matched index terms, when asked for (`withTerms`). */
  terms?: string[];
  /**
   * The first hit only: the share of the query's words it matched, each word weighted by its IDF (a word the vault
   * does not have weighs most). How much of the question the best keyword match holds, for the fusion's confidence.
   */
  coverage?: number;
}

export interface KeywordSearchOptions {
  accept?: (id: string) => boolean;
  /** Extra weighted query terms (e.g. word-vector neighbours), OR-ed in with weight < 1. */
  expansions?: ReadonlyArray<{ term: string; weight: number }>;
  /** List the index terms each hit matched: a search that only ranks (as every app search does) skips the work. */
  withTerms?: boolean;
}

// BM25+ as MiniSearch defines it (its defaults).
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;

/**
 * BM25+ sums per chunk (indexed by MiniSearch short id), how many query slots each chunk matched, and the chunks
 * touched. Kept between queries and cleared entry by entry after each: on a large vault, arrays the size of the
 * index allocated per query (about 14 MB at a million chunks) were a good part of a query's time, in garbage.
 */
class Scores {
  sum = new Float64Array(0);
  slotCount = new Uint16Array(0);
  /** The slot that last added to a chunk: "matched this slot already" is one comparison. */
  lastSlot = new Int32Array(0);
  /** Which of the plan's first 32 terms each chunk matched (bit t: term t), to list a hit's matched terms. */
  termBits = new Uint32Array(0);
  /** The chunks touched, in the order first touched: `touched[0 … touchedCount - 1]` (each chunk once). */
  touched = new Int32Array(0);
  touchedCount = 0;
  /** Each query slot's IDF: the highest of its terms' in any field (a slot no term of which is indexed is absent). */
  readonly slotIdf = new Map<number, number>();

  /** Ready for short ids below `size`, all zero. */
  prepare(size: number): this {
    if (this.sum.length < size) {
      this.sum = new Float64Array(size);
      this.slotCount = new Uint16Array(size);
      this.lastSlot = new Int32Array(size).fill(-1);
      this.termBits = new Uint32Array(size);
      this.touched = new Int32Array(size);
    }
    return this;
  }

  clear(): void {
    for (let i = 0; i < this.touchedCount; i++) {
      const doc = this.touched[i]!;
      this.sum[doc] = 0;
      this.slotCount[doc] = 0;
      this.lastSlot[doc] = -1;
      this.termBits[doc] = 0;
    }
    this.touchedCount = 0;
    this.slotIdf.clear();
  }
}

const mainScores = new Scores();
const expansionScores = new Scores();

interface Candidate {
  doc: number;
  tier: number;
  score: number;
}

/** Caches `accept` per chunk for one query: it is asked once per chunk, not once per matching term. */
class ChunkFilter {
  private readonly state: Uint8Array | undefined;

  constructor(
    private readonly accept: ((id: string) => boolean) | undefined,
    private readonly index: ChunkPostings,
  ) {
    this.state = accept ? new Uint8Array(index.idLimit) : undefined;
  }

  accepts(doc: number): boolean {
    if (!this.state) return true;
    let state = this.state[doc]!;
    if (state === 0) this.state[doc] = state = this.accept!(this.index.idOf(doc)!) ? 1 : 2;
    return state === 1;
  }
}

/** The k best chunks for a query: exact title/alias matches first, then by BM25+ (see `keywordTier`). */
export function searchChunks(index: ChunkPostings, titles: TitleKeys, query: string, k: number, options: KeywordSearchOptions = {}): KeywordHit[] {
  const limit = Math.floor(k);
  if (!(limit > 0)) return [];
  try {
    return rankChunks(index, titles, query, limit, options);
  } finally {
    mainScores.clear();
    expansionScores.clear();
  }
}

function rankChunks(index: ChunkPostings, titles: TitleKeys, query: string, limit: number, options: KeywordSearchOptions): KeywordHit[] {
  const filter = new ChunkFilter(options.accept, index);
  const plan = planQuery(query, index);
  const main = score(index, plan, filter, mainScores.prepare(index.idLimit));
  const expansionPlan = planExpansions(options.expansions ?? [], plan, index);
  const expansions = expansionPlan.terms.length > 0 ? score(index, expansionPlan, filter, expansionScores.prepare(index.idLimit)) : undefined;

  // Made once: a function made inside the comparison was one more object per comparison.
  const idOfCandidate = (c: Candidate) => index.idOf(c.doc)!;
  const best = new BestOf<Candidate>(limit, (a, b) => compareTiered(a, b, idOfCandidate));
  const exact = new Set<number>();
  for (const doc of titles.docs(normalizeExactKey(query))) if (filter.accepts(doc)) exact.add(doc);
  const offer = (doc: number): void => {
    // MiniSearch multiplies by the number of query terms matched; here by query slots, so a prefix completion
    // or typo correction does not count as a second matched word.
    const own = main.sum[doc]! * main.slotCount[doc]!;
    const extra = expansions ? expansions.sum[doc]! : 0;
    const tier = keywordTier(exact.has(doc), main.slotCount[doc]! > 0);
    const score = own + extra;
    // Most matches of a common word fall short of the k kept: no candidate is made for them (a million at 1M chunks).
    const bar = best.bar;
    if (bar && (tier > bar.tier || (tier === bar.tier && score < bar.score))) return;
    best.offer({ doc, tier, score });
  };
  for (let i = 0; i < main.touchedCount; i++) offer(main.touched[i]!);
  if (expansions) {
    for (let i = 0; i < expansions.touchedCount; i++) {
      const doc = expansions.touched[i]!;
      if (main.slotCount[doc] === 0) offer(doc);
    }
  }
  for (const doc of exact) if (main.slotCount[doc] === 0 && !(expansions && expansions.slotCount[doc]! > 0)) offer(doc);

  return best.sorted().map(({ doc, tier, score }, i) => ({
    id: index.idOf(doc)!,
    score,
    exactTitle: tier === KEYWORD_TIER.exactTitle,
    ...(options.withTerms ? { terms: [...matchedTerms(index, doc, plan, main), ...(expansions ? matchedTerms(index, doc, expansionPlan, expansions) : [])] } : {}),
    ...(i === 0 ? { coverage: queryCoverage(index, doc, plan, main) } : {}),
  }));
}

/**
 * The IDF-weighted share of the query's slots (its words) that a chunk matched. A word the vault does not have
 * counts with the highest IDF a word can have: the chunk cannot hold what the question says with it.
 */
function queryCoverage(index: ChunkPostings, doc: number, plan: QueryPlan, scores: Scores): number {
  const unknown = Math.log(1 + (index.documentCount + 0.5) / 0.5);
  const matched = new Set(matchedTermIndexes(index, doc, plan, scores).map((t) => plan.slots[t]!));
  let all = 0;
  let held = 0;
  for (const slot of new Set(plan.slots)) {
    const idf = scores.slotIdf.get(slot) ?? unknown;
    all += idf;
    if (matched.has(slot)) held += idf;
  }
  return all > 0 ? held / all : 0;
}

function score(index: ChunkPostings, plan: QueryPlan, filter: ChunkFilter, scores: Scores): Scores {
  const { sum, slotCount, lastSlot, termBits, touched } = scores;
  const documentCount = index.documentCount;
  // Slot by slot, so that "matched this slot already" is one comparison with the last slot seen.
  const order = plan.terms.map((_, t) => t).sort((a, b) => plan.slots[a]! - plan.slots[b]! || a - b);
  for (const t of order) {
    const fields = index.postings(plan.terms[t]!);
    if (!fields) continue;
    const slot = plan.slots[t]!;
    const termBoost = plan.boosts[t]!;
    const bit = t < TERM_BITS ? 1 << t : 0;
    fields.forEach((postings, fieldId) => {
      const averageLength = index.averageFieldLength(fieldId);
      // One pass over the postings gives each accepted chunk's term-frequency part and the count of live chunks the
      // IDF needs: discarded chunks keep their postings until vacuumed (even through a save), and counting
      // only live ones keeps scores independent of when it last did.
      let live = 0;
      let parts = 0;
      const visit = (tf: number, doc: number) => {
        if (!index.isLive(doc)) return;
        live++;
        if (!filter.accepts(doc)) return;
        const norm = BM25_K * (1 - BM25_B + (BM25_B * index.lengthIn(doc, fieldId)) / averageLength);
        // Stored here, not passed to a method: a fractional number passed on is boxed, a heap object per posting.
        if (parts === scratch.docs.length) scratch.grow();
        scratch.docs[parts] = doc;
        scratch.parts[parts++] = BM25_D + (tf * (BM25_K + 1)) / (tf + norm);
      };
      forEachPosting(postings, visit);
      if (live === 0) return;
      const idf = Math.log(1 + (documentCount - live + 0.5) / (live + 0.5));
      if (termBoost === 1 && !(idf <= (scores.slotIdf.get(slot) ?? 0))) scores.slotIdf.set(slot, idf);
      const weight = termBoost * BOOST_BY_FIELD_ID[fieldId]! * idf;
      for (let i = 0; i < parts; i++) {
        const doc = scratch.docs[i]!;
        sum[doc] += weight * scratch.parts[i]!;
        termBits[doc] |= bit;
        if (lastSlot[doc] !== slot) {
          if (lastSlot[doc] === -1) touched[scores.touchedCount++] = doc;
          lastSlot[doc] = slot;
          slotCount[doc]++;
        }
      }
    });
  }
  return scores;
}

/** One term's (chunk, term-frequency part) pairs while its live count is taken: reused, grown to the longest list met. */
class TermParts {
  docs = new Int32Array(1024);
  parts = new Float64Array(1024);

  grow(): void {
    const docs = new Int32Array(this.docs.length * 2);
    docs.set(this.docs);
    const parts = new Float64Array(this.parts.length * 2);
    parts.set(this.parts);
    this.docs = docs;
    this.parts = parts;
  }
}

const scratch = new TermParts();

/** Terms a plan can note per chunk while scoring (the bits of a Uint32); a plan's later terms are looked up. */
const TERM_BITS = 32;

/** The plan's terms a hit matched: from the bits noted while scoring, else (past the 32nd term) its postings. */
function matchedTerms(index: ChunkPostings, doc: number, plan: QueryPlan, scores: Scores): string[] {
  return matchedTermIndexes(index, doc, plan, scores).map((t) => plan.terms[t]!);
}

function matchedTermIndexes(index: ChunkPostings, doc: number, plan: QueryPlan, scores: Scores): number[] {
  const bits = scores.termBits[doc]!;
  const matched: number[] = [];
  plan.terms.forEach((term, t) => {
    if (t < TERM_BITS ? ((bits >>> t) & 1) === 1 : [...(index.postings(term)?.values() ?? [])].some((postings) => postings.has(doc))) matched.push(t);
  });
  return matched;
}
