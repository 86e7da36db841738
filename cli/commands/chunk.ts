import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { createNoteChunker } from '../../core/chunking/chunkerPool.js';
import { createEmbedder } from '../../core/embedding/embedder.js';
import { defaultDataRoot } from '../../core/indexing/dataPaths.js';
import type { Chunk } from '../../core/chunking/types.js';
import { readNoteFile } from '../../core/vault/readNoteFile.js';
import { scanVault, type VaultFileEntry } from '../../core/vault/scanVault.js';
import { resolveConfig, withCommonOptions, type CommonOptions } from '../options.js';
import { warn } from '../output.js';

interface Target {
  entry: VaultFileEntry;
  /** The file as the user named it, relative to the working directory. */
  display: string;
}

export function registerChunkCommand(program: Command): void {
  withCommonOptions(
    program
      .command('chunk')
      .description('cut Markdown files into chunks as the index would, and print them (folders are scanned like a vault)')
      .argument('<paths...>', 'files and folders to chunk'),
  ).action(async (paths: string[], options: CommonOptions) => {
    const { config } = await resolveConfig(options);
    // The configured model's own token counter and window, so these are exactly the chunks the index makes.
    const embedder = await createEmbedder({
      model: config.embedding.model,
      dtype: config.embedding.dtype,
      batchSize: config.embedding.batch_size,
      maxTokens: config.embedding.max_tokens,
      dataRoot: config.index.data_dir ? path.resolve(config.index.data_dir) : defaultDataRoot(),
    });
    const tokens = embedder.tokens;
    await embedder.close();
    // The indexer's own chunker (a worker thread): a note that breaks the parser is named, and the others go on.
    const chunker = createNoteChunker(config.chunking, tokens);
    try {
      const targets = await collectTargets(paths, config.vault);
      const results: Array<Chunk & { path: string }> = [];
      for (const target of targets) {
        let note;
        try {
          note = await readNoteFile(target.entry);
        } catch (error) {
          warn(`skipped ${target.display}: ${(error as Error).message}`);
          continue;
        }
        let chunked;
        try {
          chunked = await chunker.chunk({ path: target.entry.path, text: note.text, mtimeMs: note.mtimeMs });
        } catch (error) {
          warn(`skipped ${target.display}: ${(error as Error).message}`);
          continue;
        }
        if (chunked.frontmatterError) warn(`${target.display}:${chunked.frontmatterError.line}: front matter not parsed (${chunked.frontmatterError.message}); indexed as text`);
        if (chunked.warning) warn(`${target.display}: ${chunked.warning}`);
        if (options.json) results.push(...chunked.chunks.map((chunk) => ({ path: target.display, ...chunk })));
        else printOutline(target.display, chunked.chunks);
      }
      if (options.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    } finally {
      await chunker.close();
    }
  });
}

async function collectTargets(paths: string[], vault: { include: string[]; exclude: string[]; extensions: string[] }): Promise<Target[]> {
  const targets: Target[] = [];
  for (const given of paths) {
    const absolute = path.resolve(given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) throw new Error(`${given}: no such file or folder`);
    if (info.isDirectory()) {
      const scan = await scanVault(absolute, vault);
      for (const warning of scan.warnings) warn(`skipped ${path.join(given, warning.path)}: ${warning.reason}`);
      for (const entry of scan.files) targets.push({ entry, display: toPosix(path.relative(process.cwd(), entry.absPath)) });
    } else {
      const display = toPosix(path.relative(process.cwd(), absolute));
      targets.push({ entry: { path: display, absPath: absolute, size: info.size, mtimeMs: info.mtimeMs }, display });
    }
  }
  return targets;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function printOutline(display: string, chunks: Chunk[]): void {
  const lines = [`${display}  (${chunks.length} chunk${chunks.length === 1 ? '' : 's'})`];
  for (const chunk of chunks) {
    const where = `L${chunk.startLine}-${chunk.endLine}`.padEnd(11);
    const heading = (chunk.headerPath.join(' › ') || '(before the first heading)') + (chunk.sub === null ? '' : `  _sub_${chunk.sub}`);
    lines.push(`  ${String(chunk.index).padStart(3)}  ${where} ${heading}  [${chunk.text.length} chars, ${chunk.tokenCount} tokens]`);
    if (chunk.parts) lines.push(`${' '.repeat(18)}merges ${chunk.parts.map((p) => `L${p.startLine} ${p.headerPath.at(-1) || '(before the first heading)'}`).join(' · ')}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
