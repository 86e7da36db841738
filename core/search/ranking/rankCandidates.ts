/** Orders fused candidates into results: exact titles first, graph lift, recency, per-note cap. */
import type { Explanation } from '../../contract/search.js';
import type { FusedHit } from './fusion.js';
import { liftLinkedNotes } from './graphLift.js';
import { applyRecency } from './recency.js';

export interface RankingContext {
  noteOf(id: string): string;
  /** The chunk's text hash: copies of a passage share it. */
  textOf(id: string): string;
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

/**
 * Orders fused candidates: exact title/alias matches first; graph lift for chunks of notes linked from or
 * to the top notes (a candidate scores at least `graphMultiplier` × the linking note's best score);
 * recency multipliers; then at most `maxChunksPerNote` per note, top k.
 */
export function rankCandidates(fused: Map<string, Explanation>, context: RankingContext, options: RankingOptions): FusedHit[] {
  const hits: FusedHit[] = [...fused].map(([id, explain]) => ({ id, note: context.noteOf(id), score: explain.rrf, explain }));
  sortHits(hits);
  if (options.graphMultiplier > 0) liftLinkedNotes(hits, (note) => context.neighboursOf(note), options.graphMultiplier, options.graphSources);
  if (options.recencyBoost) applyRecency(hits, (note) => context.mtimeOf(note), context.now);
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
