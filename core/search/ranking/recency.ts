/** Recency: a recently edited note's chunks gain a little, enough to break near-ties. */
import type { FusedHit } from './fusion.js';

const DAY = 86_400_000;
/**
 * Recency only breaks near-ties: a note edited this week gains 2 %, this month 1 %, so it passes only chunks whose
 * fused score is within that much of its own, never one with clearly better evidence (with k = 60, a ×1.2 lifted
 * rank 13 to rank 1).
 */
export const RECENCY_MULTIPLIER = { week: 1.02, month: 1.01 } as const;

/** Multiplies each hit's score by its note's recency multiplier (recorded in its explanation). */
export function applyRecency(hits: readonly FusedHit[], mtimeOf: (note: string) => number, now: number): void {
  for (const hit of hits) {
    const age = now - mtimeOf(hit.note);
    hit.explain.recency = age <= 7 * DAY ? RECENCY_MULTIPLIER.week : age <= 30 * DAY ? RECENCY_MULTIPLIER.month : 1;
    hit.score *= hit.explain.recency;
  }
}
