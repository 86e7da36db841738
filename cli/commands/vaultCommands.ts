import { InvalidArgumentError, type Command } from 'commander';
import { CairnVault, type SearchMode, type SearchResponse } from '../../core/api.js';
import { resolveConfig, withCommonOptions, type CommonOptions } from '../options.js';
import { describeSummary, progressReporter } from '../progress.js';
import { warn } from '../output.js';
import { parseDay } from '../../core/search/queryOperators.js';

/** Opens the vault the options name; always closed again (the embedder's worker thread) when `work` ends. */
export async function withVault<T>(options: CommonOptions, work: (vault: CairnVault) => Promise<T>): Promise<T> {
  const { config } = await resolveConfig(options);
  const vault = await CairnVault.open(config);
  try {
    return await work(vault);
  } finally {
    await vault.close();
  }
}

/** Indexes what changed (or rebuilds when the manifest says so), showing progress on stderr. */
export async function indexWithProgress(vault: CairnVault, quiet = false) {
  const progress = progressReporter(quiet);
  try {
    return await vault.index(progress.listener);
  } finally {
    progress.stop();
  }
}

export function registerVaultCommands(program: Command): void {
  withCommonOptions(program.command('index').description('index the vault: everything the first time, then only what changed')).action((options: CommonOptions) =>
    withVault(options, async (vault) => {
      const summary = await indexWithProgress(vault);
      if (options.json) print(summary);
      else process.stdout.write(`${describeSummary(summary)}\n`);
    }),
  );

  withCommonOptions(program.command('rebuild').description('drop the index and build it again (cached embeddings are reused)')).action((options: CommonOptions) =>
    withVault(options, async (vault) => {
      const progress = progressReporter();
      const summary = await vault.rebuild(progress.listener).finally(progress.stop);
      if (options.json) print(summary);
      else process.stdout.write(`${describeSummary(summary)}\n`);
    }),
  );

  withCommonOptions(
    program
      .command('search')
      .description('search the vault (indexes what changed first)')
      .argument('<query>', 'what to look for; may hold filters: path:Folder/ tag:name after:2026-01-01 before:2026-02')
      .option('--k <n>', 'number of results', (v) => positiveInt(v, '--k'))
      .option('--mode <mode>', 'hybrid, keyword or vector', (v) => oneOf(v, ['hybrid', 'keyword', 'vector'], '--mode'))
      .option('--path <prefix>', 'only notes under this folder or path prefix')
      .option('--tag <tag>', 'only chunks with this tag (repeat for several: all must match)', (v, previous: string[] = []) => [...previous, v])
      .option('--after <date>', 'only notes modified on or after this day (YYYY-MM-DD, YYYY-MM or YYYY, local time)', (v) => date(v, '--after'))
      .option('--before <date>', 'only notes modified before this day (YYYY-MM-DD, YYYY-MM or YYYY, local time)', (v) => date(v, '--before'))
      .option('--neighbours', 'also show the chunks before and after each result')
      .option('--no-update', 'search the index as it is, without indexing changes first'),
  ).action((query: string, options: CommonOptions & { k?: number; mode?: SearchMode; path?: string; tag?: string[]; after?: number; before?: number; neighbours?: boolean; update: boolean }) =>
    withVault(options, async (vault) => {
      if (options.update) await indexWithProgress(vault, true);
      const response = await vault.search({
        query,
        k: options.k,
        mode: options.mode,
        neighbours: options.neighbours,
        filters: { pathPrefix: options.path, tags: options.tag, modifiedAfter: options.after, modifiedBefore: options.before },
      });
      for (const problem of response.problems ?? []) warn(problem);
      if (options.json) {
        const results = response.results.map(({ chunkId, path, title, headerPath, startLine, endLine, text, score, explain, neighbours }) => ({ chunkId, path, title, headerPath, startLine, endLine, text, score, explain, ...(neighbours ? { neighbours } : {}) }));
        print({ results, text: response.text, filters: response.filters, ...(response.problems ? { problems: response.problems } : {}), expansions: response.expansions, tookMs: response.tookMs });
      } else process.stdout.write(formatResults(response));
    }),
  );

  withCommonOptions(program.command('status').description('what is indexed, with which model and vector backend, and what failed')).action((options: CommonOptions) =>
    withVault(options, async (vault) => {
      const status = await vault.statusWithManifest();
      if (options.json) return print(status);
      const lines = [
        `vault          ${status.vault}`,
        `data folder    ${status.dataDir}`,
        `notes          ${status.notes}`,
        `chunks         ${status.chunks}`,
        `vector index   ${status.vectorBackend} (${status.vectorKind})${status.faissUnavailable ? ` — faiss unavailable: ${status.faissUnavailable}` : ''}`,
        `model          ${status.model} (${status.dims} dims, ${status.dtype}, window ${status.tokenWindow} tokens)`,
        `updated        ${status.manifest?.updatedAt ?? 'never'}`,
      ];
      if (status.pendingRebuild) lines.push(`rebuild needed ${status.pendingRebuild}`);
      for (const f of status.failed) lines.push(`failed         ${f.path}: ${f.reason}`);
      for (const f of status.frontmatterErrors) lines.push(`front matter   ${f.path}: ${f.reason}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }),
  );
}

function formatResults(response: SearchResponse): string {
  if (response.results.length === 0) return `No results for "${response.query}".\n`;
  const out = response.results.map((r, i) => {
    const where = `${r.path} § ${r.headerPath.join(' › ') || r.title} (lines ${r.startLine}-${r.endLine})`;
    const why = [r.explain.exactTitle ? 'title' : '', r.explain.keywordRank ? `keyword #${r.explain.keywordRank}` : '', r.explain.vectorRank ? `vector #${r.explain.vectorRank}` : '', r.explain.graph ? `linked from ${r.explain.graph.from}` : '', r.explain.recency > 1 ? `recent ×${r.explain.recency}` : '']
      .filter(Boolean)
      .join(', ') || 'kept by the filters, newest first';
    const snippet = r.text.replace(/\s+/g, ' ').slice(0, 240);
    return `${i + 1}. ${where}\n   ${snippet}${r.text.length > 240 ? '…' : ''}\n   score ${r.score.toFixed(4)} — ${why}`;
  });
  return `${out.join('\n\n')}\n`;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} expects a whole number of at least 1, got "${value}"`);
  return n;
}

function oneOf<T extends string>(value: string, choices: readonly T[], flag: string): T {
  if (!choices.includes(value as T)) throw new InvalidArgumentError(`${flag} expects one of ${choices.join(', ')}, got "${value}"`);
  return value as T;
}

function date(value: string, flag: string): number {
  const time = parseDay(value);
  if (time === undefined) throw new InvalidArgumentError(`${flag} expects a date like 2026-11-25, 2026-11 or 2026, got "${value}"`);
  return time;
}
