/** One ranked list going into the fusion, best first. */
export interface RankedList {
  name: 'keyword' | 'vector';
  weight: number;
  ids: readonly string[];
}

export interface Explanation {
  keywordRank: number | null;
  vectorRank: number | null;
  /** Weighted Reciprocal Rank Fusion score before graph and recency. */
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

/** Weighted RRF: score(d) = Σ weight / (k + rank), ranks from 1. */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number): Map<string, Explanation> {
  const fused = new Map<string, Explanation>();
  for (const list of lists) {
    list.ids.forEach((id, i) => {
      const entry = fused.get(id) ?? { keywordRank: null, vectorRank: null, rrf: 0, graph: null, recency: 1, exactTitle: false };
      entry.rrf += list.weight / (k + i + 1);
      if (list.name === 'keyword') entry.keywordRank = i + 1;
      else entry.vectorRank = i + 1;
      fused.set(id, entry);
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
      hit.explain.recency = age <= 7 * DAY ? 1.2 : age <= 30 * DAY ? 1.1 : 1;
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
