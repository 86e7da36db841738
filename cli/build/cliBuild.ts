// The command line runs bundled from cli/dist, the way the desktop app runs the core (electron/build.ts): under a
// TypeScript loader every command paid about a second and 30 MB before doing anything. bin/cairn builds it here
// when it is missing or older than its sources.
import { fileURLToPath } from 'node:url';
import { bundleForNode, CORE_WORKER_ENTRIES } from '../../electron/build.js';
import { swapInBuild } from './swapInBuild.js';

export const CLI_DIST = fileURLToPath(new URL('../dist', import.meta.url));

export async function buildCli(): Promise<void> {
  await swapInBuild(CLI_DIST, 'cli.js', (staging) => bundleForNode({ cli: 'cli/main.ts', ...CORE_WORKER_ENTRIES }, staging));
}
