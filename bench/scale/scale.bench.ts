/**
 * Cairn at scale: generates vaults of 50k, 200k and 1M chunks from the real corpora and measures each in fresh child
 * processes running the stages built as the desktop app runs the core (stageBuild.ts): memory of every process of a
 * stage, index size on disk, cold index and its phases, warm re-chunk, ready to query, query latency, edit →
 * searchable, longest event-loop hold. Prints a table, writes <out>/scale.json and
 * <out>/scale.svg. Usage:
 *
 *   npm run bench:scale -- <corpora> [--sizes 50k,200k,1m] [--work DIR] [--out bench/results] [--max-minutes 20]
 *     [--queries 300] [--edits 20] [--seed 1]
 *
 * Vaults are generated once into <work>/<size> (outside the repository) and reused; generating is not counted in a
 * size's time limit. Adaptation of the embedding table is off ([embedding] adapt = false): bench/adapt.bench.ts measures it.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { IndexSummary } from '../../core/app/index.js';
import { argValue, percentile } from '../support.js';
import { generateVault, samplesFile, vaultFolder, type VaultSamples } from './generateVault.js';
import { runStage, StageTimeout, type StageRun } from './runStage.js';
import { writeScaleChart } from './scaleChart.js';
import { formatTable, mergeResults, type IndexTiming, type Percentiles, type ScaleResults, type SizeResult } from './scaleResults.js';
import { parseSize, sizeLabel } from './sizes.js';
import { buildStages, type StageName } from './stageBuild.js';
import { BENCH_CONFIG_TOML } from './stageSupport.js';

const args = process.argv.slice(2);
const corpora = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? usage();
const sizes = (argValue(args, '--sizes') ?? '50k,200k,1m').split(',').map(parseSize);
const work = path.resolve(argValue(args, '--work') ?? path.join(os.tmpdir(), 'cairn-scale'));
const out = path.resolve(argValue(args, '--out') ?? path.join(import.meta.dirname, '..', 'results'));
const maxMinutes = Number(argValue(args, '--max-minutes') ?? 20);
const queries = Number(argValue(args, '--queries') ?? 300);
const edits = Number(argValue(args, '--edits') ?? 20);
const seed = Number(argValue(args, '--seed') ?? 1);
/** The chunking change the re-chunk stage makes (the default is 2000). */
const RECHUNK_MAX_CHARS = 1500;
const MB = 2 ** 20;

