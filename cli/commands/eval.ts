import { InvalidArgumentError, type Command } from 'commander';
import { copyWithSeededMtimes, evaluateRetrieval, readQuestions, type RetrievalMetrics } from '../../core/app/index.js';
import { resolveConfig, withCommonOptions, type CommonOptions } from '../options.js';
import { printAnswerEval } from './evalAnswers.js';
import { reportUnsaved, withIndexedVault } from './vaultCommands.js';

export function registerEvalCommand(program: Command): void {
  withCommonOptions(
    program
      .command('eval')
      .description('retrieval quality on a labelled question set: Recall@5, Recall@10 and MRR@10 for keyword, vector and hybrid search')
      .requiredOption('--queries <file>', 'JSONL questions ({ q, relevant: [{ path, heading }], kind })')
      .option('--by-kind', 'also report each question kind')
      .option('--per-question', 'also list the rank of the first relevant result per question')
      .option('--mtimes <seed>', 'evaluate on a temporary copy of the vault with seeded modification times (5% this week, 10% this month, the rest over two years)', seedOf)
      .option('--answers', 'score extractive answers instead: share citing a relevant section, share containing the answer_hint'),
  ).action(async (options: CommonOptions & { queries: string; byKind?: boolean; perQuestion?: boolean; answers?: boolean; mtimes?: number }) => {
    const vaultPath = (await resolveConfig(options)).config.vault.path;
    // Without a vault path withIndexedVault says so; only a named vault is copied.
    const copy = options.mtimes === undefined || !vaultPath ? undefined : await copyWithSeededMtimes(vaultPath, options.mtimes);
    if (copy) options.vault = copy.dir;
    const questions = await readQuestions(options.queries);
    // Indexed (and adapted) as `cairn index` would: the figures are those of the default product.
    await withIndexedVault(options, async (vault, summary) => {
      reportUnsaved(summary);
      if (options.answers) return printAnswerEval(vault, questions, options);
      const report = await evaluateRetrieval(vault, questions);
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
    }).finally(() => copy?.remove());
  });
}

function seedOf(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a whole number seed, e.g. --mtimes 1');
  return Number(value);
}
