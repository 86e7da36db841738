import { promises as fs, constants as fsConstants, type Dirent } from 'node:fs';
import * as nodePath from 'node:path';
import picomatch from 'picomatch';

export interface VaultScanOptions {
  include: string[];
  exclude: string[];
  extensions: string[];
}
export interface VaultFileEntry {
  path: string;
  absPath: string;
  size: number;
  mtimeMs: number;
}
export interface VaultWarning {
  path: string;
  reason: string;
}
export interface VaultScan {
  files: VaultFileEntry[];
  warnings: VaultWarning[];
}

export interface PathFilter {
  isIncluded(relPath: string): boolean;
  isExcludedDir(relDirPath: string): boolean;
}

export function createPathFilter(options: VaultScanOptions): PathFilter {
  const matchOptions = { dot: true };
  const includes = options.include.length > 0 ? picomatch(options.include, matchOptions) : () => false;
  const excludes = options.exclude.length > 0 ? picomatch(options.exclude, matchOptions) : () => false;
  const extensions = options.extensions
    .map((ext) => (ext.startsWith('.') ? ext : `.${ext}`).toLowerCase())
    .filter((ext) => ext.length > 1);

  const hasAllowedExtension = (relPath: string): boolean => {
    if (extensions.length === 0) return true;
    const lower = relPath.toLowerCase();
    return extensions.some((ext) => lower.endsWith(ext));
  };

  // A trailing slash lets patterns written for folders (e.g. "build/") match too.
  const isExcludedDir = (relDirPath: string): boolean => {
    const dir = normalizeRelPath(relDirPath);
    if (dir === '') return false;
    return excludes(dir) || excludes(`${dir}/`);
  };

  const hasExcludedAncestor = (relPath: string): boolean => {
    let slash = relPath.indexOf('/');
    while (slash !== -1) {
      if (isExcludedDir(relPath.slice(0, slash))) return true;
      slash = relPath.indexOf('/', slash + 1);
    }
    return false;
  };

  return {
    isIncluded(relPath: string): boolean {
      const file = normalizeRelPath(relPath);
      if (file === '') return false;
      return hasAllowedExtension(file) && includes(file) && !excludes(file) && !hasExcludedAncestor(file);
    },
    isExcludedDir,
  };
}

function normalizeRelPath(relPath: string): string {
  return relPath.replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '');
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

function describeError(error: unknown): string {
  const code = errorCode(error);
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'no longer exists';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  return error instanceof Error ? error.message : String(error);
}

interface DirToScan {
  absPath: string;
  relPath: string;
  identity: string;
  // Identities of the folders above, to tell a loop from a second route to the same folder.
  ancestry: string[];
}

async function directoryIdentity(absPath: string): Promise<string> {
  const stats = await fs.stat(absPath, { bigint: true });
  // Some filesystems (older Windows setups) report inode 0; the real path is the next best identity.
  if (stats.ino === 0n) return `path:${await fs.realpath(absPath)}`;
  return `${stats.dev}:${stats.ino}`;
}

export async function scanVault(root: string, options: VaultScanOptions): Promise<VaultScan> {
  const rootAbs = nodePath.resolve(root);
  let rootStats;
  try {
    rootStats = await fs.stat(rootAbs);
  } catch (error) {
    throw new Error(`Vault root ${rootAbs} cannot be opened: ${describeError(error)}`);
  }
  if (!rootStats.isDirectory()) throw new Error(`Vault root ${rootAbs} is not a directory`);

  const filter = createPathFilter(options);
  const files: VaultFileEntry[] = [];
  const warnings: VaultWarning[] = [];
  const scannedDirs = new Map<string, string>();
  const rootIdentity = await directoryIdentity(rootAbs);
  // Symlinked folders wait until all real folders are done, so a folder reachable both ways is
  // listed under its real path, and a link that loops back is caught without a second walk.
  const realDirs: DirToScan[] = [{ absPath: rootAbs, relPath: '', identity: rootIdentity, ancestry: [] }];
  const linkedDirs: DirToScan[] = [];

  for (let dir = realDirs.pop(); dir !== undefined; dir = realDirs.pop() ?? linkedDirs.shift()) {
    const seenAt = scannedDirs.get(dir.identity);
    if (seenAt !== undefined) {
      const where = seenAt === '' ? 'the vault root' : seenAt;
      warnings.push({
        path: dir.relPath,
        reason: dir.ancestry.includes(dir.identity)
          ? `symlink loop: points back to ${where}, not followed`
          : `directory already scanned as ${where}, not followed again`,
      });
      continue;
    }
    scannedDirs.set(dir.identity, dir.relPath);

    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir.absPath, { withFileTypes: true });
    } catch (error) {
      // Silently yielding an empty vault could make callers drop the whole index, so the root is fatal.
      if (dir.relPath === '') throw new Error(`Vault root ${rootAbs} cannot be read: ${describeError(error)}`);
      warnings.push({ path: dir.relPath, reason: `directory not readable: ${describeError(error)}` });
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

    const results = await Promise.all(entries.map((entry) => examineEntry(dir!, entry, filter)));
    const ancestry = [...dir.ancestry, dir.identity];
    const subdirs: DirToScan[] = [];
    for (const result of results) {
      if (result === undefined) continue;
      if (result.kind === 'warning') warnings.push(result.warning);
      else if (result.kind === 'file') files.push(result.file);
      else if (result.viaSymlink) linkedDirs.push({ ...result.dir, ancestry });
      else subdirs.push({ ...result.dir, ancestry });
    }
    // Reversed so the stack pops subdirectories in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) realDirs.push(subdirs[i]!);
  }

  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, warnings };
}

type EntryResult =
  | { kind: 'file'; file: VaultFileEntry }
  | { kind: 'dir'; dir: Omit<DirToScan, 'ancestry'>; viaSymlink: boolean }
  | { kind: 'warning'; warning: VaultWarning };

async function examineEntry(dir: DirToScan, entry: Dirent, filter: PathFilter): Promise<EntryResult | undefined> {
  const relPath = dir.relPath === '' ? entry.name : `${dir.relPath}/${entry.name}`;
  const absPath = nodePath.join(dir.absPath, entry.name);

  let isDir = entry.isDirectory();
  let isFile = entry.isFile();
  if (entry.isSymbolicLink()) {
    if (filter.isExcludedDir(relPath)) return undefined;
    try {
      const target = await fs.stat(absPath);
      isDir = target.isDirectory();
      isFile = target.isFile();
    } catch (error) {
      if (!filter.isIncluded(relPath) && errorCode(error) === 'ENOENT') return undefined;
      return { kind: 'warning', warning: { path: relPath, reason: `broken symbolic link: ${describeError(error)}` } };
    }
  }

  if (isDir) {
    if (filter.isExcludedDir(relPath)) return undefined;
    try {
      const identity = await directoryIdentity(absPath);
      return { kind: 'dir', dir: { absPath, relPath, identity }, viaSymlink: entry.isSymbolicLink() };
    } catch (error) {
      return { kind: 'warning', warning: { path: relPath, reason: `directory not readable: ${describeError(error)}` } };
    }
  }

  if (!isFile || !filter.isIncluded(relPath)) return undefined;
  try {
    const stats = await fs.stat(absPath);
    await fs.access(absPath, fsConstants.R_OK);
    return { kind: 'file', file: { path: relPath, absPath, size: stats.size, mtimeMs: stats.mtimeMs } };
  } catch (error) {
    return { kind: 'warning', warning: { path: relPath, reason: `file not readable: ${describeError(error)}` } };
  }
}
