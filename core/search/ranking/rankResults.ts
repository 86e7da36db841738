/**
 * How results are ranked, from the rankers' hits to the final order: each ranking weighted by the policy's base
 * weight × the ranker's confidence, fused (RRF or convex), exact titles marked, then `rankCandidates`.
 */
import type { RankingPolicy } from '../../config/rankingPolicy.js';
import type { SearchMode } from '../../contract/search.js';
import { keywordConfidence, vectorConfidence } from './confidence.js';
import { convexFusion, reciprocalRankFusion, type FusedHit, type RankedList, type RankerHit } from './fusion.js';
import { rankCandidates, type RankingContext } from './rankCandidates.js';
import { collapseCopies } from './sameText.js';

/**
 * Every candidate, ranked (the per-note cap applied), so a response can say how many there are in all. Copies of one
 * passage in several notes are one candidate, with the others listed in `sameText`; each ranking's first `depth`
 * texts take part (see sameText.ts).
 */
export function rankResults(
  rankerKeywordHits: readonly RankerHit[],
  rankerVectorHits: readonly RankerHit[],
  mode: SearchMode,
  policy: RankingPolicy,
  depth: number,
  context: RankingContext,
): FusedHit[] {
  const collapsed = collapseCopies([rankerKeywordHits, rankerVectorHits], context, depth);
  const keywordHits = collapsed.lists[0]!;
  const vectorHits = collapsed.lists[1]!;
  const base = policy.baseWeights;
  const exactTitle = keywordHits.some((h) => h.exactTitle);
  const lists: RankedList[] = [];
  if (mode !== 'vector') {
    const scores = keywordHits.map((h) => h.score);
    const coverage = keywordHits[0]?.coverage;
    lists.push({ name: 'keyword', weight: base.keyword * keywordConfidence(scores, exactTitle, coverage), ids: keywordHits.map((h) => h.id), scores, ...(coverage === undefined ? {} : { coverage }) });
  }
  if (mode !== 'keyword') {
    const scores = vectorHits.map((h) => h.score);
    lists.push({ name: 'vector', weight: base.vector * vectorConfidence(scores), ids: vectorHits.map((h) => h.id), scores });
  }
  // A single ranking is taken as it is, and rankings equally unsure (all flat) count by their base weights:
  // a confidence of 0 must not erase an order.
  if (lists.length === 1) lists[0]!.weight = 1;
  else if (lists.every((l) => l.weight === 0)) for (const l of lists) l.weight = base[l.name];
  const fused = policy.fusion === 'convex' ? convexFusion(lists) : reciprocalRankFusion(lists, policy.rrfK);
  for (const hit of keywordHits) if (hit.exactTitle) fused.get(hit.id)!.exactTitle = true;
  return rankCandidates(fused, context, {
    // The graph lift is part of hybrid search only.
    graphMultiplier: mode === 'hybrid' ? policy.graphMultiplier : 0,
    graphSources: policy.graphSources,
    recencyBoost: policy.recencyBoost,
    maxChunksPerNote: policy.maxChunksPerNote,
    k: Number.POSITIVE_INFINITY,
    copies: collapsed.copies,
  });
}
