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
  /** A chosen chunk's copies (other chunks with its text), in id order: see sameText.ts. */
  copies?: ReadonlyMap<string, readonly string[]>;
}

/**
 * Orders fused candidates: exact title/alias matches first; graph lift for chunks of notes linked from or
 * to the top notes (a candidate scores at least `graphMultiplier` × the linking note's best score);
 * recency multipliers; then at most `maxChunksPerNote` per note, top k. A passage with copies whose note is full
 * is shown under its first copy in a note that is not (a page kept per version: its sections' copies were all
 * chosen from the first version's note, which two of them would fill); the others are listed in `sameText`.
 */
export function rankCandidates(fused: Map<string, Explanation>, context: RankingContext, options: RankingOptions): FusedHit[] {
  const hits: FusedHit[] = [...fused].map(([id, explain]) => ({ id, note: context.noteOf(id), score: explain.rrf, explain }));
  sortHits(hits);
  if (options.graphMultiplier > 0) liftLinkedNotes(hits, (note) => context.neighboursOf(note), options.graphMultiplier, options.graphSources);
  if (options.recencyBoost) applyRecency(hits, (note) => context.mtimeOf(note), context.now);
  sortHits(hits);
  const perNote = new Map<string, number>();
  const ranked: FusedHit[] = [];
  const hasRoom = (note: string) => (perNote.get(note) ?? 0) < options.maxChunksPerNote;
  for (const hit of hits) {
    const copies = options.copies?.get(hit.id);
    const shown = hasRoom(hit.note) ? hit : copies && underCopy(hit, copies, (id) => hasRoom(context.noteOf(id)), context);
    if (!shown) continue;
    if (copies && shown === hit) shown.sameText = [...copies];
    perNote.set(shown.note, (perNote.get(shown.note) ?? 0) + 1);
    ranked.push(shown);
    if (ranked.length >= options.k) break;
  }
  return ranked;
}

/**
 * The hit under its first copy that `fits`, the others as its copies (its own chunk first: the chosen copy is the
 * first by id, so the list stays in id order); else undefined.
 */
function underCopy(hit: FusedHit, copies: readonly string[], fits: (id: string) => boolean, context: RankingContext): FusedHit | undefined {
  const copy = copies.find(fits);
  if (copy === undefined) return undefined;
  return { ...hit, id: copy, note: context.noteOf(copy), sameText: [hit.id, ...copies.filter((id) => id !== copy)] };
}

/** Exact title matches first, then by score; ties by id so the order is deterministic. */
function sortHits(hits: FusedHit[]): void {
  hits.sort((a, b) => Number(b.explain.exactTitle) - Number(a.explain.exactTitle) || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
