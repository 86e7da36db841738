// The lookup keys the link graph files notes and links under (case-insensitive, Unicode-normalised, without the
// note extension), the path arithmetic of link targets, and the key → set tables that hold them.

const NOTE_EXTENSION = /\.(md|markdown)$/i;

/** Case-insensitive and Unicode-normalised (macOS file names arrive decomposed, note text composed). */
export function keyOf(text: string): string {
  return stripNoteExtension(text.normalize('NFC').toLowerCase());
}

export function stripNoteExtension(path: string): string {
  return path.replace(NOTE_EXTENSION, '');
}

export function pathKey(path: string): string {
  return keyOf(path);
}

export function baseKeyOfPath(path: string): string {
  return keyOf(path.slice(path.lastIndexOf('/') + 1));
}

export function baseKeyOfTarget(target: string): string {
  const trimmed = target.trim().replace(/\/+$/, '');
  return keyOf(trimmed.slice(trimmed.lastIndexOf('/') + 1));
}

export function nameKeyOfTarget(target: string): string {
  return keyOf(target.trim());
}

export function nameKeysOf(note: { title: string; aliases: readonly string[] }): string[] {
  // The title counts as a name too: Logseq links pages by their `title::`, not by file name.
  const keys = [note.title, ...note.aliases].map((name) => keyOf(name.trim())).filter((key) => key !== '');
  return [...new Set(keys)];
}

/** The lookup key of a block uuid: never a file or page name (those have no NUL). */
export function blockKey(uuid: string): string {
  return `\0block:${uuid.toLowerCase()}`;
}

export function blockIdsOf(note: { blockIds?: readonly string[] }): string[] {
  return [...new Set((note.blockIds ?? []).map((id) => id.toLowerCase()))];
}

export function endsWithKeys(segmentKeys: string[], targetKeys: string[]): boolean {
  return targetKeys.length <= segmentKeys.length && targetKeys.every((key, i) => segmentKeys[segmentKeys.length - targetKeys.length + i] === key);
}

export function dirSegments(path: string): string[] {
  return path.split('/').slice(0, -1).filter((s) => s !== '' && s !== '.');
}

/** Applies `.` and `..`; undefined when the path climbs above the vault root. */
export function normalizeSegments(parts: string[]): string[] | undefined {
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else {
      out.push(part);
    }
  }
  return out;
}

export function index<T>(map: Map<string, Set<T>>, keys: Iterable<string>, value: T): void {
  for (const key of keys) {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(value);
  }
}

export function unindex<T>(map: Map<string, Set<T>>, keys: Iterable<string>, value: T): void {
  for (const key of keys) {
    const set = map.get(key);
    if (!set) continue;
    set.delete(value);
    if (set.size === 0) map.delete(key);
  }
}
