// Makes sure renderer/dist holds a build of the current renderer sources, building it with Vite's JS API when it is
// missing or older than any source file. Builds go to a temporary folder that is then swapped in, so a server
// reading dist (or a second process building at the same time) never sees half a build.
import { existsSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const RENDERER_DIR = fileURLToPath(new URL('../renderer', import.meta.url));
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
const CORE_DIR = fileURLToPath(new URL('../core', import.meta.url));

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
  const staging = path.join(RENDERER_DIR, `.dist-build-${process.pid}-${Date.now()}`);
  try {
    await build({ configFile: path.join(RENDERER_DIR, 'vite.config.ts'), logLevel: 'warn', build: { outDir: staging, emptyOutDir: true } });
    const old = path.join(RENDERER_DIR, `.dist-old-${process.pid}-${Date.now()}`);
    if (existsSync(RENDERER_DIST)) await rename(RENDERER_DIST, old).catch(() => {});
    await rename(staging, RENDERER_DIST).catch(async (error: NodeJS.ErrnoException) => {
      // Another process swapped its build in first: theirs is as fresh as ours.
      if (!existsSync(path.join(RENDERER_DIST, 'index.html'))) throw error;
    });
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return RENDERER_DIST;
}
