/** The graph lift: chunks of notes linked from or to the best notes join at a share of that note's score. */
import type { FusedHit } from './fusion.js';

/**
 * For hits sorted best first: the best `sources` notes lend `multiplier` × their score to the notes they link to or
 * are linked from; a hit scoring less than its note's lift is raised to it (recorded in its explanation).
 */
export function liftLinkedNotes(hits: readonly FusedHit[], neighboursOf: (note: string) => readonly string[], multiplier: number, sources: number): void {
  const lenders = new Map<string, number>();
  for (const hit of hits) {
    if (lenders.size >= sources) break;
    if (!lenders.has(hit.note)) lenders.set(hit.note, hit.score);
  }
  const lift = new Map<string, { from: string; score: number }>();
  for (const [note, score] of lenders) {
    for (const neighbour of neighboursOf(note)) {
      if (lenders.has(neighbour)) continue;
      const lifted = score * multiplier;
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
