// Makes sure renderer/dist holds a build of the current renderer sources, building it with Vite's JS API when it is
// missing or older than any source file (swapped in whole, see swapInBuild.ts). Paths are two folders up: the
// command line also runs bundled from cli/dist.
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { swapInBuild } from './swapInBuild.js';

export const RENDERER_DIR = fileURLToPath(new URL('../../renderer', import.meta.url));
export const RENDERER_DIST = path.join(RENDERER_DIR, 'dist');

/** Newest modification time of the renderer's sources (everything under renderer/ but its build output). */
async function newestSourceTime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('dist') || entry.name.startsWith('.dist')) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestSourceTime(full) : (await stat(full)).mtimeMs);
  }
  return newest;
}

/** The renderer bundles core modules it imports (the outline parser, the API types): a change there is a change too. */
const CORE_DIR = fileURLToPath(new URL('../../core', import.meta.url));

export async function rendererIsStale(): Promise<boolean> {
  const index = path.join(RENDERER_DIST, 'index.html');
  if (!existsSync(index)) return true;
  const built = (await stat(index)).mtimeMs;
  return built < Math.max(await newestSourceTime(RENDERER_DIR), await newestSourceTime(CORE_DIR));
}

/** Returns the folder to serve; `log` hears one line when a build happens. */
export async function ensureRendererBuilt(log: (line: string) => void = () => {}): Promise<string> {
  if (!(await rendererIsStale())) return RENDERER_DIST;
  log('building the UI (renderer/dist)…');
  const { build } = await import('vite');
  await swapInBuild(RENDERER_DIST, 'index.html', async (staging) => {
    await build({ configFile: path.join(RENDERER_DIR, 'vite.config.ts'), logLevel: 'warn', build: { outDir: staging, emptyOutDir: true } });
  });
  return RENDERER_DIST;
}
