// The vault's boundary: which real files a vault-relative path may reach. The scan, the live updates, the serving of
// notes and the desktop "open in editor" all ask here, so a symbolic link cannot smuggle an outside file in by any route.
import type { Stats } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../config/pathContainment.js';

export interface VaultBoundary {
  /** `[vault] follow_outside_links`: links whose real path is outside the vault are followed. */
  followOutside: boolean;
}

/** Why a link out of the vault was not followed (scan warnings and refusals use the same words). */
export function outsideLinkReason(target: string): string {
  return `links outside the vault to ${target}: not followed; set [vault] follow_outside_links = true to index it`;
}

export class OutsideVaultError extends Error {
  readonly reason: string;
  constructor(
    readonly relPath: string,
    readonly target: string,
  ) {
    const reason = outsideLinkReason(target);
    super(`${relPath} ${reason}`);
    this.name = 'OutsideVaultError';
    this.reason = reason;
  }
}

/**
 * The real absolute path of a vault-relative path, with every link resolved. Throws OutsideVaultError when it
 * leads out of the vault's real folder (unless following is allowed), and the file system's error (ENOENT...)
 * when it does not exist.
 */
export async function resolveInVault(vaultRoot: string, relPath: string, boundary: VaultBoundary): Promise<string> {
  const root = path.resolve(vaultRoot);
  const lexical = path.resolve(root, relPath);
  if (lexical === root || !isInside(lexical, root)) throw new Error(`${relPath} is not a path inside the vault`);
  const [real, realRoot] = await Promise.all([realpath(lexical), realpath(root)]);
  if (!boundary.followOutside && !isInside(real, realRoot)) throw new OutsideVaultError(relPath, real);
  return real;
}

/** "not a regular file (FIFO): skipped" for FIFOs, sockets and devices; undefined for files and folders. */
export function specialFileReason(stats: Pick<Stats, 'isFIFO' | 'isSocket' | 'isBlockDevice' | 'isCharacterDevice'>): string | undefined {
  const kind = stats.isFIFO() ? 'FIFO' : stats.isSocket() ? 'socket' : stats.isBlockDevice() ? 'block device' : stats.isCharacterDevice() ? 'character device' : undefined;
  return kind && `not a regular file (${kind}): skipped`;
}
