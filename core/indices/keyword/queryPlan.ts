/**
 * Which terms a keyword query scores: its own words (stop words dropped unless the query is nothing else), as-you-type
 * completions of the last word, light typo corrections, and weighted expansion terms.
 */
import { QUERY_STOP_WORDS, foldAccents, scanTerms, stem, tokenizeForSearch } from '../searchTokenizer.js';
import type { ChunkPostings } from './miniSearchInternals.js';

// Prefix matching completes the word being typed: only the last query word, only from 3 characters on.
const PREFIX_MIN_LENGTH = 3;
// A 3-letter prefix can cover thousands of terms; the most frequent completions are the likely ones.
const MAX_PREFIX_EXPANSIONS = 30;
// Typo tolerance: only for words long enough that one edit rarely lands on another real word.
const FUZZY = { minLength: 6, fuzziness: 0.15, maxDistance: 2, maxExpansions: 20 } as const;
// Other forms of a query word of four letters or more (the same Porter stem): "quotes" finds "quote", "quoted",
// "quoting", each scored as the word itself would be. At most MAX_FORMS_SCANNED terms sharing the stem's start are
// looked at.
const HAS_FORMS = /^[a-z]{4,}$/;
const MAX_FORMS_SCANNED = 400;
// MiniSearch's own weights for prefix and fuzzy matches.
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The terms scored for a query, each with a boost and the query slot (original query term) it stands for. */
export class QueryPlan {
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

export function planQuery(query: string, index: ChunkPostings): QueryPlan {
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
    if (last && term.length >= PREFIX_MIN_LENGTH && lastWhole.endsWith(term)) addPrefixCompletions(plan, index, term, slot);
    // A word the vault does not contain is likely misspelt; a word it does contain is taken as meant.
    if (term.length >= FUZZY.minLength && !CJK.test(term) && !index.liveFrequency(index.postings(term))) addTypoCorrections(plan, index, term, slot);
    if (HAS_FORMS.test(term)) addWordForms(plan, index, term, slot);
  }
  return plan;
}

/** The vault's other forms of an English word: terms with its Porter stem, found among those sharing its start. */
function addWordForms(plan: QueryPlan, index: ChunkPostings, term: string, slot: number): void {
  const stemmed = stem(term);
  // "happy" stems to "happi": the forms start with the stem less its last letter.
  const start = stemmed.slice(0, Math.max(3, stemmed.length - 1));
  let scanned = 0;
  for (const [candidate, fields] of index.atPrefix(start)) {
    if (++scanned > MAX_FORMS_SCANNED) break;
    if (candidate === term || stem(candidate) !== stemmed || !index.liveFrequency(fields)) continue;
    plan.addCandidate(candidate, 1, slot);
  }
}

function addPrefixCompletions(plan: QueryPlan, index: ChunkPostings, term: string, slot: number): void {
  const candidates: Array<{ term: string; frequency: number }> = [];
  for (const [candidate, fields] of index.atPrefix(term)) {
    const frequency = index.liveFrequency(fields);
    if (candidate !== term && frequency > 0) candidates.push({ term: candidate, frequency });
  }
  candidates.sort((a, b) => b.frequency - a.frequency || (a.term < b.term ? -1 : 1));
  for (const candidate of candidates.slice(0, MAX_PREFIX_EXPANSIONS)) {
    const extra = candidate.term.length - term.length;
    plan.addCandidate(candidate.term, (PREFIX_WEIGHT * candidate.term.length) / (candidate.term.length + 0.3 * extra), slot);
  }
}

/** Edit distance within ≈15 % of the length, plus adjacent transpositions (`recieve` → `receive`) as one edit. */
function addTypoCorrections(plan: QueryPlan, index: ChunkPostings, term: string, slot: number): void {
  const maxDistance = Math.min(FUZZY.maxDistance, Math.max(1, Math.round(term.length * FUZZY.fuzziness)));
  const candidates = new Map<string, { distance: number; frequency: number }>();
  for (const [candidate, [fields, distance]] of index.fuzzyGet(term, maxDistance)) {
    const frequency = index.liveFrequency(fields);
    if (distance > 0 && frequency > 0) candidates.set(candidate, { distance, frequency });
  }
  for (let i = 0; i + 1 < term.length; i++) {
    if (term[i] === term[i + 1]) continue;
    const swapped = term.slice(0, i) + term[i + 1] + term[i] + term.slice(i + 2);
    const frequency = index.liveFrequency(index.postings(swapped));
    if (frequency > 0) candidates.set(swapped, { distance: 1, frequency });
  }
  const best = [...candidates].sort((a, b) => a[1].distance - b[1].distance || b[1].frequency - a[1].frequency || (a[0] < b[0] ? -1 : 1));
  for (const [candidate, { distance }] of best.slice(0, FUZZY.maxExpansions)) {
    plan.addCandidate(candidate, (FUZZY_WEIGHT * candidate.length) / (candidate.length + distance), slot);
  }
}

/** An expansion that is an index term (as `terms()` lists them) is used as is, anything else tokenized. */
export function planExpansions(expansions: ReadonlyArray<{ term: string; weight: number }>, main: QueryPlan, index: ChunkPostings): QueryPlan {
  const plan = new QueryPlan();
  for (const { term, weight } of expansions) {
    if (!(weight > 0)) continue;
    const asIndexTerm = foldAccents(term).toLowerCase();
    const parts = index.postings(asIndexTerm) ? [asIndexTerm] : tokenizeForSearch(term);
    for (const part of parts) if (!main.has(part)) plan.addCandidate(part, Math.min(weight, 1), plan.terms.length);
  }
  return plan;
}
