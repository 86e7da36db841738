/** How far down each ranker's list the fusion looks. */
import type { RankingPolicy } from '../../config/rankingPolicy.js';

/**
 * The fusion depths a page needs, shallowest first: the policy's depth, then doubled until the page can still be
 * filled after the per-note cap (three candidates per result slot). The ranking of a query is the ranking at the
 * first depth followed by what each deeper one adds (see `extendRanking`): a fixed list, whatever page is asked. A
 * single fusion at a depth chosen from the page would rank differently for each page: a chunk a deeper list also
 * holds gains a second term and moves, so page 2 could repeat a result of page 1 and skip another.
 */
export function candidateDepths(policy: RankingPolicy, offset: number, k: number): number[] {
  const needed = (offset + k) * 3 * policy.maxChunksPerNote;
  const depths = [policy.candidateDepth];
  while (depths.at(-1)! < needed) depths.push(depths.at(-1)! * 2);
  return depths;
}

/** A ranking, then the hits of a deeper one it does not show yet (by id or as a copy it lists), in their order. */
export function extendRanking<H extends { id: string; sameText?: readonly string[] }>(ranked: H[], deeper: readonly H[]): H[] {
  const shown = new Set<string>();
  for (const hit of ranked) {
    shown.add(hit.id);
    for (const id of hit.sameText ?? []) shown.add(id);
  }
  for (const hit of deeper) {
    if (shown.has(hit.id) || hit.sameText?.some((id) => shown.has(id))) continue;
    ranked.push(hit);
    shown.add(hit.id);
    for (const id of hit.sameText ?? []) shown.add(id);
  }
  return ranked;
}
