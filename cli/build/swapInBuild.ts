// A build goes to a temporary folder beside its destination and is then swapped in, so a process reading the
// destination (or a second process building at the same time) never sees half a build.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Runs `build` into a staging folder beside `dist`, then puts it in place of `dist`; `marker` is a file every build holds. */
export async function swapInBuild(dist: string, marker: string, build: (staging: string) => Promise<void>): Promise<void> {
  const parent = path.dirname(dist);
  // Named for this build alone: two builds of one process (or of two) never share a folder.
  const staging = path.join(parent, `.dist-build-${randomUUID()}`);
  try {
    await build(staging);
    const old = path.join(parent, `.dist-old-${randomUUID()}`);
    if (existsSync(dist)) await rename(dist, old).catch(() => {});
    await rename(staging, dist).catch(async (error: NodeJS.ErrnoException) => {
      // Another process swapped its build in first: theirs is as fresh as ours.
      if (!existsSync(path.join(dist, marker))) throw error;
    });
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
