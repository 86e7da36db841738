/**
 * The keyword ranking's tiers: an exact title or alias match ranks first; then chunks that matched the query's own
 * words; then chunks that matched only expansion terms (a synonym may add to an exact match, never push one out).
 * Within a tier, by score; ties by id so the order is deterministic. The keyword ranker's own order, so it lives
 * with the index, which keeps its k best by it; the fusion (core/search/ranking) sees only `exactTitle`.
 */
export const KEYWORD_TIER = { exactTitle: 0, queryTerms: 1, expansionsOnly: 2 } as const;
export type KeywordTier = (typeof KEYWORD_TIER)[keyof typeof KEYWORD_TIER];

export function keywordTier(exactTitle: boolean, matchedQueryTerms: boolean): KeywordTier {
  return exactTitle ? KEYWORD_TIER.exactTitle : matchedQueryTerms ? KEYWORD_TIER.queryTerms : KEYWORD_TIER.expansionsOnly;
}

/**
 * Negative when a ranks before b; `idOf` is asked only to break a tie. Returns -1, 0 or 1: a fractional difference
 * returned is a heap number, one per comparison of a keyword search's heap.
 */
export function compareTiered<T extends { tier: number; score: number }>(a: T, b: T, idOf: (candidate: T) => string): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.score !== b.score) return b.score > a.score ? 1 : -1;
  const idA = idOf(a);
  const idB = idOf(b);
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}
