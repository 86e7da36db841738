import { link, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { currentHolder, describeHolder, isStale } from './lockHolder.js';

const LOCK_FILE = 'write.lock';
const POLL_MS = 100;

/** Another live process has been writing this index for longer than we were willing to wait. */
export class IndexLockedError extends Error {}

/** Writers of this process, per index folder: they queue here in call order before contending with other processes. */
const localQueues = new Map<string, Promise<unknown>>();

/**
 * Runs `work` while holding the index folder's write lock, so two Cairn processes on one vault (the app and a
 * `cairn search` in a terminal) never write generations over each other. Writers in one process take turns in call
 * order; a lock left by a dead process, or naming a pid that another process has since been given, is taken over.
 */
export async function withWriteLock<T>(dir: string, work: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const key = path.resolve(dir);
  const previous = localQueues.get(key) ?? Promise.resolve();
  const mine = previous.catch(() => undefined).then(() => holdFileLock(key, work, timeoutMs));
  const tail = mine.catch(() => undefined);
  localQueues.set(key, tail);
  try {
    return await mine;
  } finally {
    if (localQueues.get(key) === tail) localQueues.delete(key);
  }
}

async function holdFileLock<T>(dir: string, work: () => Promise<T>, timeoutMs: number): Promise<T> {
  const file = path.join(dir, LOCK_FILE);
  const deadline = Date.now() + timeoutMs;
  while (!(await tryCreate(file))) {
    const lock = await readLock(file);
    if (lock === undefined) continue; // released between our attempt and the read
    if (await isStale(lock.content, lock.mtimeMs)) {
      await removeStale(file, lock.content);
      continue;
    }
    if (Date.now() > deadline) throw new IndexLockedError(`the index in ${dir} is being written by ${describeHolder(lock.content)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * Creates the lock file already naming us (see lockHolder.ts): the content goes into a private file first, which is
 * then hard-linked into place. link() fails if the lock exists, so no other process ever reads a lock file that is
 * still empty.
 */
async function tryCreate(file: string): Promise<boolean> {
  const draft = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(draft, JSON.stringify(await currentHolder()));
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(draft, { force: true });
  }
}

/** The lock file's content and age, or undefined when there is none (any more). A folder reads as empty content. */
async function readLock(file: string): Promise<{ content: string; mtimeMs: number } | undefined> {
  try {
    const { mtimeMs } = await stat(file);
    return { content: await readFile(file, 'utf8'), mtimeMs };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR') return { content: '', mtimeMs: 0 };
    throw error;
  }
}

/**
 * Moves a stale lock aside, then removes it. If another process took the stale lock over between our read and the
 * move, what we moved is its live lock: it is put back (link fails only if yet another writer holds the lock now).
 */
async function removeStale(file: string, staleContent: string): Promise<void> {
  const aside = `${file}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readLock(aside);
  if (moved?.content !== staleContent) await link(aside, file).catch(() => undefined);
  await rm(aside, { recursive: true, force: true });
}
