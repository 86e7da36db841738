import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CAIRN = fileURLToPath(new URL('../bin/cairn', import.meta.url));
const PROBE = fileURLToPath(new URL('./probe.ts', import.meta.url));
/** The probe is TypeScript run from a temp folder, so tsx is named by its resolved location. */
const TSX = import.meta.resolve('tsx');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunResult extends Exit {
  stdout: string;
  stderr: string;
  ms: number;
  /** The process outlived its timeout and its whole process group was killed. */
  timedOut: boolean;
}

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A Cairn process in its own process group (detached), so a timeout can kill it together with the embedding worker
 * it forks, and a kill -9 of the main pid alone can be told apart from the cleanup.
 */
export class CairnChild {
  readonly child: ChildProcess;
  readonly started = Date.now();
  private ended?: number;
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  private exit?: Exit;
  private waiters: Array<() => void> = [];

  constructor(
    readonly args: string[],
    options: SpawnOptions,
    nodeArgs = [CAIRN],
  ) {
    this.child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (data: Buffer) => {
      this.stdout += data.toString();
      this.notify();
    });
    this.child.stderr!.on('data', (data: Buffer) => {
      this.stderr += data.toString();
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('error', (error) => {
        this.stderr += `spawn failed: ${error.message}\n`;
        this.exit = { code: null, signal: null };
        resolve(this.exit);
      });
      this.child.on('close', (code, signal) => {
        this.exit = { code, signal };
        this.ended = Date.now();
        this.notify();
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get elapsedMs(): number {
    return (this.ended ?? Date.now()) - this.started;
  }

  /** Waits until stdout or stderr matches, the process exits, or the timeout passes; true when it matched. */
  async waitFor(pattern: RegExp, timeoutMs: number, stream: 'stdout' | 'stderr' | 'both' = 'both'): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const text = () => (stream === 'stdout' ? this.stdout : stream === 'stderr' ? this.stderr : this.stdout + this.stderr);
    while (!pattern.test(text())) {
      if (!this.running || Date.now() >= deadline) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(200, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  /** Waits until no output has arrived for `quietMs` (or the timeout passes); false on timeout. */
  async waitQuiet(quietMs: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let seen = this.stdout.length + this.stderr.length;
    let since = Date.now();
    while (Date.now() < deadline && this.running) {
      await sleep(100);
      const now = this.stdout.length + this.stderr.length;
      if (now !== seen) {
        seen = now;
        since = Date.now();
      } else if (Date.now() - since >= quietMs) return true;
    }
    return !this.running;
  }

  /** Signals the main process only (a real kill -9 of one process: its worker is left to notice). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** Kills every process still in the group. */
  killGroup(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
  }

  /** Waits for the exit; on timeout kills the group and returns undefined. */
  async waitExit(timeoutMs: number): Promise<Exit | undefined> {
    const timer = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs).unref());
    const exit = await Promise.race([this.exited, timer]);
    if (exit === undefined) {
      this.killGroup();
      await this.exited;
    }
    return exit;
  }

  result(timedOut: boolean): RunResult {
    return { code: this.exit?.code ?? null, signal: this.exit?.signal ?? null, stdout: this.stdout, stderr: this.stderr, ms: this.elapsedMs, timedOut };
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** Runs a Cairn command to its end, or kills its group after `timeoutMs`. */
export async function runCairn(args: string[], options: SpawnOptions, timeoutMs: number, nodeArgs = [CAIRN]): Promise<RunResult> {
  const child = new CairnChild(args, options, nodeArgs);
  const exit = await child.waitExit(timeoutMs);
  child.killGroup(); // nothing of a finished command may linger
  return child.result(exit === undefined);
}

export function runProbe(args: string[], options: SpawnOptions, timeoutMs: number): Promise<RunResult> {
  return runCairn(args, options, timeoutMs, ['--import', TSX, PROBE]);
}

/** A stack trace on stderr means an exception escaped: Cairn's own errors are one "cairn: error:" line. */
const STACK_LINE = /^\s+at .+(\(.+:\d+:\d+\)|:\d+:\d+)$/m;

/**
 * How a command ended, for the fault report: `ok`; `error` (exit 1 with a clear "cairn: error:" line and no stack
 * trace); `crash` (a signal we did not send, another exit code, a stack trace, or an unexplained exit 1); `hang`.
 */
export function classify(result: RunResult): { kind: 'ok' | 'error' | 'crash' | 'hang'; detail: string } {
  if (result.timedOut) return { kind: 'hang', detail: `no exit within ${(result.ms / 1000).toFixed(1)} s` };
  const stack = STACK_LINE.exec(result.stderr);
  const firstError = result.stderr.split('\n').find((line) => /error/i.test(line))?.slice(0, 200) ?? '';
  if (stack) return { kind: 'crash', detail: `stack trace on stderr: ${firstError || stack[0].trim()}` };
  if (result.signal) return { kind: 'crash', detail: `killed by ${result.signal}` };
  if (result.code === 0) return { kind: 'ok', detail: '' };
  const clear = /^cairn: error: .+/m.exec(result.stderr);
  if (result.code === 1 && clear) return { kind: 'error', detail: clear[0].slice(0, 200) };
  return { kind: 'crash', detail: `exit ${result.code}: ${firstError || result.stderr.trim().split('\n').at(-1)?.slice(0, 200) || 'no message'}` };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface GroupSample {
  pids: number[];
  /** CPU seconds used so far (user + system) by the group's live processes. */
  cpuSeconds: number;
  rssBytes: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux
const PAGE_BYTES = 4096;

/** CPU time and resident memory of every live process in a process group, from /proc. */
export function sampleGroup(pgid: number): GroupSample {
  const sample: GroupSample = { pids: [], cpuSeconds: 0, rssBytes: 0 };
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we listed
    }
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
    sample.pids.push(Number(name));
    sample.cpuSeconds += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    sample.rssBytes += Number(fields[21]) * PAGE_BYTES;
  }
  return sample;
}
