import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';

const LOCK_FILE = 'write.lock';
const POLL_MS = 100;

/** Another live process has been writing this index for longer than we were willing to wait. */
export class IndexLockedError extends Error {}

/**
 * Runs `work` while holding the index folder's write lock, so two Cairn processes on one vault (the app and a
 * `cairn search` in a terminal) never write generations over each other. A lock left by a dead process is taken over.
 */
export async function withWriteLock<T>(dir: string, work: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const file = path.join(dir, LOCK_FILE);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(file, 'utf8').catch(() => ''));
      if (!isAlive(holder)) {
        await rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new IndexLockedError(`the index in ${dir} is being written by process ${holder}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
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
