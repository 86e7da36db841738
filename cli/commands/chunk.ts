import type { Command } from 'commander';
import { chunkFiles, type Chunk } from '../../core/app/index.js';
import { resolveConfig, withCommonOptions, type CommonOptions } from '../options.js';
import { warn } from '../output.js';

export function registerChunkCommand(program: Command): void {
  withCommonOptions(
    program
      .command('chunk')
      .description('cut Markdown files into chunks as the index would, and print them (folders are scanned like a vault)')
      .argument('<paths...>', 'files and folders to chunk'),
  ).action(async (paths: string[], options: CommonOptions) => {
    const { config } = await resolveConfig(options);
    const results: Array<Chunk & { path: string }> = [];
    for await (const file of chunkFiles(paths, config)) {
      if ('skipped' in file) {
        warn(`skipped ${file.display}: ${file.skipped}`);
        continue;
      }
      if (file.frontmatterError) warn(`${file.display}:${file.frontmatterError.line}: front matter not parsed (${file.frontmatterError.message}); indexed as text`);
      if (file.warning) warn(`${file.display}: ${file.warning}`);
      if (options.json) results.push(...file.chunks.map((chunk) => ({ path: file.display, ...chunk })));
      else printOutline(file.display, file.chunks);
    }
    if (options.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  });
}

function printOutline(display: string, chunks: Chunk[]): void {
  const lines = [`${display}  (${chunks.length} chunk${chunks.length === 1 ? '' : 's'})`];
  for (const chunk of chunks) {
    const where = `L${chunk.startLine}-${chunk.endLine}`.padEnd(11);
    const heading = (chunk.headerPath.join(' › ') || (chunk.level ? '(blank heading)' : '(before the first heading)')) + (chunk.sub === null ? '' : `  _sub_${chunk.sub}`);
    lines.push(`  ${String(chunk.index).padStart(3)}  ${where} ${heading}  [${chunk.text.length} chars, ${chunk.tokenCount} tokens]`);
    if (chunk.parts) lines.push(`${' '.repeat(18)}merges ${chunk.parts.map((p) => `L${p.startLine} ${p.headerPath.at(-1) || '(no heading text)'}`).join(' · ')}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
