// The scale benchmark's figures per vault size: their shape, the table printed, and bench/results/scale.json (a run
// replaces the sizes it measured and keeps the others, so sizes can be measured on different days).
import { readFile, writeFile } from 'node:fs/promises';
import type { IndexPhase } from '../../core/app/index.js';

export type Percentiles = { p50: number; p95: number };

export interface IndexTiming {
  seconds: number;
  phases: Record<IndexPhase, number>;
}

export interface SizeResult {
  size: string;
  targetChunks: number;
  status: 'ok' | 'failed' | 'timed out';
  /** The stage that failed or ran out of time, and why. */
  problem?: string;
  measuredAt: string;
  vault?: { notes: number; chunks: number; megabytes: number; generateSeconds: number };
  /** Peak resident memory per stage (MB): of all the stage's processes together, and of each. */
  memory: Record<string, { allMB: number; processesMB: Record<string, number> }>;
  indexOnDiskMB?: number;
  coldIndex?: IndexTiming;
  rechunk?: IndexTiming & { maxChunkChars: number; shareOfCold: number };
  /** Process start → first hybrid answer from the persisted index, seconds. */
  readyToQuery?: { best: number; median: number; runs: number };
  queryMs?: Record<'keyword' | 'vector' | 'hybrid', Percentiles>;
  queries?: number;
  editToSearchableMs?: Percentiles & { max: number; edits: number };
  /** Longest event-loop hold in Cairn's main process, ms. */
  eventLoopMaxMs: Partial<Record<'indexing' | 'loading' | 'searching' | 'rechunking', number>>;
}

export interface ScaleResults {
  machine: { cpus: number; memoryGB: number; node: string };
  notes: string;
  runs: SizeResult[];
}

/** The highest peak of any stage: of all processes together, and of the main process alone. */
export function peakMemory(run: SizeResult): { allMB: number; mainMB: number } | undefined {
  const stages = Object.values(run.memory);
  if (stages.length === 0) return undefined;
  return { allMB: Math.max(...stages.map((s) => s.allMB)), mainMB: Math.max(...stages.map((s) => s.processesMB.main ?? 0)) };
}

export async function mergeResults(file: string, fresh: ScaleResults): Promise<ScaleResults> {
  const old = (await readFile(file, 'utf8').then(JSON.parse, () => undefined)) as ScaleResults | undefined;
  const kept = (old?.runs ?? []).filter((r) => !fresh.runs.some((f) => f.size === r.size));
  const merged = { ...fresh, runs: [...kept, ...fresh.runs].sort((a, b) => a.targetChunks - b.targetChunks) };
  await writeFile(file, `${JSON.stringify(merged, null, 1)}\n`);
  return merged;
}

export function formatTable(runs: SizeResult[]): string {
  const f = (n: number | undefined, digits = 0) => (n === undefined ? '—' : n.toFixed(digits));
  const pair = (p: Percentiles | undefined, digits = 1) => (p ? `${f(p.p50, digits)} / ${f(p.p95, digits)}` : '—');
  const phases = (t: IndexTiming | undefined) => (t ? `${f(t.phases.scan, 1)}/${f(t.phases.chunk, 1)}/${f(t.phases.embed, 1)}/${f(t.phases.index, 1)}/${f(t.phases.persist, 1)}` : '—');
  const stageMemory = (r: SizeResult, stage: string) => {
    const m = r.memory[stage];
    if (!m) return '—';
    const others = Object.entries(m.processesMB).filter(([name]) => name !== 'main');
    return `${f(m.allMB)} (main ${f(m.processesMB.main)}${others.map(([name, mb]) => `, ${name} ${f(mb)}`).join('')})`;
  };
  const rows: Array<[string, (r: SizeResult) => string]> = [
    ['status', (r) => (r.problem ? `${r.status}: ${r.problem}` : r.status)],
    ['notes / chunks', (r) => (r.vault ? `${r.vault.notes} / ${r.vault.chunks}` : '—')],
    ['vault MB', (r) => f(r.vault?.megabytes, 1)],
    ['peak RSS MB, all processes', (r) => f(peakMemory(r)?.allMB)],
    ['  index + query stage', (r) => stageMemory(r, 'index+query')],
    ['  ready to query', (r) => stageMemory(r, 'ready')],
    ['  live edits (service)', (r) => stageMemory(r, 'live')],
    ['  re-chunk', (r) => stageMemory(r, 'rechunk')],
    ['index on disk MB', (r) => f(r.indexOnDiskMB, 1)],
    ['cold index s', (r) => f(r.coldIndex?.seconds, 1)],
    ['  scan/chunk/embed/index/persist s', (r) => phases(r.coldIndex)],
    ['warm re-chunk s (% of cold)', (r) => (r.rechunk ? `${f(r.rechunk.seconds, 1)} (${f(r.rechunk.shareOfCold * 100)} %)` : '—')],
    ['  scan/chunk/embed/index/persist s', (r) => phases(r.rechunk)],
    ['ready to query s best / median', (r) => (r.readyToQuery ? `${f(r.readyToQuery.best, 2)} / ${f(r.readyToQuery.median, 2)}` : '—')],
    ['keyword ms p50 / p95', (r) => pair(r.queryMs?.keyword)],
    ['vector ms p50 / p95', (r) => pair(r.queryMs?.vector)],
    ['hybrid ms p50 / p95', (r) => pair(r.queryMs?.hybrid)],
    ['edit → searchable ms p50 / p95', (r) => pair(r.editToSearchableMs, 0)],
    ['event loop max ms: index', (r) => f(r.eventLoopMaxMs.indexing)],
    ['  load / search / re-chunk', (r) => `${f(r.eventLoopMaxMs.loading)} / ${f(r.eventLoopMaxMs.searching)} / ${f(r.eventLoopMaxMs.rechunking)}`],
  ];
  const cells = [['', ...runs.map((r) => r.size)], ...rows.map(([label, cell]) => [label, ...runs.map(cell)])];
  const widths = cells[0].map((_, c) => Math.max(...cells.map((row) => row[c].length)));
  return cells.map((row) => row.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd()).join('\n');
}
