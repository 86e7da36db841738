// Builds the desktop shell into electron/dist with Vite's JS API (Electron runs JavaScript, not TypeScript):
//   main.js, coreHost.js (the utility process) and embeddingWorker.js (the core's embedding child process, which the
//   core looks for next to its own code) as ES modules for Electron's Node; packages stay in node_modules;
//   preload.cjs as one CommonJS file, because a sandboxed preload can neither be a module nor require our files.
// electron/dist sits two folders below the repository, as core/<folder>/ does, so the core's own relative paths
// (../../models) keep pointing at the same places.
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinModules } from 'node:module';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ELECTRON_DIST = path.join(ROOT, 'electron', 'dist');

/** The core's own child processes and threads: every bundle that runs the core carries them beside its code. */
export const CORE_WORKER_ENTRIES = {
  embeddingWorker: 'core/embedding/embeddingWorker.ts',
  hnswGraphWorker: 'core/indices/vector/hnswGraphWorker.ts',
  chunkWorker: 'core/chunking/chunkWorker.ts',
  adaptWorker: 'core/adapt/adaptWorker.ts',
};

const ENTRIES = { main: 'electron/main.ts', coreHost: 'electron/coreHost.ts', ...CORE_WORKER_ENTRIES };

/** Bare package names and node: builtins stay imports; our own files (relative or absolute paths) are bundled. */
function isExternal(id: string): boolean {
  if (id.startsWith('.') || path.isAbsolute(id) || id.startsWith('\0')) return false;
  return id.startsWith('node:') || builtinModules.includes(id) || /^(@[\w.-]+\/)?[\w.-]+(\/.*)?$/.test(id);
}

async function newest(dir: string): Promise<number> {
  let time = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? await newest(full) : entry.name.endsWith('.ts') ? (await stat(full)).mtimeMs : 0);
  }
  return time;
}

/** True when electron/dist is missing or older than the sources it is built from (electron/ and core/). */
export async function electronBuildIsStale(): Promise<boolean> {
  const marker = path.join(ELECTRON_DIST, 'preload.cjs');
  if (!existsSync(marker) || !existsSync(path.join(ELECTRON_DIST, 'main.js'))) return true;
  const built = (await stat(marker)).mtimeMs;
  return Math.max(await newest(path.join(ROOT, 'electron')), await newest(path.join(ROOT, 'core'))) > built;
}

export async function buildElectron(): Promise<string> {
  await bundleForNode(ENTRIES, ELECTRON_DIST);
  const { build } = await import('vite');
  const common = { configFile: false as const, root: ROOT, logLevel: 'warn' as const, publicDir: false as const };
  await build({
    ...common,
    build: {
      ssr: true,
      outDir: ELECTRON_DIST,
      emptyOutDir: false,
      target: 'node20',
      minify: false,
      rolldownOptions: {
        input: { preload: path.join(ROOT, 'electron/preload.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
      },
    },
    // The preload must not depend on node_modules at run time: bundle everything but electron itself.
    ssr: { noExternal: true },
  });
  return ELECTRON_DIST;
}

/**
 * Bundles entry files (repository-relative) as ES modules for Node into `outDir`, which must sit two folders below
 * the repository like core/<folder>/ (the core finds models/ and its grammars by relative paths); packages stay
 * in node_modules. Empties `outDir` first.
 */
export async function bundleForNode(entries: Record<string, string>, outDir: string): Promise<void> {
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    publicDir: false,
    build: {
      ssr: true,
      outDir,
      emptyOutDir: true,
      target: 'node20',
      minify: false,
      sourcemap: true,
      rolldownOptions: {
        input: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, path.join(ROOT, file)])),
        external: isExternal,
        // An entry that needs a few helpers of the core (Electron's main process, through core/app/index.ts) loads
        // only the modules whose exports it uses. Safe because no module is imported for its side effects.
        treeshake: { moduleSideEffects: false },
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      },
    },
  });
}
