// Child processes that run one of Cairn's own modules (the embedding model, HNSW graph builds): from TypeScript
// sources (tests, bin/cairn) the module is a .ts file run through tsx; built (Electron), it is the .js beside the caller.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { lowerProcessPriority } from './priority.js';

const stderrTails = new WeakMap<ChildProcess, string>();

/** Forks `<name>.ts` (or `.js`) from the folder of the module whose `import.meta.url` is `callerUrl`; `env`: its environment (default: ours). */
export function forkWorkerProcess(callerUrl: string, name: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const fromSources = callerUrl.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./${name}${fromSources ? '.ts' : '.js'}`, callerUrl));
  // tsx by absolute URL: a bare `--import tsx` would resolve from the current directory, not from Cairn's.
  const execArgv = [...workerExecArgv(process.execArgv), ...(fromSources ? ['--import', import.meta.resolve('tsx')] : [])];
  // 'advanced' serialization carries typed arrays as binary, not as JSON arrays.
  const worker = fork(entry, [], { execArgv, env, serialization: 'advanced', stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  // Each of these processes is background work (embedding, graph builds, adaptation): see priority.ts.
  lowerProcessPriority(worker.pid);
  // stderr goes on to ours, and its tail names the error when the worker dies.
  worker.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderrTails.set(worker, ((stderrTails.get(worker) ?? '') + chunk.toString('utf8')).slice(-4000));
  });
  return worker;
}

/** How a worker ended: exit code or signal, and the last error its stderr printed. */
export function describeExit(worker: ChildProcess, code: number | null, signal: string | null): string {
  const lastError = (stderrTails.get(worker) ?? '').split('\n').reverse().find((line) => /^\w*(Error|Exception)\b/.test(line.trim()));
  return `exited (${signal ?? `code ${code}`})${lastError ? `: ${lastError.trim()}` : ''}`;
}

/** Keeps the process alive while the worker has work that someone waits for, and lets it exit otherwise. */
export function keepAlive(worker: ChildProcess, busy: boolean): void {
  const channel = worker.channel as { ref(): void; unref(): void } | null | undefined;
  if (busy) {
    worker.ref();
    channel?.ref();
  } else {
    worker.unref();
    channel?.unref();
  }
}

export async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.kill();
  // A worker stuck in native code ignores SIGTERM; it must not outlive its owner's close().
  const force = setTimeout(() => worker.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(force);
}

const TEST_FLAGS_WITH_VALUE = new Set(['--test-name-pattern', '--test-skip-pattern', '--test-reporter', '--test-reporter-destination', '--test-concurrency', '--test-timeout', '--test-shard']);

/** The parent's node flags the worker should share: minus tsx hooks (added once, by URL), the test runner and the inspector (its port is taken). */
function workerExecArgv(execArgv: readonly string[]): string[] {
  const isTsx = (value: string) => /(^|[\\/])tsx([\\/]|$)/.test(value);
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    if (/^--(import|loader|experimental-loader|require)$/.test(arg) && isTsx(execArgv[i + 1] ?? '')) i++;
    else if (/^--(import|loader|experimental-loader|require)=/.test(arg) && isTsx(arg.slice(arg.indexOf('=') + 1))) continue;
    else if (/^--(test|inspect|debug)/.test(arg)) {
      // A test-runner flag given its value as the next argument (`--test-name-pattern "x"`) takes it along.
      if (TEST_FLAGS_WITH_VALUE.has(arg)) i++;
    }
    else kept.push(arg);
  }
  return kept;
}
