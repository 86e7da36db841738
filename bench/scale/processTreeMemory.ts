// Resident memory of a process and all its descendants, sampled from /proc (Linux): each process's own peak and the
// peak of their sum. The embedding worker is a child process; chunking worker threads count in their process.
// Processes are named by the script they run (embeddingWorker, hnswGraphWorker, esbuild for tsx's transpiler).
import { readFileSync, readdirSync } from 'node:fs';

export interface TreeMemory {
  /** Peak of the summed RSS of the whole tree, bytes. */
  sum: number;
  /** Peak RSS per process, by a name for it (the root is "main"). */
  processes: Record<string, number>;
}

export function sampleProcessTree(rootPid: number, intervalMs = 100): { stop(): TreeMemory } {
  const peaks: TreeMemory = { sum: 0, processes: {} };
  const rootCommand = commandLine(rootPid);
  const sample = () => {
    let sum = 0;
    for (const pid of descendantsAndSelf(rootPid)) {
      const rss = rssOf(pid);
      if (rss === undefined) continue;
      const command = commandLine(pid);
      // A child caught between fork and exec still has the parent's command line, and its RSS is the parent's pages,
      // shared: counting it would add the parent's memory a second time (a 632 MB "process" in one 200k sample).
      if (pid !== rootPid && command === rootCommand) continue;
      // One caught inside exec shows no command line for a moment (its old pages going, its new ones not yet its
      // own): the next sample sees what it runs.
      if (pid !== rootPid && !command) continue;
      const name = pid === rootPid ? 'main' : processName(pid, command);
      sum += rss;
      peaks.processes[name] = Math.max(peaks.processes[name] ?? 0, rss);
    }
    peaks.sum = Math.max(peaks.sum, sum);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return peaks;
    },
  };
}

function descendantsAndSelf(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${all[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${all[i]}/task/${task}/children`, 'utf8').split(' ')) if (child.trim()) all.push(Number(child));
      } catch {
        // The thread (or process) ended between the listing and the read.
      }
    }
  }
  return all;
}

function rssOf(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Flags of node whose value is the next argument (`--import tsx`): that value is not the script. */
const VALUE_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/** The script a process runs without its extension ("embeddingWorker", "hnswGraphWorker"), else its command name. */
function processName(pid: number, command: string | undefined): string {
  try {
    const argv = (command ?? '').split('\0').filter(Boolean);
    const script = argv.find((a, i) => i > 0 && !a.startsWith('-') && !VALUE_FLAGS.has(argv[i - 1]) && /\.[cm]?[jt]s$/.test(a));
    // A process between fork and exec has no command line yet: its command name stands in.
    const name = script ?? argv[0] ?? readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return name.split('/').pop()!.replace(/\.[cm]?[jt]s$/, '');
  } catch {
    return String(pid);
  }
}

/** A process's command line as /proc holds it, or undefined once it has exited. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
}