const results: ScaleResults = {
  machine: { cpus: os.cpus().length, memoryGB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
  notes: `bundled model, [embedding] adapt = false, default chunking; re-chunk = max_chunk_chars 2000 → ${RECHUNK_MAX_CHARS}; ${queries} queries per mode from generated titles and headings; ${edits} edits; time limit ${maxMinutes} min per size (generation not counted)`,
  runs: [],
};
await mkdir(out, { recursive: true });
await buildStages();
for (const targetChunks of sizes) {
  const run = await measureSize(targetChunks);
  results.runs.push(run);
  console.log(`\n${formatTable(results.runs)}\n`);
  const merged = await mergeResults(path.join(out, 'scale.json'), results);
  await writeScaleChart(merged.runs, path.join(out, 'scale.svg'));
}
console.log(`wrote ${path.join(out, 'scale.json')} and ${path.join(out, 'scale.svg')}`);

async function measureSize(targetChunks: number): Promise<SizeResult> {
  const size = sizeLabel(targetChunks);
  const run: SizeResult = { size, targetChunks, status: 'ok', measuredAt: new Date().toISOString(), memory: {}, eventLoopMaxMs: {} };
  const dir = path.join(work, size);
  const vault = vaultFolder(dir);
  const dataDir = path.join(dir, 'data');
  let stage = 'generate';
  const log = (line: string) => console.log(`[${size}] ${line}`);
  try {
    const generated = await generateVault({ corpora, outDir: dir, targetChunks, seed, queries, log });
    run.vault = { notes: generated.notes, chunks: 0, megabytes: generated.bytes / 1e6, generateSeconds: generated.seconds };
    const samples = JSON.parse(await readFile(samplesFile(dir), 'utf8')) as VaultSamples;
    const deadline = Date.now() + maxMinutes * 60_000;
    const measured = <T>(name: string, script: StageName, stageArgs: string[]): Promise<StageRun<T>> => {
      stage = name;
      log(`${name}…`);
      return runStage<T>(script, stageArgs, deadline).then((r) => {
        const previous = run.memory[name];
        run.memory[name] = {
          allMB: Math.max(previous?.allMB ?? 0, r.memory.sum / MB),
          processesMB: Object.fromEntries(Object.entries(r.memory.processes).map(([p, bytes]) => [p, Math.max(previous?.processesMB[p] ?? 0, bytes / MB)])),
        };
        return r;
      });
    };
    await rm(dataDir, { recursive: true, force: true });

    const built = await measured<{ summary: IndexSummary; indexHeldMs: number; latency: Record<'keyword' | 'vector' | 'hybrid', Percentiles>; queries: number; searchHeldMs: number }>('index+query', 'indexAndQuery', [vault, dataDir, samplesFile(dir)]);
    run.vault.chunks = built.result.summary.chunks;
    run.coldIndex = timing(built.result.summary);
    run.queryMs = built.result.latency;
    run.queries = built.result.queries;
    run.eventLoopMaxMs.indexing = built.result.indexHeldMs;
    run.eventLoopMaxMs.searching = built.result.searchHeldMs;
    run.indexOnDiskMB = (await folderBytes(dataDir)) / MB;

    const ready: number[] = [];
    for (const query of samples.queries.slice(1, 4)) {
      const answered = await measured<{ results: number; loadHeldMs: number; pendingRebuild: string | null }>('ready', 'readyToQuery', [vault, dataDir, query]);
      if (answered.result.pendingRebuild) throw new Error(`the persisted index was not reused: ${answered.result.pendingRebuild}`);
      ready.push(answered.resultSeconds);
      run.eventLoopMaxMs.loading = Math.max(run.eventLoopMaxMs.loading ?? 0, answered.result.loadHeldMs);
    }
    run.readyToQuery = { best: Math.min(...ready), median: percentile(ready, 50), runs: ready.length };

    const configFile = path.join(dir, 'config.toml');
    await writeFile(configFile, BENCH_CONFIG_TOML);
    const live = await measured<Percentiles & { max: number; edits: number }>('live', 'editToSearchable', [vault, dataDir, samplesFile(dir), configFile, path.join(dir, 'state.json'), String(edits)]);
    run.editToSearchableMs = live.result;

    const rechunked = await measured<{ summary: IndexSummary; heldMs: number }>('rechunk', 'rechunk', [vault, dataDir, String(RECHUNK_MAX_CHARS)]);
    run.rechunk = { ...timing(rechunked.result.summary), maxChunkChars: RECHUNK_MAX_CHARS, shareOfCold: rechunked.result.summary.seconds / run.coldIndex.seconds };
    run.eventLoopMaxMs.rechunking = rechunked.result.heldMs;
  } catch (error) {
    run.status = error instanceof StageTimeout ? 'timed out' : 'failed';
    run.problem = `${stage}: ${(error as Error).message}`;
    log(`${run.status} in ${run.problem}`);
  }
  return run;
}

function usage(): never {
  console.error('usage: npm run bench:scale -- <corpora> [--sizes 50k,200k,1m] [--work DIR] [--out bench/results] [--max-minutes 20] [--queries N] [--edits N] [--seed N]');
  process.exit(2);
}

function timing(summary: IndexSummary): IndexTiming {
  return { seconds: summary.seconds, phases: summary.phaseSeconds };
}

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) if (entry.isFile()) bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  return bytes;
}
