import { promises as fs, constants as fsConstants, type Dirent, type Stats } from 'node:fs';
import * as nodePath from 'node:path';
import picomatch from 'picomatch';
import { isInside } from '../config/pathContainment.js';
import { outsideLinkReason, specialFileReason } from './vaultPaths.js';

export interface VaultScanOptions {
  include: string[];
  exclude: string[];
  extensions: string[];
  /** Follow symbolic links whose real path is outside the vault (`[vault] follow_outside_links`). */
  follow_outside_links?: boolean;
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
/** A symbolic link the scan met, to a note or a folder (the watcher watches the targets of those followed). */
export interface VaultLink {
  path: string;
  /** The link's target, fully resolved. */
  realPath: string;
  isDirectory: boolean;
  /** False for a link out of the vault (not allowed), a loop, or a second route to a folder already scanned. */
  followed: boolean;
}
export interface VaultScan {
  files: VaultFileEntry[];
  warnings: VaultWarning[];
  links: VaultLink[];
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
  /** The folder's real path when it is entered through a symbolic link. */
  linkTarget?: string;
}

interface ScanContext {
  filter: PathFilter;
  realRoot: string;
  followOutside: boolean;
}

/** A folder's device and inode (its real path where inodes are 0): tells a loop, or a folder made anew under a name. */
export async function directoryIdentity(absPath: string): Promise<string> {
  const stats = await fs.stat(absPath, { bigint: true });
  // Some filesystems (older Windows setups) report inode 0; the real path is the next best identity.
  if (stats.ino === 0n) return `path:${await fs.realpath(absPath)}`;
  return `${stats.dev}:${stats.ino}`;
}

/**
 * The vault folder's real path, or an error saying why it cannot be read (moved, deleted, unmounted): what a scan
 * checks first, and what an update checks before it takes missing files for deleted notes.
 */
export async function openVaultRoot(root: string): Promise<string> {
  const rootAbs = nodePath.resolve(root);
  let rootStats;
  let realRoot: string;
  try {
    rootStats = await fs.stat(rootAbs);
    realRoot = await fs.realpath(rootAbs);
  } catch (error) {
    throw new Error(`Vault root ${rootAbs} cannot be opened: ${describeError(error)}`);
  }
  if (!rootStats.isDirectory()) throw new Error(`Vault root ${rootAbs} is not a directory`);
  return realRoot;
}

export async function scanVault(root: string, options: VaultScanOptions): Promise<VaultScan> {
  const rootAbs = nodePath.resolve(root);
  const realRoot = await openVaultRoot(rootAbs);

  const context: ScanContext = { filter: createPathFilter(options), realRoot, followOutside: options.follow_outside_links === true };
  const files: VaultFileEntry[] = [];
  const warnings: VaultWarning[] = [];
  const links: VaultLink[] = [];
  const scannedDirs = new Map<string, string>();
  const rootIdentity = await directoryIdentity(rootAbs);
  // Symlinked folders wait until all real folders are done, so a folder reachable both ways is
  // listed under its real path, and a link that loops back is caught without a second walk.
  const realDirs: DirToScan[] = [{ absPath: rootAbs, relPath: '', identity: rootIdentity, ancestry: [] }];
  const linkedDirs: DirToScan[] = [];

  for (let dir = realDirs.pop(); dir !== undefined; dir = realDirs.pop() ?? linkedDirs.shift()) {
    const seenAt = scannedDirs.get(dir.identity);
    if (seenAt !== undefined) {
      if (dir.linkTarget !== undefined) links.push({ path: dir.relPath, realPath: dir.linkTarget, isDirectory: true, followed: false });
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
    if (dir.linkTarget !== undefined) links.push({ path: dir.relPath, realPath: dir.linkTarget, isDirectory: true, followed: true });

    let entries: Dirent<Buffer>[];
    try {
      // Names as bytes: a name that is not UTF-8 would otherwise come back mangled and look like a vanished file.
      entries = await fs.readdir(dir.absPath, { withFileTypes: true, encoding: 'buffer' });
    } catch (error) {
      // Silently yielding an empty vault could make callers drop the whole index, so the root is fatal.
      if (dir.relPath === '') throw new Error(`Vault root ${rootAbs} cannot be read: ${describeError(error)}`);
      warnings.push({ path: dir.relPath, reason: `directory not readable: ${describeError(error)}` });
      continue;
    }
    entries.sort((a, b) => Buffer.compare(a.name, b.name));

    const results = await Promise.all(entries.map((entry) => examineEntry(dir!, entry, context)));
    const ancestry = [...dir.ancestry, dir.identity];
    const subdirs: DirToScan[] = [];
    for (const result of results) {
      if (result === undefined) continue;
      if (result.kind !== 'dir' && result.link) links.push(result.link);
      if (result.kind === 'warning') warnings.push(result.warning);
      else if (result.kind === 'file') files.push(result.file);
      else if (result.dir.linkTarget !== undefined) linkedDirs.push({ ...result.dir, ancestry });
      else subdirs.push({ ...result.dir, ancestry });
    }
    // Reversed so the stack pops subdirectories in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) realDirs.push(subdirs[i]!);
  }

  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, warnings, links };
}

type EntryResult =
  | { kind: 'file'; file: VaultFileEntry; link?: VaultLink }
  | { kind: 'dir'; dir: Omit<DirToScan, 'ancestry'> }
  | { kind: 'warning'; warning: VaultWarning; link?: VaultLink };

const utf8Name = new TextDecoder('utf-8', { fatal: true });

function warning(path: string, reason: string): EntryResult {
  return { kind: 'warning', warning: { path, reason } };
}

async function examineEntry(dir: DirToScan, entry: Dirent<Buffer>, { filter, realRoot, followOutside }: ScanContext): Promise<EntryResult | undefined> {
  const child = (name: string) => (dir.relPath === '' ? name : `${dir.relPath}/${name}`);
  let name: string;
  try {
    name = utf8Name.decode(entry.name);
  } catch {
    const shown = child(entry.name.toString('utf8'));
    const matters = entry.isDirectory() ? !filter.isExcludedDir(shown) : filter.isIncluded(shown);
    return matters ? warning(shown, 'file name is not valid UTF-8: rename it') : undefined;
  }
  const relPath = child(name);
  const absPath = nodePath.join(dir.absPath, name);

  let kind: Pick<Stats, 'isFile' | 'isDirectory' | 'isFIFO' | 'isSocket' | 'isBlockDevice' | 'isCharacterDevice'> = entry;
  let linkTarget: string | undefined;
  if (entry.isSymbolicLink()) {
    if (filter.isExcludedDir(relPath)) return undefined;
    try {
      [kind, linkTarget] = await Promise.all([fs.stat(absPath), fs.realpath(absPath)]);
    } catch (error) {
      if (!filter.isIncluded(relPath) && errorCode(error) === 'ENOENT') return undefined;
      return warning(relPath, `broken symbolic link: ${describeError(error)}`);
    }
    const matters = kind.isDirectory() || filter.isIncluded(relPath);
    if (matters && !followOutside && !isInside(linkTarget, realRoot)) {
      const link = { path: relPath, realPath: linkTarget, isDirectory: kind.isDirectory(), followed: false };
      return { kind: 'warning', warning: { path: relPath, reason: outsideLinkReason(linkTarget) }, link };
    }
  }

  if (kind.isDirectory()) {
    if (filter.isExcludedDir(relPath)) return undefined;
    try {
      const identity = await directoryIdentity(absPath);
      return { kind: 'dir', dir: { absPath, relPath, identity, linkTarget } };
    } catch (error) {
      return warning(relPath, `directory not readable: ${describeError(error)}`);
    }
  }

  if (!filter.isIncluded(relPath)) return undefined;
  // Never opened: opening a FIFO for reading blocks until someone writes to it.
  if (!kind.isFile()) return warning(relPath, specialFileReason(kind) ?? 'not a regular file: skipped');
  try {
    const filePath = linkTarget ?? absPath;
    const stats = await fs.stat(filePath);
    await fs.access(filePath, fsConstants.R_OK);
    const file = { path: relPath, absPath: filePath, size: stats.size, mtimeMs: stats.mtimeMs };
    return { kind: 'file', file, ...(linkTarget ? { link: { path: relPath, realPath: linkTarget, isDirectory: false, followed: true } } : {}) };
  } catch (error) {
    return warning(relPath, `file not readable: ${describeError(error)}`);
  }
}
