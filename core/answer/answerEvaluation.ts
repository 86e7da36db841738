/**
 * Answer quality on a labelled question set (`cairn eval --answers`): does the extractive answer cite a section
 * that answers the question (the retrieval relevance rule of shared/eval/README.md), and does its text contain
 * the question's `answer_hint`?
 */
import { isRelevant, type EvalQuestion } from '../search/evaluation.js';
import { renderInline } from '../contract/inlineText.js';
import type { Answer } from '../contract/answer.js';

export interface AnswerEvalQuestion extends EvalQuestion {
  /** A short phrase copied from the first relevant section (Markdown as written). */
  answer_hint?: string;
}

export interface AnswerMetrics {
  questions: number;
  /** Share answered with confidence (not "your notes don't seem to answer this"). */
  answered: number;
  /** Share with a relevant section among the sections retrieved for the answer: what the answer could cite. */
  retrieved: number;
  /** Share whose confident answer cites a relevant section. */
  'cites-relevant': number;
  /** Share whose answer text contains the answer_hint (questions without a hint count as misses). */
  'contains-hint': number;
}

export interface AnswerEvalReport {
  overall: AnswerMetrics;
  byKind: Record<string, AnswerMetrics>;
  perQuestion: Array<{ id: string; kind: string; answered: boolean; retrievedRank: number; citesRelevant: boolean; containsHint: boolean; answer: string }>;
}

/**
 * Runs every question through `ask` one after another (answers embed; running them at once would only queue).
 * Only a confident answer counts as citing: the "closest passages" of a refusal are not an answer.
 */
export async function evaluateAnswers(questions: readonly AnswerEvalQuestion[], ask: (question: string) => Promise<Answer>): Promise<AnswerEvalReport> {
  const perQuestion: AnswerEvalReport['perQuestion'] = [];
  for (const question of questions) {
    const answer = await ask(question.q);
    perQuestion.push({
      id: question.id,
      kind: question.kind,
      answered: answer.confident,
      retrievedRank: answer.sources.findIndex((s) => isRelevant(s, question)) + 1,
      citesRelevant: answer.confident && answer.citations.some((c) => isRelevant(c, question)),
      containsHint: question.answer_hint !== undefined && containsHint(answer.answer, question.answer_hint),
      answer: answer.answer,
    });
  }
  const kinds = [...new Set(questions.map((q) => q.kind))].sort();
  return {
    overall: metricsOf(perQuestion),
    byKind: Object.fromEntries(kinds.map((kind) => [kind, metricsOf(perQuestion.filter((r) => r.kind === kind))])),
    perQuestion,
  };
}

/**
 * Case-insensitive, on rendered text: the hint is copied from the Markdown source ("add `ignore global query`
 * instruction") while the answer is already rendered, so only the hint is rendered (rendering twice would strip
 * what a code span protected, such as "<number>").
 */
export function containsHint(answer: string, hint: string): boolean {
  const norm = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();
  const wanted = norm(renderInline(hint));
  return wanted !== '' && norm(answer).includes(wanted);
}

function metricsOf(rows: AnswerEvalReport['perQuestion']): AnswerMetrics {
  const n = rows.length || 1;
  const share = (count: number) => Math.round((count / n) * 1000) / 1000;
  return {
    questions: rows.length,
    answered: share(rows.filter((r) => r.answered).length),
    retrieved: share(rows.filter((r) => r.retrievedRank > 0).length),
    'cites-relevant': share(rows.filter((r) => r.citesRelevant).length),
    'contains-hint': share(rows.filter((r) => r.containsHint).length),
  };
}
