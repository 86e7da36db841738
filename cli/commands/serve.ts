// `cairn serve`: the app in a web browser. Serves the built UI and the CairnApi on 127.0.0.1 behind a per-run token,
// prints the URL (token included) on stdout and opens it in the default browser when there is one. Without --port it
// listens on DEFAULT_PORT, or the next free port after it (saying so), so that a bookmark keeps its address.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { serveApp } from '../../core/app/index.js';
import { ensureRendererBuilt } from '../build/rendererBuild.js';
import { configFileOf, resolveConfig, withCommonOptions, type CommonOptions } from '../options.js';

/** The port `cairn serve` and `npm start` listen on unless --port says otherwise. */
export const DEFAULT_PORT = 7733;
/** How many ports after DEFAULT_PORT are tried when it is in use. */
const PORT_ATTEMPTS = 20;

interface ServeOptions extends CommonOptions {
  port?: number;
  open: boolean;
}

export function registerServeCommand(program: Command): void {
  withCommonOptions(program.command('serve').description('run the app in your web browser (on 127.0.0.1 only, behind a per-run token)'), { json: false })
    .option('--port <n>', `port to listen on; 0 picks any free one (default: ${DEFAULT_PORT}, or the next free port after it)`, port)
    .option('--no-open', 'do not open a browser; just print the URL')
    .action((options: ServeOptions) => serve(options));
}

async function serve(options: ServeOptions): Promise<void> {
  const log = (line: string) => process.stderr.write(`cairn: ${line}\n`);
  const staticDir = await ensureRendererBuilt(log);
  // An explicit --port is kept or refused (PortInUseError, one line); the default moves on to the next free port.
  const app = await serveApp({
    configFile: configFileOf(options),
    vault: options.vault,
    dataDir: options.dataDir,
    vaultShown: await vaultToShow(options),
    staticDir,
    port: options.port ?? DEFAULT_PORT,
    portAttempts: options.port === undefined ? PORT_ATTEMPTS : 0,
  });
  const { server } = app;
  if (server.portInUse !== undefined) log(`port ${server.portInUse} is in use; using ${server.port} instead`);
  process.stdout.write(`Cairn is running at ${server.url}\n`);
  log('press Ctrl-C to stop');
  if (options.open) openBrowser(server.url);

  const stop = async (code: number) => {
    await app.close();
    process.exit(code);
  };
  app.ready.catch(async (error: unknown) => {
    log(`error: ${error instanceof Error ? error.message : String(error)}`);
    await stop(1);
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await stop(0);
}

/** The vault the UI should show as opening while the core starts (the config's, unless --vault says otherwise). */
async function vaultToShow(options: CommonOptions): Promise<string | null> {
  if (options.vault) return path.resolve(options.vault);
  try {
    return (await resolveConfig(options)).config.vault.path || null;
  } catch {
    return null; // An invalid config is the core's to report.
  }
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`--port expects 0 to 65535, got "${value}"`);
  return n;
}

/**
 * Best effort, never fatal: the OS's way of opening a URL (open, rundll32's FileProtocolHandler as `start` uses, xdg-open). Without a desktop session or a
 * browser it says so in one line; the printed URL is there to copy.
 */
function openBrowser(url: string): void {
  const cannot = (why: string): void => void process.stderr.write(`cairn: ${why}; open the URL above in your browser\n`);
  // xdg-open without a display would start a text-mode browser on this terminal, or fail after a while.
  if (process.platform !== 'darwin' && process.platform !== 'win32' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return cannot('no graphical session to open a browser in');
  }
  // On Windows, what `start URL` does without a shell (and its quoting rules).
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => cannot(`could not run ${command}`));
    child.on('exit', (code) => {
      if (code) cannot(`${command} found no browser (exit code ${code})`);
    });
    child.unref();
  } catch {
    cannot(`could not run ${command}`);
  }
}
