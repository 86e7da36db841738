/** Fusing the keyword and vector rankings of one query into one score per chunk: weighted RRF or convex. */
import type { Explanation } from '../../contract/search.js';

/** What ranking needs of a ranker's hit, best first. */
export interface RankerHit {
  id: string;
  score: number;
  /** The keyword ranker's: the whole query is the note's title or an alias. */
  exactTitle?: boolean;
  /** The keyword ranker's first hit: the IDF-weighted share of the query's words it holds (see bm25Scorer). */
  coverage?: number;
}

/** One ranked list going into the fusion, best first. */
export interface RankedList {
  name: 'keyword' | 'vector';
  /** This ranking's weight for this query: the model's base weight × the ranker's confidence. */
  weight: number;
  ids: readonly string[];
  /** The ranker's own score of each id (BM25 score / cosine similarity), shown as evidence. */
  scores?: readonly number[];
  /** The keyword ranking's: the share of the query its best hit holds (see RankerHit.coverage). */
  coverage?: number;
}

/** A fused candidate: its chunk, note, score so far and why. */
export interface FusedHit {
  id: string;
  note: string;
  score: number;
  explain: Explanation;
  /** Other chunks with the same text, in other notes (see sameText.ts). */
  sameText?: string[];
}

/** The explanation of a chunk no ranking has scored yet. */
export function emptyExplanation(): Explanation {
  return { keywordRank: null, vectorRank: null, keywordScore: null, vectorScore: null, weights: { keyword: 0, vector: 0 }, keywordCoverage: null, rrf: 0, graph: null, recency: 1, exactTitle: false, sentence: null };
}

/** Weighted RRF: score(d) = Σ weight / (k + rank), ranks from 1. */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number): Map<string, Explanation> {
  const fused = new Map<string, Explanation>();
  const weights = { keyword: 0, vector: 0 };
  for (const list of lists) weights[list.name] = list.weight;
  const keywordCoverage = lists.find((l) => l.name === 'keyword')?.coverage ?? null;
  for (const list of lists) {
    list.ids.forEach((id, i) => {
      const entry = fused.get(id) ?? { ...emptyExplanation(), weights, keywordCoverage };
      entry.rrf += list.weight / (k + i + 1);
      const score = list.scores?.[i] ?? null;
      if (list.name === 'keyword') {
        entry.keywordRank = i + 1;
        entry.keywordScore = score;
      } else {
        entry.vectorRank = i + 1;
        entry.vectorScore = score;
      }
      fused.set(id, entry);
    });
  }
  return fused;
}

/**
 * Score-aware alternative (Bruch, Gai & Ingber, ACM TOIS 2023): score(d) = Σ weight × normalised score, each
 * list's scores min-max normalised over the list (a chunk a list did not return counts 0 there).
 */
export function convexFusion(lists: readonly RankedList[]): Map<string, Explanation> {
  const fused = reciprocalRankFusion(lists, 1);
  for (const entry of fused.values()) entry.rrf = 0;
  for (const list of lists) {
    const scores = list.scores ?? list.ids.map((_, i) => list.ids.length - i);
    const top = scores[0] ?? 0;
    const bottom = scores.at(-1) ?? 0;
    const span = top - bottom;
    list.ids.forEach((id, i) => {
      fused.get(id)!.rrf += list.weight * (span > 0 ? (scores[i]! - bottom) / span : 1);
    });
  }
  return fused;
}
