// Background work (chunker threads, worker processes) runs at a lower CPU priority than the thread that answers
// searches, which keeps its own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, it } from 'node:test';
import { WorkerNoteChunker } from '../core/chunking/chunkerPool.js';
import { BACKGROUND_NICE } from '../core/process/priority.js';
import { forkWorkerProcess, stopWorker } from '../core/process/workerProcess.js';
import { chunkingConfig } from './support/chunking.js';

/** The niceness of each thread of this process, by thread id (the 19th field of /proc/self/task/<tid>/stat). */
function threadNiceness(): Map<number, number> {
  const niceness = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      niceness.set(Number(tid), Number(fields[16]));
    } catch {
      // A thread that ended while listed.
    }
  }
  return niceness;
}

describe('background priority', { timeout: 60_000 }, () => {
  it('runs a chunker thread at the background niceness and leaves this thread as it was', { skip: process.platform !== 'linux' }, async () => {
    const own = os.getPriority();
    const before = new Set([...threadNiceness()].filter(([, nice]) => nice === BACKGROUND_NICE).map(([tid]) => tid));
    const worker = new WorkerNoteChunker({ config: chunkingConfig(), window: 510 });
    try {
      const chunked = await worker.chunk({ path: 'a.md', text: '# A\n\nSome text about background work.\n', mtimeMs: 1 });
      assert.ok(chunked.chunks.length > 0);
      const lowered = [...threadNiceness()].filter(([tid, nice]) => nice === BACKGROUND_NICE && !before.has(tid));
      assert.equal(lowered.length, 1, 'the chunker thread, and only it, runs lowered');
      assert.equal(os.getPriority(), own);
    } finally {
      await worker.close();
    }
  });

  it('starts worker processes at the background niceness', async () => {
    const child = forkWorkerProcess(new URL('./support/idleChild.ts', import.meta.url).href, 'idleChild');
    try {
      assert.equal(os.getPriority(child.pid!), BACKGROUND_NICE);
      assert.notEqual(os.getPriority(), BACKGROUND_NICE);
    } finally {
      await stopWorker(child);
    }
  });
});
