// Background work runs at a lower CPU priority than the thread that answers searches. On a 2-core machine a first
// index keeps its chunker threads and the embedding process busy beside the main thread: at one priority the main
// thread waited its turn for the CPU, up to 80-110 ms with nothing of its own to run (a 50k cold index), and a
// search typed meanwhile waited as long. Lowered, the background yields the core whenever the main thread has work,
// and takes all of it otherwise.
import os from 'node:os';
import { readlinkSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** The niceness of background work (Unix 0-19; Windows maps it to "below normal"). */
export const BACKGROUND_NICE = 10;

/** Lowers a child process's priority (on Linux, that of its main thread and of the threads it starts later). */
export function lowerProcessPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    os.setPriority(pid, BACKGROUND_NICE);
  } catch {
    // Not permitted or gone already: the work runs at the normal priority, only less politely.
  }
}

/**
 * Lowers the priority of the calling worker thread. Linux keeps a niceness per thread, and a thread's id is named by
 * /proc/thread-self; elsewhere a thread's priority cannot be set apart from its process's, so it stays as it is.
 */
export function lowerThreadPriority(): void {
  if (isMainThread || process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, BACKGROUND_NICE);
  } catch {
    // No /proc, or not permitted: as above.
  }
}
