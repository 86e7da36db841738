// Whether one path lies inside another. In config, the lowest layer that asks (the data folder must not overlap
// the vault); the vault boundary, the scan and the watcher ask it too.
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** True when `inner` is `outer` or inside it (lexically: links are not resolved). */
export function isInside(inner: string, outer: string): boolean {
  const relative = path.relative(path.resolve(outer), path.resolve(inner));
  // A name that merely starts with ".." (e.g. "..notes.md") is inside; only ".." itself steps out.
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** Symlinks followed before giving up (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/**
 * Where `p` really is: symlinks resolved, also for a folder that does not exist yet (the real path of its deepest
 * existing ancestor, plus the rest) and through a dangling symlink (mkdir would create its target).
 */
export async function realPathOf(p: string): Promise<string> {
  let existing = path.resolve(p);
  let rest: string[] = [];
  for (let links = 0; ; ) {
    try {
      return path.join(await realpath(existing), ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    const info = await lstat(existing).catch(() => undefined);
    if (info?.isSymbolicLink() && links++ < MAX_LINKS) {
      existing = path.resolve(path.dirname(existing), await readlink(existing));
      continue;
    }
    const parent = path.dirname(existing);
    if (parent === existing) return path.join(existing, ...rest);
    rest = [path.basename(existing), ...rest];
    existing = parent;
  }
}
