/**
 * Lexical agreement between a question and candidate sentences: the IDF-weighted share of the question's content
 * words a sentence contains. Terms come from the keyword index's own tokenizer, so "Get-ChildItem" and
 * "TQ_extra_instructions" split the same way here as in search.
 */
import { QUERY_STOP_WORDS, scanTerms, stem, tokenizeForSearch } from '../indices/searchTokenizer.js';

/**
 * Words that shape a question rather than name its subject ("how can I use X to make Y"): a sentence should
 * not count as answering because it also says "use".
 */
const QUESTION_FILLER: ReadonlySet<string> = new Set([
  'use', 'using', 'used', 'make', 'get', 'way', 'want', 'need', 'one', 'some', 'any', 'also', 'just', 'possible',
  'able', 'there', 'here', 'tell', 'explain', 'mean', 'thing', 'anything', 'something',
]);

/** The stems of a text's terms (all of them, stop words included: a question's word may be one). */
export function termSet(text: string): Set<string> {
  return new Set(tokenizeForSearch(text).map(stem));
}

/** A question's term as a content stem, or undefined for a stop word, filler or single letter. */
function contentStem(term: string): string | undefined {
  if (QUERY_STOP_WORDS.has(term) || term.length < 2) return undefined;
  const stemmed = stem(term);
  return QUESTION_FILLER.has(term) || QUESTION_FILLER.has(stemmed) ? undefined : stemmed;
}

/** The question's content words as stems: no stop words, no filler, no single letters. */
export function questionTerms(question: string): string[] {
  const terms = new Set<string>();
  for (const term of tokenizeForSearch(question)) {
    const stemmed = contentStem(term);
    if (stemmed !== undefined) terms.add(stemmed);
  }
  return [...terms];
}

/**
 * The question's content words, each as the stems of the terms its word gives: a compound is one word though the
 * tokenizer also gives its parts ("built-in" → built-in, built; "Get-ChildItem" → get-childitem, get, childitem).
 * Words that share a stem ("task", "tasks") are one. For counting how many of the question's words a text holds.
 */
export function questionWords(question: string): string[][] {
  const terms: string[] = [];
  const tokens: number[] = [];
  scanTerms(question, terms, tokens);
  const byToken = new Map<number, Set<string>>();
  for (const [i, term] of terms.entries()) {
    const stemmed = contentStem(term);
    if (stemmed === undefined) continue;
    const word = byToken.get(tokens[i]!) ?? new Set<string>();
    word.add(stemmed);
    byToken.set(tokens[i]!, word);
  }
  const words: Set<string>[] = [];
  for (const word of byToken.values()) {
    const same = words.find((w) => [...word].some((stemmed) => w.has(stemmed)));
    if (same) for (const stemmed of word) same.add(stemmed);
    else words.push(word);
  }
  return words.map((word) => [...word]);
}

/**
 * IDF of each question term over the candidate sentences (BM25's form, always positive): a word every candidate
 * shares ("tasks" in the Tasks docs) tells them apart less than one a single sentence has. A word no candidate
 * has gets the highest weight, so a question about something the notes never mention keeps a low coverage.
 */
export function termWeights(terms: readonly string[], candidates: readonly Set<string>[]): Map<string, number> {
  const n = candidates.length;
  const weights = new Map<string, number>();
  for (const term of terms) {
    let df = 0;
    for (const set of candidates) if (set.has(term)) df++;
    weights.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  return weights;
}

/**
 * Weighted share (0..1) of the question's terms found in the sentence; a term found only in the sentence's
 * headings or note title counts half (the heading says what the sentence is about, but the sentence does not
 * say it).
 */
export function coverage(weights: ReadonlyMap<string, number>, sentence: ReadonlySet<string>, context: ReadonlySet<string>): number {
  let total = 0;
  let found = 0;
  for (const [term, weight] of weights) {
    total += weight;
    if (sentence.has(term)) found += weight;
    else if (context.has(term)) found += weight / 2;
  }
  return total === 0 ? 0 : found / total;
}
