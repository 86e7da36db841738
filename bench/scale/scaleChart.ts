// bench/results/scale.svg: peak memory, hybrid p95 and cold index time against vault size (log-log), with the targets
// of issue 16 dashed. Drawn by Vega-Lite, rendered to SVG in Node (no browser, no native code).
import { writeFile } from 'node:fs/promises';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { peakMemory, type SizeResult } from './scaleResults.js';

const TARGETS = [
  { chunks: 50_000, memory: 600, hybridP95: 20, coldIndex: 30 },
  { chunks: 1_000_000, memory: 2048, hybridP95: 50, coldIndex: 600 },
];

const PANELS = [
  { field: 'memory', title: 'peak RSS, all processes (MB)' },
  { field: 'hybridP95', title: 'hybrid query p95 (ms)' },
  { field: 'coldIndex', title: 'cold index (s)' },
] as const;

export async function writeScaleChart(runs: SizeResult[], file: string): Promise<void> {
  const measured = runs.map((r) => ({
    series: 'measured',
    chunks: r.vault?.chunks ?? r.targetChunks,
    memory: peakMemory(r)?.allMB,
    hybridP95: r.queryMs?.hybrid.p95,
    coldIndex: r.coldIndex?.seconds,
  }));
  const values = [...measured, ...TARGETS.map((t) => ({ series: 'target (issue 16)', ...t }))];
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Cairn at scale (bundled model, this machine)',
    data: { values },
    hconcat: PANELS.map(({ field, title }) => ({
      width: 240,
      height: 200,
      transform: [{ filter: `isValid(datum.${field})` }],
      mark: { type: 'line' as const, point: true },
      encoding: {
        x: { field: 'chunks', type: 'quantitative' as const, scale: { type: 'log' as const }, title: 'chunks' },
        y: { field, type: 'quantitative' as const, scale: { type: 'log' as const }, title },
        color: { field: 'series', type: 'nominal' as const, title: null },
        strokeDash: { field: 'series', type: 'nominal' as const, title: null },
      },
    })),
  };
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  await writeFile(file, await view.toSVG());
  view.finalize();
}
