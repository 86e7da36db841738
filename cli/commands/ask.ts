import { InvalidArgumentError, type Command } from 'commander';
import { answerQuestion } from '../../core/app/index.js';
import type { Answer, Citation } from '../../core/contract/answer.js';
import { withCommonOptions, type CommonOptions } from '../options.js';
import { warn } from '../output.js';
import { copiesLine, passagePlace, queryCommand, withUpdatedVault } from './vaultCommands.js';

type AskOptions = CommonOptions & { k?: number; mode?: 'auto' | 'extractive' | 'llm'; update: boolean };

export function registerAskCommand(program: Command): void {
  withCommonOptions(
    queryCommand(program, 'ask', 'answer a question from your notes, citing them (indexes what changed first)', {
      argument: ['<question>', 'what you want to know'],
      whenEmpty: 'the question is empty: ask something, e.g. cairn ask "what does overlap_chars do?"',
      k: 'passages to retrieve',
    })
      .option('--mode <mode>', 'auto, extractive or llm (overrides [answer] mode)', answerMode)
      .option('--no-update', 'answer from the index as it is, without indexing changes first'),
  ).action((question: string, options: AskOptions) =>
    withUpdatedVault(options, async (vault) => {
      // Text mode shows the model's answer as it is written; JSON waits for the checked answer.
      let streamed = false;
      const onToken = options.json
        ? undefined
        : (token: string) => {
            streamed = true;
            process.stdout.write(token);
          };
      const answer = await answerQuestion(vault, question, { k: options.k, mode: options.mode }, onToken);
      if (options.json) {
        const { answer: text, mode, confident, citations, llmError, fallback, droppedCitations } = answer;
        process.stdout.write(`${JSON.stringify({ answer: text, mode, confident, citations: citations.map(citationJson), ...(llmError ? { llmError, fallback } : {}), ...(droppedCitations ? { droppedCitations } : {}) }, null, 2)}\n`);
        return;
      }
      process.stdout.write(formatAnswer(answer, streamed));
    }),
  );
}

function answerMode(value: string): 'auto' | 'extractive' | 'llm' {
  if (value === 'auto' || value === 'extractive' || value === 'llm') return value;
  throw new InvalidArgumentError(`--mode expects one of auto, extractive, llm, got "${value}"`);
}

function citationJson({ n, chunkId, path, title, headerPath, startLine, endLine, sameText }: Citation) {
  return { n, chunkId, path, title, headerPath, startLine, endLine, ...(sameText ? { sameText } : {}) };
}

/** What follows the streamed tokens (or the whole answer when nothing streamed): notes, then the sources. */
function formatAnswer(answer: Answer, streamed: boolean): string {
  let out = '';
  if (answer.mode === 'llm') {
    out += streamed ? '\n' : `${answer.answer}\n`;
    const dropped = answer.droppedCitations ?? [];
    if (dropped.length) warn(`the model cited ${dropped.map((n) => `[${n}]`).join(', ')}, which ${dropped.length === 1 ? 'names' : 'name'} no source; removed from the answer`);
  } else {
    if (answer.llmError) {
      if (streamed) out += '\n\n';
      warn(`no answer from the language model: ${answer.llmError}. The answer below is quoted from your notes.`);
    }
    out += `${answer.answer}\n`;
  }
  if (answer.citations.length) out += `\nSources:\n${answer.citations.map((c) => `[${c.n}] ${passagePlace(c)}${c.sameText?.length ? `, also in ${copiesLine(c.sameText, (copy) => copy.path)}` : ''}`).join('\n')}\n`;
  return out;
}
