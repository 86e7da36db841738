/** One ranked list going into the fusion, best first. */
export interface RankedList {
  name: 'keyword' | 'vector';
  /** This ranking's weight for this query: the model's base weight × the ranker's confidence. */
  weight: number;
  ids: readonly string[];
  /** The ranker's own score of each id (BM25 score / cosine similarity), shown as evidence. */
  scores?: readonly number[];
}

export interface Explanation {
  keywordRank: number | null;
  vectorRank: number | null;
  /** The keyword ranker's BM25 score of the chunk (null when it did not rank it). */
  keywordScore: number | null;
  /** The cosine similarity of the chunk to the query (null when the vector ranker did not rank it). */
  vectorScore: number | null;
  /** Each ranking's weight in this query's fusion (0 when it took no part): base weight × its confidence. */
  weights: { keyword: number; vector: number };
  /** The fused score before graph and recency: weighted RRF, or the convex combination when [search] fusion = "convex". */
  rrf: number;
  /** Set when the chunk was lifted by a link from/to a top result's note. */
  graph: { from: string; score: number } | null;
  /** Recency multiplier applied (1 when none). */
  recency: number;
  /** The whole query is the note's title or one of its aliases. */
  exactTitle: boolean;
}

export interface FusedHit {
  id: string;
  note: string;
  score: number;
  explain: Explanation;
}

/** The explanation of a chunk no ranking has scored yet. */
export function emptyExplanation(): Explanation {
  return { keywordRank: null, vectorRank: null, keywordScore: null, vectorScore: null, weights: { keyword: 0, vector: 0 }, rrf: 0, graph: null, recency: 1, exactTitle: false };
}

/** Weighted RRF: score(d) = Σ weight / (k + rank), ranks from 1. */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number): Map<string, Explanation> {
  const fused = new Map<string, Explanation>();
  const weights = { keyword: 0, vector: 0 };
  for (const list of lists) weights[list.name] = list.weight;
  for (const list of lists) {
    list.ids.forEach((id, i) => {
      const entry = fused.get(id) ?? { ...emptyExplanation(), weights };
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

export interface RankingContext {
  noteOf(id: string): string;
  mtimeOf(note: string): number;
  neighboursOf(note: string): readonly string[];
  now: number;
}

export interface RankingOptions {
  graphMultiplier: number;
  /** How many of the best notes lend their score to their linked notes. */
  graphSources: number;
  recencyBoost: boolean;
  maxChunksPerNote: number;
  k: number;
}

const DAY = 86_400_000;
/**
 * Recency only breaks near-ties: a note edited this week gains 2 %, this month 1 %, so it passes only chunks whose
 * fused score is within that much of its own, never one with clearly better evidence (with k = 60, a ×1.2 lifted
 * rank 13 to rank 1).
 */
export const RECENCY_MULTIPLIER = { week: 1.02, month: 1.01 } as const;

/**
 * Orders fused candidates: exact title/alias matches first; graph lift for chunks of notes linked from or
 * to the top notes (a candidate scores at least `graphMultiplier` × the linking note's best score);
 * recency multipliers; then at most `maxChunksPerNote` per note, top k.
 */
export function rankCandidates(fused: Map<string, Explanation>, context: RankingContext, options: RankingOptions): FusedHit[] {
  const hits: FusedHit[] = [...fused].map(([id, explain]) => ({ id, note: context.noteOf(id), score: explain.rrf, explain }));
  sortHits(hits);
  if (options.graphMultiplier > 0) {
    const sources = new Map<string, number>();
    for (const hit of hits) {
      if (sources.size >= options.graphSources) break;
      if (!sources.has(hit.note)) sources.set(hit.note, hit.score);
    }
    const lift = new Map<string, { from: string; score: number }>();
    for (const [note, score] of sources) {
      for (const neighbour of context.neighboursOf(note)) {
        if (sources.has(neighbour)) continue;
        const lifted = score * options.graphMultiplier;
        if ((lift.get(neighbour)?.score ?? 0) < lifted) lift.set(neighbour, { from: note, score: lifted });
      }
    }
    for (const hit of hits) {
      const graph = lift.get(hit.note);
      if (graph && graph.score > hit.score) {
        hit.score = graph.score;
        hit.explain.graph = graph;
      }
    }
  }
  if (options.recencyBoost) {
    for (const hit of hits) {
      const age = context.now - context.mtimeOf(hit.note);
      hit.explain.recency = age <= 7 * DAY ? RECENCY_MULTIPLIER.week : age <= 30 * DAY ? RECENCY_MULTIPLIER.month : 1;
      hit.score *= hit.explain.recency;
    }
  }
  sortHits(hits);
  const perNote = new Map<string, number>();
  const ranked: FusedHit[] = [];
  for (const hit of hits) {
    const count = perNote.get(hit.note) ?? 0;
    if (count >= options.maxChunksPerNote) continue;
    perNote.set(hit.note, count + 1);
    ranked.push(hit);
    if (ranked.length >= options.k) break;
  }
  return ranked;
}

/** Exact title matches first, then by score; ties by id so the order is deterministic. */
function sortHits(hits: FusedHit[]): void {
  hits.sort((a, b) => Number(b.explain.exactTitle) - Number(a.explain.exactTitle) || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
