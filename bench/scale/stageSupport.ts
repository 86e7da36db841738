// What the scale benchmark's stages (each a fresh child process of scale.bench.ts) share: the benchmark's config,
// and how a stage hands its figures back.
import type { CairnConfig } from '../../core/app/index.js';

/** The parent reads the line that starts with this. */
export const RESULT_PREFIX = 'SCALE-RESULT ';

/** Adaptation of the embedding table is off: bench/adapt.bench.ts measures it, and it would compete with the timings. */
export function benchConfig(config: CairnConfig): void {
  config.embedding.adapt = false;
}

/** The config.toml of stages that run the whole service (with the same settings as benchConfig). */
export const BENCH_CONFIG_TOML = '[embedding]\nadapt = false\n';

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
