/**
 * How sure each ranker is of its own top results for one query, from the shape of its scores (0..1). A ranker
 * that guesses spreads similar scores over many chunks; one that has found the passage puts it well above the
 * rest. The fusion weights each ranking by this, so a weak ranking cannot push a confident one's hits down.
 */

/** The depth the drop is measured to: the results a person sees. */
export const CONFIDENCE_DEPTH = 10;

/**
 * Keyword (BM25) confidence: the relative drop from the best score to the `CONFIDENCE_DEPTH`-th (1 when fewer
 * chunks matched: a query whose words few chunks share is specific), times the share of the query's words the best
 * hit holds (`coverage`, IDF-weighted: see bm25Scorer). A steep curve alone is no evidence: a question put in other
 * words than the notes' still singles out the few chunks that share its one incidental word ("copy", "day"), and
 * that best hit holds a small part of the question. An exact title or alias hit is certain.
 */
export function keywordConfidence(scores: readonly number[], exactTitle: boolean, coverage = 1): number {
  if (exactTitle) return 1;
  const best = scores[0] ?? 0;
  if (!(best > 0)) return 0;
  const nth = scores[CONFIDENCE_DEPTH - 1] ?? 0;
  return clamp01((1 - nth / best) * coverage);
}

/**
 * Vector confidence: the similarity margin from the best to the `CONFIDENCE_DEPTH`-th chunk, as a share of the
 * room left above that chunk (cosines of averaged vectors crowd near each other, so the raw margin is small).
 */
export function vectorConfidence(similarities: readonly number[]): number {
  const best = similarities[0];
  if (best === undefined) return 0;
  const nth = similarities[Math.min(CONFIDENCE_DEPTH, similarities.length) - 1]!;
  const room = 1 - nth;
  return room > 0 ? clamp01((best - nth) / room) : 0;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
