import { evaluateAnswerQuality, type AnswerEvalQuestion, type AnswerMetrics, type CairnVault } from '../../core/app/index.js';

/** `cairn eval --answers`: extractive answers scored for citing a relevant section and containing the hint. */
export async function printAnswerEval(vault: CairnVault, questions: AnswerEvalQuestion[], options: { json?: boolean; byKind?: boolean; perQuestion?: boolean }): Promise<void> {
  const report = await evaluateAnswerQuality(vault, questions);
  if (options.json) {
    const { overall, byKind, perQuestion } = report;
    process.stdout.write(`${JSON.stringify({ answers: overall, ...(options.byKind ? { byKind } : {}), ...(options.perQuestion ? { perQuestion } : {}) }, null, 2)}\n`);
    return;
  }
  const row = (label: string, m: AnswerMetrics) => `${label.padEnd(22)} ${m.answered.toFixed(3).padStart(9)} ${m.retrieved.toFixed(3).padStart(10)} ${m['cites-relevant'].toFixed(3).padStart(15)} ${m['contains-hint'].toFixed(3).padStart(14)}`;
  const lines = [`${report.overall.questions} questions`, `${''.padEnd(22)} ${'answered'.padStart(9)} ${'retrieved'.padStart(10)} ${'cites-relevant'.padStart(15)} ${'contains-hint'.padStart(14)}`, row('extractive', report.overall)];
  if (options.byKind) for (const [kind, m] of Object.entries(report.byKind)) lines.push(row(kind, m));
  if (options.perQuestion) {
    for (const q of report.perQuestion) lines.push(`${q.id} ${q.kind.padEnd(16)} ${q.answered ? 'answered' : 'refused '} retrieved at ${String(q.retrievedRank || '-').padEnd(2)} cites ${q.citesRelevant ? 'yes' : 'no '} hint ${q.containsHint ? 'yes' : 'no '}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
