import { InvalidArgumentError, type Command } from 'commander';
import { CairnVault, type AdaptOutcome, type IndexSummary, type SearchMode, type SearchResponse } from '../../core/app/index.js';
import { nonEmpty, resolveConfig, withCommonOptions, type CommonOptions } from '../options.js';
import { adaptProgressReporter, describeSummary, progressReporter } from '../progress.js';
import { warn } from '../output.js';
import { parseDay } from '../../core/contract/filters.js';
import { namedCopies, SEARCH_MODES, type PassagePlace } from '../../core/contract/search.js';
import { shownHeaderPath } from '../../core/contract/inlineText.js';

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

/** Like withVault, but first indexes what changed unless --no-update: `search` and `ask` answer from a fresh index. */
export function withUpdatedVault<T>(options: CommonOptions & { update: boolean }, work: (vault: CairnVault) => Promise<T>): Promise<T> {
  return withVault(options, async (vault) => {
    if (options.update) reportUnsaved(await indexWithProgress(vault, true));
    return work(vault);
  });
}

/** The start of `cairn search` and `cairn ask`: one text argument that may not be blank, and --k. */
export function queryCommand(program: Command, name: string, description: string, spec: { argument: [name: string, help: string]; whenEmpty: string; k: string }): Command {
  return program
    .command(name)
    .description(description)
    .argument(...spec.argument, nonEmpty(spec.whenEmpty))
    .option('--k <n>', spec.k, (v) => positiveInt(v, '--k'));
}

/**
 * Opens and indexes the vault, then, when it is due (or `forceAdapt`), learns its vocabulary and indexes it again
 * with the new table, so that what `work` sees (and what is saved) uses the table the app would use.
 */
export async function withIndexedVault<T>(
  options: CommonOptions,
  work: (vault: CairnVault, summary: IndexSummary, adaptation?: AdaptOutcome) => Promise<T>,
  { quiet = false, forceAdapt = false } = {},
): Promise<T> {
  const { config } = await resolveConfig(options);
  let vault: CairnVault | undefined = await CairnVault.open(config);
  try {
    let summary = await indexWithProgress(vault, quiet);
    let adaptation: AdaptOutcome | undefined;
    if (forceAdapt || vault.adaptationDue()) {
      const progress = adaptProgressReporter(quiet);
      adaptation = await vault.adapt({ onProgress: progress.listener }).finally(progress.stop);
      if (adaptation.adapted) {
        const adapted = vault;
        vault = undefined;
        await adapted.close();
        vault = await CairnVault.open(config);
        summary = await indexWithProgress(vault, quiet);
      }
    }
    return await work(vault, summary, adaptation);
  } finally {
    await vault?.close();
  }
}

/** Indexes what changed (or rebuilds when the manifest says so), showing progress on stderr. */
export async function indexWithProgress(vault: CairnVault, quiet = false) {
  const progress = progressReporter(quiet);
  let summary: IndexSummary;
  try {
    summary = await vault.index(progress.listener);
  } finally {
    progress.stop();
  }
  return summary;
}

/**
 * A save that failed: `index`, `rebuild` and `adapt` are run to save the index, and fail; any other command goes on
 * from the index in memory, which is whole.
 */
export function reportUnsaved(summary: IndexSummary, { failing = false } = {}): void {
  if (!summary.unsaved) return;
  if (!failing) return warn(`${summary.unsaved}; this command answers from the index in memory`);
  process.stderr.write(`cairn: error: ${summary.unsaved}\n`);
  process.exitCode = 1;
}

