// `cairn eval`: how well an indexed vault answers a labelled question set (shared/eval/*.jsonl): retrieval
// (Recall@5, Recall@10, MRR@10 for each search mode), or with `--answers` the extractive answers.
import { answerQuestion } from '../answer/index.js';
import { evaluateAnswers, type AnswerEvalQuestion, type AnswerEvalReport } from '../answer/answerEvaluation.js';
import { evaluate, type EvalQuestion, type EvalReport } from '../search/evaluation.js';
import type { CairnVault } from './vault.js';

export { readQuestions, type EvalQuestion, type RetrievalMetrics } from '../search/evaluation.js';
export { copyWithSeededMtimes } from '../search/seededMtimes.js';
export type { AnswerEvalQuestion, AnswerMetrics } from '../answer/answerEvaluation.js';

/** Every question in every search mode, the top 10 scored. */
export function evaluateRetrieval(vault: CairnVault, questions: EvalQuestion[]): Promise<EvalReport> {
  return evaluate(questions, async (query, mode) => (await vault.search({ query, mode, k: 10 })).results);
}

/** Extractive answers scored for citing a relevant section and containing the question's answer_hint. */
export function evaluateAnswerQuality(vault: CairnVault, questions: readonly AnswerEvalQuestion[]): Promise<AnswerEvalReport> {
  // Extractive whatever [answer] mode says: the figures are about the offline answer, and nothing is sent anywhere.
  return evaluateAnswers(questions, (q) => answerQuestion(vault, q, { mode: 'extractive' }));
}
