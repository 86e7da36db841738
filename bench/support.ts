// Shared helpers of the benchmark scripts.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CairnVault, type CairnService } from '../core/app/index.js';
import { defaultConfig, type CairnConfig } from '../core/config/schema.js';

export function argValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

export async function openVault(vault: string, dataDir: string, tweak: (c: CairnConfig) => void = () => {}): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  tweak(config);
  return CairnVault.open(config);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** A seeded PRNG, so runs query the same things. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Samples resident memory while work runs. */
export function rssSampler(): { peak: () => number; stop: () => void } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return { peak: () => Math.max(peak, process.memoryUsage().rss), stop: () => clearInterval(timer) };
}

export const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/**
 * Appends a unique marker word to a note of a watched vault and returns the milliseconds until a keyword search finds
 * it in that note (watcher debounce + update included), once the service is idle again.
 */
export async function timeEditToSearchable(service: CairnService, vault: string, note: string, marker: string): Promise<number> {
  const started = performance.now();
  const file = path.join(vault, note);
  await writeFile(file, `${await readFile(file, 'utf8')}\n\nEdited by the benchmark: ${marker}.\n`);
  for (;;) {
    const { results } = await service.search({ query: marker, mode: 'keyword', k: 3 });
    if (results.some((r) => r.path === note)) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - started;
  await service.idle();
  return ms;
}

/** Runs `work` and says how long the event loop was held at most meanwhile, in ms (10 ms resolution). */
export async function withLoopHold<T>(work: () => Promise<T>): Promise<[T, number]> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    return [await work(), delay.max / 1e6];
  } finally {
    delay.disable();
  }
}
