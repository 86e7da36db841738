import type { Command } from 'commander';
import { evaluate, readQuestions, type RetrievalMetrics } from '../../core/search/evaluation.js';
import { withCommonOptions, type CommonOptions } from '../options.js';
import { indexWithProgress, withVault } from './vaultCommands.js';

export function registerEvalCommand(program: Command): void {
  withCommonOptions(
    program
      .command('eval')
      .description('retrieval quality on a labelled question set: Recall@5, Recall@10 and MRR@10 for keyword, vector and hybrid search')
      .requiredOption('--queries <file>', 'JSONL questions ({ q, relevant: [{ path, heading }], kind })')
      .option('--by-kind', 'also report each question kind')
      .option('--per-question', 'also list the rank of the first relevant result per question'),
  ).action((options: CommonOptions & { queries: string; byKind?: boolean; perQuestion?: boolean }) =>
    withVault(options, async (vault) => {
      const questions = await readQuestions(options.queries);
      await indexWithProgress(vault);
      const report = await evaluate(questions, async (query, mode) => (await vault.search({ query, mode, k: 10 })).results);
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ ...report.modes, ...(options.byKind ? { byKind: report.byKind } : {}), ...(options.perQuestion ? { perQuestion: report.perQuestion } : {}) }, null, 2)}\n`,
        );
        return;
      }
      const row = (label: string, m: RetrievalMetrics) => `${label.padEnd(22)} ${m['recall@5'].toFixed(3).padStart(9)} ${m['recall@10'].toFixed(3).padStart(10)} ${m['mrr@10'].toFixed(3).padStart(7)}`;
      const lines = [`${report.questions} questions`, `${''.padEnd(22)} ${'Recall@5'.padStart(9)} ${'Recall@10'.padStart(10)} ${'MRR@10'.padStart(7)}`];
      for (const [mode, m] of Object.entries(report.modes)) lines.push(row(mode, m));
      if (options.byKind) {
        for (const [kind, modes] of Object.entries(report.byKind)) for (const [mode, m] of Object.entries(modes)) lines.push(row(`${kind} / ${mode}`, m));
      }
      if (options.perQuestion) for (const q of report.perQuestion) lines.push(`${q.id} ${q.kind.padEnd(16)} keyword ${q.ranks.keyword} vector ${q.ranks.vector} hybrid ${q.ranks.hybrid}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }),
  );
}
