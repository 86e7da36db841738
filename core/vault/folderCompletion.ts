// Completing a folder path as it is typed (browser mode has no native folder dialog): the sub-folders of the typed
// path's parent whose names start with its last segment. Read-only, and never throws: an unreadable or missing
// folder simply completes to nothing.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FolderCompletion, FolderKind } from '../contract/status.js';

export const MAX_FOLDER_COMPLETIONS = 20;

/**
 * The sub-folders `prefix` may go on to, sorted by name, at most MAX_FOLDER_COMPLETIONS: "/home/me/No" lists the
 * folders of /home/me whose names start with "no" (any case), "/home/me/" lists all of them. "~" is the home
 * folder; hidden folders are listed only when the typed segment starts with "."; a relative path completes nothing.
 */
export async function completeFolder(prefix: string, home = os.homedir()): Promise<FolderCompletion[]> {
  const expanded = expandHome(prefix, home);
  if (!path.isAbsolute(expanded)) return [];
  const endsInSeparator = /[\\/]$/.test(expanded);
  const parent = endsInSeparator ? expanded : path.dirname(expanded);
  const segment = (endsInSeparator ? '' : path.basename(expanded)).toLowerCase();
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => [] as Dirent[]);
  const names = entries
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && entry.name.toLowerCase().startsWith(segment) && (segment.startsWith('.') || !entry.name.startsWith('.')))
    .map((entry) => ({ name: entry.name, symlink: entry.isSymbolicLink() }))
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.name.localeCompare(b.name));
  const folders: FolderCompletion[] = [];
  for (const { name, symlink } of names) {
    if (folders.length === MAX_FOLDER_COMPLETIONS) break;
    const full = path.join(parent, name);
    // A link counts when it leads to a folder; a broken one is left out.
    if (symlink && !(await stat(full).then((s) => s.isDirectory(), () => false))) continue;
    const kind = await folderKind(full);
    folders.push({ path: full, name, ...(kind ? { kind } : {}) });
  }
  return folders;
}

/** "~" and "~/…" are in the home folder (the trailing separator kept: it means "list this folder"). */
function expandHome(prefix: string, home: string): string {
  if (prefix === '~') return `${home}${path.sep}`;
  return /^~[\\/]/.test(prefix) ? `${home}${prefix.slice(1)}` : prefix;
}

async function folderKind(folder: string): Promise<FolderKind | undefined> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => [] as Dirent[]);
  if (entries.some((e) => e.name === '.obsidian')) return 'obsidian';
  if (entries.some((e) => e.name === 'logseq' && e.isDirectory())) return 'logseq';
  if (entries.some((e) => !e.isDirectory() && /\.md$/i.test(e.name))) return 'markdown';
  return undefined;
}
