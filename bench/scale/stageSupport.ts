// What the scale benchmark's stages (each a fresh child process of scale.bench.ts) share: the benchmark's config,
// and how a stage hands its figures back.
import type { CairnConfig, CairnVault } from '../../core/app/index.js';
import { SEARCH_MODES, type SearchMode } from '../../core/contract/search.js';

/** The parent reads the line that starts with this. */
export const RESULT_PREFIX = 'SCALE-RESULT ';

/** Adaptation of the embedding table is off: bench/adapt.bench.ts measures it, and it would compete with the timings. */
export function benchConfig(config: CairnConfig): void {
  config.embedding.adapt = false;
}

/** The config.toml of stages that run the whole service (with the same settings as benchConfig). */
export const BENCH_CONFIG_TOML = '[embedding]\nadapt = false\n';

/**
 * Each mode's search times in ms, over the queries one after another (top 10), modes in SEARCH_MODES order, each
 * without the vectors the mode before embedded (a query's vector is kept for the next search of the same text).
 */
export async function timeSearches(opened: CairnVault, queries: readonly string[], modes: readonly SearchMode[] = SEARCH_MODES): Promise<Map<SearchMode, number[]>> {
  const byMode = new Map<SearchMode, number[]>();
  for (const mode of SEARCH_MODES) {
    if (!modes.includes(mode)) continue;
    const times: number[] = [];
    opened.forgetEmbeddedTexts();
    for (const query of queries) {
      const t = performance.now();
      await opened.search({ query, mode, k: 10 });
      times.push(performance.now() - t);
    }
    byMode.set(mode, times);
  }
  return byMode;
}

export function reportResult(result: unknown): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

export function stageArgs(usage: string, count: number): string[] {
  const args = process.argv.slice(2);
  if (args.length < count) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return args;
}
