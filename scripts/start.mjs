#!/usr/bin/env node
// `npm start`: builds what is needed (the UI, the Electron shell), then opens the desktop app on the last vault (or
// on sample-vault/ the first time). Where the Electron binary is not installed (it is downloaded by Electron's own
// install script, denied here in package.json's allowScripts), it says so in one line and runs browser mode
// instead: `cairn serve --vault sample-vault`, which prints the URL and opens it in the default browser if there is one.
// Arguments after `npm start --` go to the app (e.g. --vault DIR, --config FILE, --data-dir DIR, --dev);
// --build-only builds the UI and electron/dist and stops.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLE_VAULT = path.join(ROOT, 'sample-vault');
const buildOnly = process.argv.includes('--build-only');
const passThrough = process.argv.slice(2).filter((arg) => arg !== '--build-only');

const { ensureRendererBuilt } = await import('../cli/build/rendererBuild.ts');
await ensureRendererBuilt((line) => console.error(`cairn: ${line}`));

// `node scripts/start.mjs --build-only`: build the UI and the desktop shell, launch nothing.
if (buildOnly) {
  const { buildElectron } = await import('../electron/build.ts');
  console.error(`cairn: built ${await buildElectron()}`);
  process.exit(0);
}

const electron = electronBinary();
if (electron.path) {
  const { buildElectron, electronBuildIsStale, ELECTRON_DIST } = await import('../electron/build.ts');
  if (await electronBuildIsStale()) {
    console.error('cairn: building the desktop shell (electron/dist)…');
    await buildElectron();
  }
  const env = { ...process.env };
  // Set by some terminals (VS Code's among them): it would make Electron run as plain Node.
  delete env.ELECTRON_RUN_AS_NODE;
  const app = spawn(electron.path, [path.join(ELECTRON_DIST, 'main.js'), '--default-vault', SAMPLE_VAULT, ...passThrough], { stdio: 'inherit', env });
  app.once('error', (error) => {
    console.error(`cairn: Electron could not be started (${error.message}); opening Cairn in the browser instead.`);
    serveInBrowser();
  });
  app.once('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
} else {
  console.error(`cairn: ${electron.reason}; opening Cairn in your browser instead.`);
  serveInBrowser();
}

/**
 * The path of Electron's binary, or why there is none, in words that say what to do. (require('electron') throws
 * "Electron failed to install correctly, please delete node_modules/electron…" when only its download was skipped,
 * which it is here: `allowScripts` denies electron's install script.)
 */
function electronBinary() {
  const require = createRequire(import.meta.url);
  let packageDir;
  try {
    packageDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { reason: 'Electron is not installed (npm ci without dev dependencies?)' };
  }
  const install = `node ${path.relative(process.cwd(), path.join(packageDir, 'install.js'))}`;
  if (!existsSync(path.join(packageDir, 'path.txt')) && !process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    return { reason: `the Electron binary was not downloaded (package.json's allowScripts denies its install script; \`${install}\` fetches it)` };
  }
  try {
    const binary = require('electron');
    if (typeof binary === 'string' && existsSync(binary)) return { path: binary };
    return { reason: `the Electron binary ${binary} is missing (\`${install}\` fetches it again)` };
  } catch (error) {
    return { reason: `Electron cannot be loaded (${String(error instanceof Error ? error.message : error).split('\n')[0]})` };
  }
}

function serveInBrowser() {
  const vaultGiven = passThrough.includes('--vault');
  const args = [path.join(ROOT, 'bin', 'cairn'), 'serve', ...(vaultGiven ? [] : ['--vault', SAMPLE_VAULT]), ...passThrough.filter((a) => a !== '--dev')];
  const server = spawn(process.execPath, args, { stdio: 'inherit' });
  const forward = (signal) => server.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  server.once('exit', (code) => process.exit(code ?? 0));
}
