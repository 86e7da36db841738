/**
 * How well each retrieved section answers the question, 0..1: the mean of the section's lexical coverage of the
 * question and its best sentence's embedding cosine, or its best sentence's own evidence when higher; and how
 * many of the question's content words the section holds (text or headings).
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
 *
 * Why the count of shared words: a question put in other words than the notes' (a paraphrase) leaves every
 * section's coverage low, so its evidence stays under the bar even when the search found the answer. What still
 * tells such a section from a coincidence is that it shares several of the question's content words, where an
 * off-topic question meets a section on a word or two ("football" in a table of emoji names). A section holding
 * three of the words the question names is on its subject whatever the embedding model makes of the wording (a
 * model's cosines have their own scale: a retrained or vault-adapted table gives lower ones). Measured with 30
 * off-topic questions per vault (short ones and ones of 7-11 content words) on the Tasks and Hugo docs: none
 * shared more than two content words with any of its top three sections; paraphrased dev questions whose
 * answer the search ranked in the top three share three to eight with it.
 */
import { coverage, questionTerms, questionWords, termSet, termWeights } from '../search/termOverlap.js';
import type { ScoredUnit } from '../search/sentenceRanker.js';
import type { AnswerSource } from '../contract/answer.js';

export interface SectionEvidence {
  /** 0..1, see above; 0 for a section with nothing quotable. */
  score: number;
  /**
   * Distinct content words of the question (function words left out) the section's text or headings hold; a compound
   * counts once, by its whole or any part (see questionWords).
   */
  sharedTerms: number;
  /** How many content words the question has (the same count for every section). */
  questionTerms: number;
}

/**
 * Words a question's content can hold that name no subject ("why does it not work but only after…"): a section
 * sharing them shares no topic. The question's stop words and filler words are already left out by questionTerms.
 */
const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'not', 'no', 'but', 'only', 'up', 'out', 'off', 'too', 'very', 'even', 'though', 'although', 'all', 'each',
  'every', 'other', 'same', 'own', 'more', 'most', 'much', 'many', 'such', 'again', 'still', 'yet', 'while',
  'without', 'between', 'through', 'less', 'don', 'doesn', 'isn', 'aren', 'won', 'keep', 'kept',
].flatMap((w) => [w, ...termSet(w)]));

export function sectionEvidence(question: string, sources: readonly AnswerSource[], scored: readonly ScoredUnit[]): Map<AnswerSource, SectionEvidence> {
  const words = new Map<AnswerSource, Set<string>>(sources.map((s) => [s, new Set<string>()]));
  const cosine = new Map<AnswerSource, number>();
  for (const unit of scored) {
    for (const term of unit.terms) words.get(unit.source)?.add(term);
    cosine.set(unit.source, Math.max(cosine.get(unit.source) ?? 0, unit.cosine));
  }
  const headings = new Map(sources.map((s) => [s, termSet(`${s.title} ${s.headerPath.join(' ')}`)]));
  const terms = questionTerms(question);
  // IDF over the retrieved sections: a word all of them share tells them apart less than one only a few have.
  const weights = termWeights(terms, sources.map((s) => new Set([...words.get(s)!, ...headings.get(s)!])));
  const bestUnit = new Map<AnswerSource, number>();
  for (const unit of scored) bestUnit.set(unit.source, Math.max(bestUnit.get(unit.source) ?? 0, (unit.coverage + unit.cosine) / 2));
  const content = questionWords(question)
    .map((word) => word.filter((t) => !FUNCTION_WORDS.has(t)))
    .filter((word) => word.length > 0);
  // A section answers when it does as a whole or when one of its sentences does on its own (the sentence's
  // coverage weighs words against the other sentences, which can favour it). A section with nothing quotable
  // (only code, a table of symbols) cannot be quoted as an answer.
  return new Map(
    sources.map((s) => {
      if (!cosine.has(s)) return [s, { score: 0, sharedTerms: 0, questionTerms: content.length }];
      const score = Math.max((coverage(weights, words.get(s)!, headings.get(s)!) + cosine.get(s)!) / 2, bestUnit.get(s)!);
      const sharedTerms = content.filter((word) => word.some((t) => words.get(s)!.has(t) || headings.get(s)!.has(t))).length;
      return [s, { score, sharedTerms, questionTerms: content.length }];
    }),
  );
}
