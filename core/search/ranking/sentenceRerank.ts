/**
 * The second stage of hybrid search: the first stage's best chunks ranked again by their best sentence.
 *
 * Why: a chunk's vector is the mean of all its words, so a section whose one sentence answers a question in other
 * words than the question's is diluted by the rest of it, and BM25 counts the question's words wherever they fall.
 * Scoring each sentence against the question (the answer's own sentence score: embedding cosine, IDF-weighted
 * coverage of the question's words under the sentence's heading, and a small prior for the first-stage rank) and
 * judging a chunk by its best sentence is the MaxP of Dai & Callan (SIGIR 2019) with the models Cairn has.
 *
 * How it fuses: Reciprocal Rank Fusion of the two orders, the first stage's and the best sentences', each weighing
 * the same, with the ranking's own RRF constant. So a chunk both stages put first stays first, and a chunk the
 * sentences put first rises only as far as its first-stage rank allows. Exact title matches stay first. Only the
 * first `depth` chunks take part (their sentences are embedded per query); a chunk below them keeps its place, and
 * its score is what the same formula gives it with no sentence rank, so scores still fall down the list.
 */
import { scoreUnits } from '../sentenceRanker.js';
import type { AnswerSource } from '../../contract/answer.js';
import type { ChunkSummary } from '../../contract/search.js';
import type { TextRole } from '../../embedding/embedder.js';
import type { FusedHit } from './fusion.js';

export interface RerankInput {
  query: string;
  /** The first stage's ranking, best first (the per-note cap applied). */
  hits: FusedHit[];
  /** How many of the first hits are ranked again. */
  depth: number;
  /** The ranking's RRF constant. */
  rrfK: number;
  /**
   * The chunks of the first `depth` hits as results show them (their texts included), in the same order, each with
   * the code fence open where it begins (a later piece of a force-split section can begin inside a code block).
   */
  summaries(hits: readonly FusedHit[]): Promise<Array<{ chunk: ChunkSummary; openFence?: string }>>;
  embed(texts: readonly string[], as?: TextRole): Promise<Float32Array[]>;
}

/** The hits in their final order, each scored and its sentence evidence recorded in its explanation. */
export async function rerankBySentences({ query, hits, depth, rrfK, summaries, embed }: RerankInput): Promise<FusedHit[]> {
  const head = hits.slice(0, depth);
  if (head.length < 2) return hits;
  const chunks = await summaries(head);
  const sources: AnswerSource[] = chunks.map(({ chunk }, i) => ({ ...chunk, rank: i + 1, score: head[i]!.score, pieces: [chunk] }));
  const openFence = new Map(sources.map((source, i) => [source, chunks[i]!.openFence]));
  const best = new Map<AnswerSource, { score: number; line: number }>();
  for (const unit of await scoreUnits(embed, query, sources, (source) => openFence.get(source))) {
    const seen = best.get(unit.source);
    if (!seen || unit.score > seen.score) best.set(unit.source, { score: unit.score, line: unit.startLine });
  }
  const judged = sources.map((_, i) => i).filter((i) => best.has(sources[i]!));
  judged.sort((a, b) => best.get(sources[b]!)!.score - best.get(sources[a]!)!.score || a - b);
  const sentenceRank = new Map(judged.map((index, i) => [index, i + 1]));
  const reranked = head.map((hit, i) => {
    const found = best.get(sources[i]!);
    hit.explain.sentence = found ? { rank: sentenceRank.get(i)!, score: found.score, line: found.line } : null;
    // A chunk with nothing to quote (only code, a table of symbols) is not judged: the second stage counts it where
    // the first put it, so a command found in a code block keeps its place.
    return { hit, firstRank: i + 1, score: 1 / (rrfK + i + 1) + 1 / (rrfK + (sentenceRank.get(i) ?? i + 1)) };
  });
  reranked.sort((a, b) => Number(b.hit.explain.exactTitle) - Number(a.hit.explain.exactTitle) || b.score - a.score || a.firstRank - b.firstRank);
  const rest = hits.slice(depth).map((hit, i) => ({ hit, score: 1 / (rrfK + depth + i + 1) }));
  return [...reranked, ...rest].map(({ hit, score }) => ({ ...hit, score }));
}
