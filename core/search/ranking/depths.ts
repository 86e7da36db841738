/** How far down each ranker's list the fusion looks. */
import type { RankingPolicy } from '../../config/rankingPolicy.js';

/**
 * Candidates each ranker returns for a page: at least the policy's depth, and enough that the page can still be
 * filled after the per-note cap (three candidates per result slot).
 */
export function candidateDepth(policy: RankingPolicy, offset: number, k: number): number {
  return Math.max(policy.candidateDepth, (offset + k) * 3 * policy.maxChunksPerNote);
}
