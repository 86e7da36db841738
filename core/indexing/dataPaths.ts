import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/** The OS app-data folder for Cairn (XDG on Linux, Application Support on macOS, %APPDATA% on Windows). */
export function defaultDataRoot(): string {
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Cairn');
    case 'win32':
      return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Cairn');
    default:
      return path.join(process.env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'cairn');
  }
}

/** One folder per vault inside the data root: readable name plus a hash of the vault's absolute path. */
export function vaultDataDir(dataRoot: string, vaultPath: string): string {
  const absolute = path.resolve(vaultPath);
  const name = path.basename(absolute).replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 40) || 'vault';
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 10);
  return path.join(dataRoot, 'vaults', `${name}-${hash}`);
}

/** True when `inner` is `outer` or inside it. */
export function isInside(inner: string, outer: string): boolean {
  const relative = path.relative(path.resolve(outer), path.resolve(inner));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
