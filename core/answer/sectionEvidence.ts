/**
 * How well each retrieved section answers the question, 0..1: the mean of the section's lexical coverage of the
 * question and its best sentence's embedding cosine, or its best sentence's own evidence when higher.
 *
 * Why the section and not its best sentence: the search ranked sections, and an answer is often spread over a
 * section's sentences and its heading ("## Archive" + "Move the folder…" + "…once the project is finished").
 * Judging one sentence alone refused questions whose second source was exactly the answer.
 *
 * Why the mean, and why 0.5 is the default bar ([answer] min_confidence): with the bundled word-vector model,
 * text on a neighbouring topic that does not answer reaches cosines of 0.6-0.7, so similarity alone cannot
 * vouch for an answer; the mean reaches 0.5 only when the section also holds a real part of the question's
 * weighted content words. Measured on the Tasks docs with ten off-topic questions (cooking, sport, cars), the
 * best of the top three sections peaked at 0.45.
 */
import { coverage, questionTerms, termSet, termWeights } from '../search/termOverlap.js';
import type { ScoredUnit } from './sentenceRanker.js';
import type { AnswerSource } from './types.js';

export function sectionEvidence(question: string, sources: readonly AnswerSource[], scored: readonly ScoredUnit[]): Map<AnswerSource, number> {
  const words = new Map<AnswerSource, Set<string>>(sources.map((s) => [s, new Set<string>()]));
  const cosine = new Map<AnswerSource, number>();
  for (const unit of scored) {
    for (const term of unit.terms) words.get(unit.source)?.add(term);
    cosine.set(unit.source, Math.max(cosine.get(unit.source) ?? 0, unit.cosine));
  }
  const headings = new Map(sources.map((s) => [s, termSet(`${s.title} ${s.headerPath.join(' ')}`)]));
  // IDF over the retrieved sections: a word all of them share tells them apart less than one only a few have.
  const weights = termWeights(questionTerms(question), sources.map((s) => new Set([...words.get(s)!, ...headings.get(s)!])));
  const bestUnit = new Map<AnswerSource, number>();
  for (const unit of scored) bestUnit.set(unit.source, Math.max(bestUnit.get(unit.source) ?? 0, (unit.coverage + unit.cosine) / 2));
  // A section answers when it does as a whole or when one of its sentences does on its own (the sentence's
  // coverage weighs words against the other sentences, which can favour it). A section with nothing quotable
  // (only code, a table of symbols) cannot be quoted as an answer.
  return new Map(sources.map((s) => [s, cosine.has(s) ? Math.max((coverage(weights, words.get(s)!, headings.get(s)!) + cosine.get(s)!) / 2, bestUnit.get(s)!) : 0]));
}
