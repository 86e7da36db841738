// Starts the real `./bin/cairn serve --port 0` (or a given port) as a child process and reads its URL from stdout.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO, type Workspace } from './workspace.ts';

export interface ServeProcess {
  url: string;
  origin: string;
  port: number;
  token: string;
  /** Everything the server wrote to stderr so far (for failure messages). */
  stderr(): string;
  stop(): Promise<void>;
}

/** `withVault: false` starts the server without --vault (the config decides); `port` 0 is any free port. */
export async function startServe(workspace: Workspace, { withVault = true, timeoutMs = 90_000, port = 0 } = {}): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'bin', 'cairn'), 'serve', '--port', String(port), '--no-open', ...(withVault ? ['--vault', workspace.vault] : []), '--config', workspace.configFile, '--data-dir', workspace.dataDir],
    { cwd: workspace.root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => fail(new Error(`cairn serve printed no URL within ${timeoutMs} ms\n${stderr}`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /Cairn is running at (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => fail(new Error(`cairn serve exited (${code}) before printing its URL\n${stderr}`)));
  });
  const parsed = new URL(url);
  return { url, origin: parsed.origin, port: Number(parsed.port), token: parsed.searchParams.get('token') ?? '', stderr: () => stderr, stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
