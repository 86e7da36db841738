/**
 * Who holds an index write lock, told apart from a later process that got the same pid (after a crash and a
 * reboot, or a container restarted with the same pids). Linux: the pid, its start time in clock ticks (field 22 of
 * /proc/PID/stat) and the boot id. Elsewhere another process's start time costs a `ps` call, so only our own pid is
 * compared by start time; another live pid on those systems is trusted (a weaker, documented check).
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface LockHolder {
  pid: number;
  host: string;
  /** Wall-clock start of the process (ms), to the nearest few ms: compared for our own pid only. */
  startedAt: number;
  /** Linux: start time in clock ticks since boot, and the boot id. */
  start?: string;
  boot?: string;
}

/** Linux reports process start times in USER_HZ ticks, 100 a second on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;
/** Start times computed from the boot time (whole seconds) and ticks are this close to the truth. */
const CLOCK_SLACK_MS = 1500;

let ours: Promise<LockHolder> | undefined;

/** This process as a lock holder. */
export function currentHolder(): Promise<LockHolder> {
  ours ??= (async () => {
    const [start, boot] = await Promise.all([startTicks(process.pid), bootId()]);
    return { pid: process.pid, host: os.hostname(), startedAt: Math.round(Date.now() - process.uptime() * 1000), start, boot };
  })();
  return ours;
}

/**
 * Whether a lock file's content names a holder that is gone. `writtenAt` is the lock file's mtime. Bare pids were
 * written by earlier versions of Cairn: such a lock is stale when the pid is dead, when its process started after the lock
 * was written (so it did not write it), or (Linux) when that process is not node, Electron or Cairn (pid 1 is init).
 */
export async function isStale(content: string, writtenAt: number): Promise<boolean> {
  const me = await currentHolder();
  if (/^\d+$/.test(content.trim())) {
    const pid = Number(content);
    if (!isAlive(pid)) return true;
    const started = pid === me.pid ? me.startedAt : await startedAt(pid);
    if (started !== undefined && started > writtenAt + CLOCK_SLACK_MS) return true;
    return !(await mayBeCairn(pid));
  }
  const holder = parse(content);
  if (!holder) return true; // damaged: our writes are atomic, so no live writer left it like this
  // Another machine's pid says nothing here (a data folder shared over a network): wait, as for a live holder.
  if (holder.host !== me.host) return false;
  if (holder.boot && me.boot && holder.boot !== me.boot) return true;
  if (!isAlive(holder.pid)) return true;
  if (holder.pid === me.pid) return holder.start !== undefined ? holder.start !== me.start : Math.abs(holder.startedAt - me.startedAt) > CLOCK_SLACK_MS;
  if (holder.start === undefined) return false;
  const start = await startTicks(holder.pid);
  return start !== undefined && start !== holder.start;
}

/** The holder named in a lock, for messages. */
export function describeHolder(content: string): string {
  const holder = parse(content);
  if (!holder) return `process ${content.trim().slice(0, 20)}`;
  return holder.host === os.hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
}

function parse(content: string): LockHolder | undefined {
  try {
    const value = JSON.parse(content) as Partial<LockHolder> | null;
    if (!Number.isInteger(value?.pid) || value!.pid! <= 0 || typeof value!.host !== 'string' || typeof value!.startedAt !== 'number') return undefined;
    return value as LockHolder;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/PID/stat; undefined off Linux or when it cannot be read. */
async function startTicks(pid: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // The command name (field 2) is in parentheses and may hold spaces: fields 3 on follow the last ')'.
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
}

async function bootId(): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  return (await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => ''))?.trim() || undefined;
}

/** Wall-clock start of another process (ms), Linux only. */
async function startedAt(pid: number): Promise<number | undefined> {
  const ticks = await startTicks(pid);
  const btime = /^btime (\d+)$/m.exec((await readFile('/proc/stat', 'utf8').catch(() => '')) ?? '')?.[1];
  if (ticks === undefined || btime === undefined) return undefined;
  return Number(btime) * 1000 + (Number(ticks) * 1000) / TICKS_PER_SECOND;
}

/** Whether the process runs node, Electron or Cairn (Linux; elsewhere, or unreadable: assumed so). */
async function mayBeCairn(pid: number): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  if (!cmdline) return true;
  return /node|electron|cairn/i.test(path.basename(cmdline.split('\0')[0]));
}