export function registerVaultCommands(program: Command): void {
  withCommonOptions(
    program.command('index').description("index the vault: everything the first time, then only what changed; then learn the vault's vocabulary when due ([embedding] adapt)"),
  ).action((options: CommonOptions) =>
    withIndexedVault(options, async (_vault, summary, adaptation) => {
      if (options.json) print({ ...summary, ...(adaptation ? { adaptation } : {}) });
      else process.stdout.write(`${describeSummary(summary)}${adaptation ? `\n${describeAdaptation(adaptation)}` : ''}\n`);
      reportUnsaved(summary, { failing: true });
    }),
  );

  withCommonOptions(
    program.command('adapt').description("learn the vault's vocabulary now: adapt the bundled static embedding table to this vault and re-embed the index with it"),
  ).action((options: CommonOptions) =>
    withIndexedVault(
      options,
      async (vault, summary, adaptation) => {
        const table = vault.status().table;
        if (options.json) print({ adaptation, table, summary });
        else process.stdout.write(`${describeAdaptation(adaptation!)}\n`);
        if (!adaptation?.adapted) process.exitCode = 1;
        reportUnsaved(summary, { failing: true });
      },
      { forceAdapt: true },
    ),
  );

  withCommonOptions(program.command('rebuild').description('drop the index and build it again (cached embeddings are reused)')).action((options: CommonOptions) =>
    withVault(options, async (vault) => {
      const progress = progressReporter();
      const summary = await vault.rebuild(progress.listener).finally(progress.stop);
      if (options.json) print(summary);
      else process.stdout.write(`${describeSummary(summary)}\n`);
      reportUnsaved(summary, { failing: true });
    }),
  );

  withCommonOptions(
    queryCommand(program, 'search', 'search the vault (indexes what changed first)', {
      argument: ['<query>', 'what to look for; may hold filters: path:Folder/ tag:name after:2026-01-01 before:2026-02'],
      whenEmpty: 'the query is empty: give some words to look for, or a filter such as tag:idea',
      k: 'number of results (default [search] k)',
    })
      .option('--offset <n>', 'skip this many results: the next page (e.g. --k 10 --offset 10)', (v) => wholeNumber(v, '--offset'))
      .option('--mode <mode>', 'hybrid, keyword or vector', (v) => oneOf(v, SEARCH_MODES, '--mode'))
      .option('--path <prefix>', 'only notes under this folder or path prefix')
      .option('--tag <tag>', 'only chunks with this tag (repeat for several: all must match)', (v, previous: string[] = []) => [...previous, v])
      .option('--after <date>', 'only notes modified on or after this day (YYYY-MM-DD, YYYY-MM or YYYY, local time)', (v) => date(v, '--after'))
      .option('--before <date>', 'only notes modified before this day (YYYY-MM-DD, YYYY-MM or YYYY, local time)', (v) => date(v, '--before'))
      .option('--neighbours', 'also show the chunks before and after each result')
      .option('--no-update', 'search the index as it is, without indexing changes first'),
  ).action((query: string, options: CommonOptions & { k?: number; offset?: number; mode?: SearchMode; path?: string; tag?: string[]; after?: number; before?: number; neighbours?: boolean; update: boolean }) =>
    withUpdatedVault(options, async (vault) => {
      const response = await vault.search({
        query,
        k: options.k,
        offset: options.offset,
        mode: options.mode,
        neighbours: options.neighbours,
        filters: { pathPrefix: options.path, tags: options.tag, modifiedAfter: options.after, modifiedBefore: options.before },
      });
      for (const problem of response.problems ?? []) warn(problem);
      if (options.json) {
        const results = response.results.map(({ chunkId, path, title, headerPath, startLine, endLine, text, score, explain, sameText, neighbours }) => ({ chunkId, path, title, headerPath, startLine, endLine, text, score, explain, ...(sameText ? { sameText } : {}), ...(neighbours ? { neighbours } : {}) }));
        print({
          results,
          text: response.text,
          filters: response.filters,
          ...(response.problems ? { problems: response.problems } : {}),
          ...(response.unknownTags ? { unknownTags: response.unknownTags } : {}),
          offset: response.offset,
          total: response.total,
          more: response.more,
          expansions: response.expansions,
          tookMs: response.tookMs,
        });
      } else process.stdout.write(formatResults(response, options.k));
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
        `table          ${status.table.kind === 'adapted' ? `adapted to this vault ${status.table.adaptedAt} (${status.table.hash})` : 'shipped'}${status.adaptationDue ? ` — adaptation due: ${status.adaptationDue}` : ''}`,
        `updated        ${status.manifest?.updatedAt ?? 'never'}`,
      ];
      if (status.pendingRebuild) lines.push(`rebuild needed ${status.pendingRebuild}`);
      for (const f of status.failed) lines.push(`${f.indexed ? 'note warning' : 'failed      '}   ${f.path}: ${f.reason}`);
      for (const f of status.frontmatterErrors) lines.push(`front matter   ${f.path}: ${f.reason}`);
      for (const w of status.warnings ?? []) lines.push(`warning        ${w}`);
      if (status.unsaved) lines.push(`not saved      ${status.unsaved}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }),
  );
}

function describeAdaptation(outcome: AdaptOutcome): string {
  if (!outcome.adapted) return `vocabulary not adapted: ${outcome.reason}`;
  const { state } = outcome;
  const mrr = state.heldOutMrr ? `, held-out pair MRR@10 ${state.heldOutMrr.before.toFixed(3)} → ${state.heldOutMrr.after.toFixed(3)}` : '';
  const pairs = state.pairs ? ` on ${state.pairs.train} pairs mined from the vault` : '';
  return `vocabulary adapted${pairs} in ${(state.seconds ?? 0).toFixed(1)} s (table ${state.tableHash}${mrr})`;
}

function formatResults(response: SearchResponse, k: number | undefined): string {
  if (response.results.length === 0) {
    if (response.offset > 0 && response.total > 0) return `No more results for "${response.query}": there are ${response.total}.\n`;
    if (response.incomplete?.length && !response.text && !response.operators.length) return `${response.incomplete.join(' ')} has no value yet: give one, e.g. tag:idea or path:Projects/.\n`;
    return `No results for "${response.query}".\n`;
  }
  const out = response.results.map((r, i) => {
    const where = passagePlace(r);
    const why = [r.explain.exactTitle ? 'title' : '', r.explain.keywordRank ? `keyword #${r.explain.keywordRank}` : '', r.explain.vectorRank ? `vector #${r.explain.vectorRank}` : '', r.explain.sentence ? `sentence #${r.explain.sentence.rank}` : '', r.explain.graph ? `linked from ${r.explain.graph.from}` : '', r.explain.recency > 1 ? `recent ×${r.explain.recency}` : '']
      .filter(Boolean)
      .join(', ') || 'kept by the filters, newest first';
    // The app's snippet: readable text around the first matched word, its own heading left to the line above.
    const snippet = r.snippet.map((segment) => segment.text).join('');
    const copies = r.sameText?.length ? `\n   the same passage is also in ${copiesLine(r.sameText, (c) => `${c.path} (lines ${c.startLine}-${c.endLine})`)}` : '';
    return `${response.offset + i + 1}. ${where}\n   ${snippet}${copies}\n   score ${r.score.toFixed(4)} — ${why}`;
  });
  return `${out.join('\n\n')}\n\n${pageLine(response, k)}\n`;
}

/** The copies a result names, then how many more (`--json` lists them all). */
export function copiesLine(copies: readonly PassagePlace[], label: (copy: PassagePlace) => string): string {
  const { named, more } = namedCopies(copies);
  return `${named.map(label).join(', ')}${more > 0 ? ` and ${more} more (--json lists them all)` : ''}`;
}

/** "1–10 of 75 notes kept by the filters — next page: --offset 10", or "3 results" when that is all. */
export function pageLine(response: Pick<SearchResponse, 'offset' | 'total' | 'more' | 'results' | 'text'>, k?: number): string {
  const first = response.offset + 1;
  const last = response.offset + response.results.length;
  const what = response.text ? `${response.total} result${response.total === 1 ? '' : 's'}` : `${response.total} note${response.total === 1 ? '' : 's'} kept by the filters`;
  if (!response.more && response.offset === 0) return what;
  const next = response.more ? ` — next page: --offset ${last}${k ? ` --k ${k}` : ''}` : '';
  return `${first}–${last} of ${what}${next}`;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} expects a whole number of at least 1, got "${value}"`);
  return n;
}

export function wholeNumber(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${flag} expects a whole number (0 or more), got "${value}"`);
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

/** "path § Header › Path (lines a-b)": where a passage is, as the CLI names it (its headings as the page shows them). */
export function passagePlace(passage: { path: string; title: string; headerPath: readonly string[]; startLine: number; endLine: number }): string {
  return `${passage.path} § ${shownHeaderPath(passage.headerPath).join(' › ') || passage.title} (lines ${passage.startLine}-${passage.endLine})`;
}
