/**
 * Evaluation on realistic modification times: eval vaults are usually checked out at one moment, so every note
 * has the same mtime and recency has no effect there. This copies a vault and gives its files seeded times:
 * 5 % edited this week, 10 % earlier this month, the rest spread over two years.
 */
import { chmod, cp, mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { seededRandom } from '../random/seededRandom.js';

const DAY = 86_400_000;

/** Seeded modification times for `paths` (sorted first, so the listing order does not matter). */
export function seededMtimes(paths: readonly string[], seed: number, now: number): Map<string, number> {
  const random = seededRandom(seed);
  const times = new Map<string, number>();
  for (const file of [...paths].sort()) {
    const bucket = random();
    const age = bucket < 0.05 ? random() * 7 * DAY : bucket < 0.15 ? 7 * DAY + random() * 23 * DAY : 30 * DAY + random() * 700 * DAY;
    times.set(file, Math.round(now - age));
  }
  return times;
}

/** A temporary copy of `vault` with seeded mtimes; `remove` deletes it. */
export async function copyWithSeededMtimes(vault: string, seed: number, now = Date.now()): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-eval-mtimes-'));
  await cp(vault, dir, { recursive: true });
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  // The copy keeps the source's modes: a read-only folder (a checked-out corpus) could not be emptied again.
  for (const e of entries) if (e.isDirectory()) await chmod(path.join(e.parentPath, e.name), 0o755);
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  for (const [file, mtime] of seededMtimes(files.map((f) => path.relative(dir, f)), seed, now)) {
    await utimes(path.join(dir, file), new Date(mtime), new Date(mtime));
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
