import { readFile } from 'node:fs/promises';
import type { SearchMode, SearchResult } from '../contract/search.js';

/** One labelled question, as in shared/eval/*.jsonl. */
export interface EvalQuestion {
  id: string;
  q: string;
  relevant: Array<{ path: string; heading: string | null }>;
  kind: string;
}

export interface RetrievalMetrics {
  'recall@5': number;
  'recall@10': number;
  'mrr@10': number;
}

export async function readQuestions(file: string): Promise<EvalQuestion[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .map((line, i) => ({ line: line.trim(), n: i + 1 }))
    .filter(({ line }) => line)
    .map(({ line, n }) => {
      let value: EvalQuestion;
      try {
        value = JSON.parse(line) as EvalQuestion;
      } catch (error) {
        throw new Error(`${file}:${n}: not JSON (${(error as Error).message})`);
      }
      if (typeof value.q !== 'string' || !Array.isArray(value.relevant)) throw new Error(`${file}:${n}: expected "q" and "relevant"`);
      return value;
    });
}

type Placed = Pick<SearchResult, 'path' | 'headerPath'> & { sameText?: ReadonlyArray<Pick<SearchResult, 'path' | 'headerPath'>> };

/**
 * A result answers a question when it is in a relevant note, under the relevant heading (or anywhere when none); or
 * when one of the copies it lists is (the same passage word for word, which the result names).
 */
export function isRelevant(result: Placed, question: EvalQuestion): boolean {
  return [result, ...(result.sameText ?? [])].some((place) => question.relevant.some((r) => r.path === place.path && (r.heading === null || place.headerPath.includes(r.heading))));
}

/** 1-based rank of the first relevant result within the top `k`, or 0. */
export function firstRelevantRank(results: readonly Placed[], question: EvalQuestion, k = 10): number {
  const index = results.slice(0, k).findIndex((r) => isRelevant(r, question));
  return index + 1;
}

export function metricsOf(ranks: readonly number[]): RetrievalMetrics {
  const n = ranks.length || 1;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    'recall@5': round(ranks.filter((r) => r >= 1 && r <= 5).length / n),
    'recall@10': round(ranks.filter((r) => r >= 1 && r <= 10).length / n),
    'mrr@10': round(ranks.reduce((sum, r) => sum + (r >= 1 && r <= 10 ? 1 / r : 0), 0) / n),
  };
}

export interface EvalReport {
  questions: number;
  modes: Record<SearchMode, RetrievalMetrics>;
  byKind: Record<string, Record<SearchMode, RetrievalMetrics>>;
  perQuestion: Array<{ id: string; kind: string; ranks: Record<SearchMode, number> }>;
}

/** Runs every question in every mode through `search` and scores the top 10. */
export async function evaluate(questions: EvalQuestion[], search: (query: string, mode: SearchMode) => Promise<SearchResult[]>): Promise<EvalReport> {
  const modes: SearchMode[] = ['keyword', 'vector', 'hybrid'];
  const perQuestion: EvalReport['perQuestion'] = [];
  for (const question of questions) {
    const ranks = {} as Record<SearchMode, number>;
    for (const mode of modes) ranks[mode] = firstRelevantRank(await search(question.q, mode), question);
    perQuestion.push({ id: question.id, kind: question.kind, ranks });
  }
  const score = (rows: typeof perQuestion) => Object.fromEntries(modes.map((m) => [m, metricsOf(rows.map((r) => r.ranks[m]))])) as Record<SearchMode, RetrievalMetrics>;
  const kinds = [...new Set(questions.map((q) => q.kind))].sort();
  return {
    questions: questions.length,
    modes: score(perQuestion),
    byKind: Object.fromEntries(kinds.map((kind) => [kind, score(perQuestion.filter((r) => r.kind === kind))])),
    perQuestion,
  };
}
