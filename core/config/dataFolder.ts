// Where Cairn keeps its index: the data root (`[index] data_dir`, else the OS app-data folder), one folder per vault
// in it, and why a data root cannot serve a vault.
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { isInside, realPathOf } from './pathContainment.js';

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

/**
 * Why `dataRoot` cannot serve `vaultPath`, or undefined when it can. Real paths are compared, so a symlink hides
 * neither a data folder inside the vault (the watcher and sync tools would see the index) nor a vault inside the
 * data folder (Cairn writes, replaces and deletes files there).
 */
export async function dataFolderProblem(dataRoot: string, vaultPath: string): Promise<string | undefined> {
  const [realData, realVault] = await Promise.all([realPathOf(dataRoot), realPathOf(vaultPath)]);
  const named = (written: string, real: string) => (path.resolve(written) === real ? written : `${written} (really ${real})`);
  if (isInside(realData, realVault)) {
    return `the data folder ${named(dataRoot, realData)} is inside the vault ${named(vaultPath, realVault)}: sync tools and the watcher would see the index; choose a data folder outside the vault`;
  }
  if (isInside(realVault, realData)) {
    return `the vault ${named(vaultPath, realVault)} is inside the data folder ${named(dataRoot, realData)}: Cairn writes and deletes files there; choose a data folder outside the vault`;
  }
  return undefined;
}
