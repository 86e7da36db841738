// The scale stages run as built JavaScript, the way the desktop app runs the core (electron/build.ts), not through
// tsx: tsx's loader and source maps cost every process of a stage some 50 MB that the app never pays, and the
// memory figures are the app's.
import path from 'node:path';
import { bundleForNode, CORE_WORKER_ENTRIES } from '../../electron/build.js';

/** Two folders below the repository, as the core's relative paths (models/, grammars) need. */
const STAGE_DIST = path.join(import.meta.dirname, '..', 'dist');
const STAGES = ['indexAndQuery', 'readyToQuery', 'editToSearchable', 'rechunk'] as const;
export type StageName = (typeof STAGES)[number];

export async function buildStages(): Promise<void> {
  const stages = Object.fromEntries(STAGES.map((name) => [name, `bench/scale/${name}.ts`]));
  await bundleForNode({ ...stages, ...CORE_WORKER_ENTRIES }, STAGE_DIST);
}

export function stageScript(name: StageName): string {
  return path.join(STAGE_DIST, `${name}.js`);
}
