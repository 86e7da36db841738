/**
 * The graph lift: chunks of notes linked from or to the best notes rank a little higher, in proportion to their own
 * evidence. Raising them to a share of the linking note's score instead (as before) let chunks with no evidence of
 * their own (a keyword rank of 59, no vector rank) outrank ones a ranker put first, once fusion scores fall steeply
 * (a small rrf_k): on a tasks-dev question, fourteen such chunks filled ranks 3-16 above the answer.
 */
import type { FusedHit } from './fusion.js';

/**
 * For hits sorted best first: the best `sources` notes lend to the notes they link to or are linked from; a hit of
 * such a note has its score raised by `multiplier` × its own score × (the lending note's score / the best note's),
 * the largest lend when several apply (recorded in its explanation as the score added).
 */
export function liftLinkedNotes(hits: readonly FusedHit[], neighboursOf: (note: string) => readonly string[], multiplier: number, sources: number): void {
  const lenders = new Map<string, number>();
  for (const hit of hits) {
    if (lenders.size >= sources) break;
    if (!lenders.has(hit.note)) lenders.set(hit.note, hit.score);
  }
  const best = Math.max(0, ...lenders.values());
  if (!(best > 0)) return;
  const lift = new Map<string, { from: string; share: number }>();
  for (const [note, score] of lenders) {
    for (const neighbour of neighboursOf(note)) {
      if (lenders.has(neighbour)) continue;
      const share = (multiplier * score) / best;
      if ((lift.get(neighbour)?.share ?? 0) < share) lift.set(neighbour, { from: note, share });
    }
  }
  for (const hit of hits) {
    const graph = lift.get(hit.note);
    if (!graph || !(hit.score > 0)) continue;
    const added = hit.score * graph.share;
    hit.score += added;
    hit.explain.graph = { from: graph.from, score: added };
  }
}
