// The link graph (see `LinkGraph`); the keys it files notes and links under are in linkKeys.ts, its file in linkGraphFile.ts.
import type { LinkKind, NoteLink } from '../../parse/links.js';
import { linkGraphLines, readLinkGraphFile, type GraphLinkKind, type StoredNote } from './linkGraphFile.js';
import { TimeSlices } from '../../process/timeSlices.js';
import type { StringTable } from '../../process/sharedStrings.js';
import {
  baseKeyOfPath,
  baseKeyOfTarget,
  blockIdsOf,
  blockKey,
  dirSegments,
  endsWithKeys,
  index,
  keyOf,
  nameKeyOfTarget,
  nameKeysOf,
  normalizeSegments,
  pathKey,
  stripNoteExtension,
  unindex,
} from './linkKeys.js';

export { LinkGraphCorruptError } from './linkGraphFile.js';

export interface GraphNote {
  /** Vault-relative, '/' separated, with extension. */
  path: string;
  title: string;
  aliases: string[];
  /** All links of the note. */
  links: NoteLink[];
  /** The block uuids (lower-cased) the note defines (`id::`). */
  blockIds?: string[];
  /** The block uuids the note references (`((uuid))`): each a link to the note defining that block. */
  blockRefs?: string[];
}

interface StoredLink {
  source: NoteEntry;
  kind: GraphLinkKind;
  target: string;
  /** Key of the target's file base name: every note that could resolve it by path or name has this base name. */
  baseKey: string;
  /** Key of the whole target, for alias and title matches. */
  nameKey: string;
  dest: string | undefined;
}

interface NoteEntry {
  path: string;
  title: string;
  aliases: string[];
  /** Keys of the title and aliases (what `[[Alias]]` resolves through). */
  nameKeys: string[];
  /** Folder segments, and the keys of all path segments: what ranking candidates compares. */
  dir: string[];
  segmentKeys: string[];
  blockIds: string[];
  links: StoredLink[];
}

/**
 * Notes and the links between them, resolved the way Obsidian resolves them. Each link is registered under the
 * keys that can change its resolution (its target's base name and whole text), so adding or removing a note
 * re-resolves only the links that could point to it.
 *
 * A graph read from its file answers neighbours and backlinks at once, but files its notes and links under their
 * keys only when something needs to resolve a link: `keyLinks` does it in turns (the vault starts it a second after
 * it opens), and any change or lookup first finishes what is left. Searches need none of the keys, and filing them
 * was a tenth of the time to open a vault.
 */
export class LinkGraph {
  private readonly notes = new Map<string, NoteEntry>();
  private readonly byPathKey = new Map<string, Set<string>>();
  private readonly byBaseKey = new Map<string, Set<string>>();
  private readonly byNameKey = new Map<string, Set<string>>();
  /** Block key (see `blockKey`) → notes defining that block. */
  private readonly byBlockKey = new Map<string, Set<string>>();
  /** Lookup key → links registered under it. */
  private readonly linksByKey = new Map<string, Set<StoredLink>>();
  /** Target note → linking note → number of links. */
  private readonly incoming = new Map<string, Map<string, number>>();
  /** Notes read from a file and not yet filed under their keys (with their links), from `keyedUpTo` on. */
  private unkeyed: NoteEntry[] = [];
  private keyedUpTo = 0;

  private constructor() {}

  static create(): LinkGraph {
    return new LinkGraph();
  }

  /** Loads what `lines()` wrote, in turns (a large vault's graph is tens of thousands of notes and links). */
  static async read(bytes: Uint8Array, strings?: StringTable): Promise<LinkGraph> {
    const stored = await readLinkGraphFile(bytes, strings);
    const graph = new LinkGraph();
    const turns = new TimeSlices();
    // Resolutions were saved with the notes: loading re-resolves nothing, and files nothing under keys yet.
    const entries: NoteEntry[] = [];
    for (const note of stored) {
      const entry = unfiledEntry(note);
      graph.notes.set(note.path, entry);
      entries.push(entry);
      if (turns.due()) await turns.next();
    }
    for (const [i, note] of stored.entries()) {
      const source = entries[i]!;
      for (const link of note.links) {
        graph.setDest(unfiledLink(source, link.kind, link.target), link.dest === undefined ? undefined : entries[link.dest]!.path);
      }
      if (turns.due()) await turns.next();
    }
    graph.unkeyed = entries;
    return graph;
  }

  /** Files the notes and links read from the graph's file under their keys, in turns; resolves once all are. */
  async keyLinks(): Promise<void> {
    const turns = new TimeSlices();
    while (this.keyedUpTo < this.unkeyed.length) {
      this.keyNote(this.unkeyed[this.keyedUpTo++]!);
      if (turns.due()) await turns.next();
    }
    this.unkeyed = [];
  }

  /** What `keyLinks` has left, at once: before anything changes or resolves. */
  private keyAll(): void {
    while (this.keyedUpTo < this.unkeyed.length) this.keyNote(this.unkeyed[this.keyedUpTo++]!);
    this.unkeyed = [];
  }

  private keyNote(entry: NoteEntry): void {
    if (this.notes.get(entry.path) !== entry) return;
    this.fileNote(entry);
    for (const link of entry.links) this.fileLink(link);
  }

  /** The graph's file, in pieces taken in turns (see linkGraphFile.ts). It must not change while they are taken. */
  lines(): AsyncGenerator<string> {
    const ordinal = new Map([...this.notes.keys()].map((path, i) => [path, i]));
    const stored = function* (notes: Iterable<NoteEntry>): Generator<StoredNote> {
      for (const note of notes) {
        yield {
          path: note.path,
          title: note.title,
          aliases: note.aliases,
          ...(note.blockIds.length ? { blockIds: note.blockIds } : {}),
          links: note.links.map(({ kind, target, dest }) => (dest === undefined ? { kind, target } : { kind, target, dest: ordinal.get(dest) })),
        };
      }
    };
    return linkGraphLines(stored(this.notes.values()), this.notes.size, new TimeSlices());
  }

  get noteCount(): number {
    return this.notes.size;
  }

  upsertNote(note: GraphNote): void {
    this.keyAll();
    const links: Array<Pick<StoredLink, 'kind' | 'target'>> = [
      ...note.links.filter((link) => link.target.trim() !== ''),
      ...(note.blockRefs ?? []).map((uuid) => ({ kind: 'block' as const, target: uuid.toLowerCase() })),
    ];
    const old = this.notes.get(note.path);
    if (!old) {
      const entry = this.register(note);
      this.attachLinks(entry, links);
      this.reresolve([baseKeyOfPath(note.path), ...entry.nameKeys, ...entry.blockIds.map(blockKey)]);
      return;
    }
    this.detachLinks(old);
    const oldKeys = [...old.nameKeys, ...old.blockIds.map(blockKey)];
    unindex(this.byNameKey, old.nameKeys, old.path);
    unindex(this.byBlockKey, old.blockIds.map(blockKey), old.path);
    old.title = note.title;
    old.aliases = [...note.aliases];
    old.nameKeys = nameKeysOf(note);
    old.blockIds = blockIdsOf(note);
    index(this.byNameKey, old.nameKeys, old.path);
    index(this.byBlockKey, old.blockIds.map(blockKey), old.path);
    this.attachLinks(old, links);
    const newKeys = [...old.nameKeys, ...old.blockIds.map(blockKey)];
    const changed = [...oldKeys.filter((k) => !newKeys.includes(k)), ...newKeys.filter((k) => !oldKeys.includes(k))];
    this.reresolve(changed);
  }

  removeNote(path: string): void {
    this.keyAll();
    const entry = this.notes.get(path);
    if (!entry) return;
    this.detachLinks(entry);
    this.notes.delete(path);
    unindex(this.byPathKey, [pathKey(path)], path);
    unindex(this.byBaseKey, [baseKeyOfPath(path)], path);
    unindex(this.byNameKey, entry.nameKeys, path);
    unindex(this.byBlockKey, entry.blockIds.map(blockKey), path);
    this.reresolve([baseKeyOfPath(path), ...entry.nameKeys, ...entry.blockIds.map(blockKey)]);
    this.incoming.delete(path);
  }

  /** Resolved note paths this note links to (wikilinks, embeds, local Markdown links, block references). */
  outgoing(path: string): string[] {
    const out = new Set<string>();
    for (const link of this.notes.get(path)?.links ?? []) if (link.dest !== undefined) out.add(link.dest);
    return [...out];
  }

  /** Note paths that link to this note. */
  backlinks(path: string): string[] {
    return [...(this.incoming.get(path)?.keys() ?? [])].sort();
  }

  /** outgoing ∪ backlinks, deduped, excluding the note itself. */
  neighbours(path: string): string[] {
    const all = new Set([...this.outgoing(path), ...this.backlinks(path)]);
    all.delete(path);
    return [...all];
  }

  /**
   * Link targets of this note that resolve to no note (kept, and resolved later if such a note appears).
   * The graph knows only notes, so embedded attachments (`image.png`) are listed here too. References to blocks
   * no note defines are not (they name no page; the note shows them as missing blocks).
   */
  unresolved(path: string): string[] {
    const out = new Set<string>();
    for (const link of this.notes.get(path)?.links ?? []) if (link.dest === undefined && link.kind !== 'block') out.add(link.target.trim());
    return [...out];
  }

  resolve(target: string, fromPath: string, kind: LinkKind = 'wikilink'): string | undefined {
    this.keyAll();
    return this.resolveFrom(target, kind, dirSegments(fromPath));
  }

  /** The note defining a block, other than the referencing note (a reference to its own block links nowhere); the first by path. */
  private resolveBlock(uuid: string, fromPath: string): string | undefined {
    let best: string | undefined;
    for (const path of this.byBlockKey.get(blockKey(uuid)) ?? []) if (path !== fromPath && (best === undefined || path < best)) best = path;
    return best;
  }

  private resolveLink(link: Pick<StoredLink, 'kind' | 'target'>, source: NoteEntry): string | undefined {
    return link.kind === 'block' ? this.resolveBlock(link.target, source.path) : this.resolveFrom(link.target, link.kind, source.dir);
  }

  private resolveFrom(target: string, kind: LinkKind, fromDir: string[]): string | undefined {
    const trimmed = target.trim().normalize('NFC');
    if (trimmed === '') return undefined;
    // Markdown links (and explicit ./ ../ in any link) are relative to the linking note's folder; "/" is the root.
    const relativeToNote = kind === 'markdown' ? !trimmed.startsWith('/') : trimmed.startsWith('./') || trimmed.startsWith('../');
    if (relativeToNote) {
      const relative = normalizeSegments([...fromDir, ...trimmed.split('/')]);
      const hit = relative && this.byExactPath(relative.join('/'));
      if (hit) return hit;
    }
    const segments = normalizeSegments(trimmed.split('/'));
    if (!segments || segments.length === 0) return undefined;
    const fromRoot = this.byExactPath(segments.join('/'));
    if (fromRoot) return fromRoot;
    const targetKeys = segments.map(keyOf);
    const byBase = this.byBaseKey.get(targetKeys.at(-1)!);
    const byName = this.byNameKey.get(nameKeyOfTarget(trimmed));
    if (byBase) {
      const best = this.closest(byBase, fromDir, targetKeys);
      // A namespaced page name (Logseq `[[a/b]]`, file `a___b.md` or `a%2Fb.md`): the page titled `a/b` wins over a
      // file merely named `b` in some other folder. A file whose path ends in `a/b` still wins (a path link).
      if (segments.length > 1 && byName && !endsWithKeys(this.notes.get(best)!.segmentKeys, targetKeys)) return this.closest(byName, fromDir, []);
      return best;
    }
    if (byName) return this.closest(byName, fromDir, []);
    return undefined;
  }

  /**
   * Among notes of the same name: the one whose path shares more trailing segments with the target
   * (`B/Note` prefers `A/B/Note.md`), then the one nearest the linking note's folder, then the shortest path.
   */
  private closest(candidates: Set<string>, fromDir: string[], targetKeys: string[]): string {
    if (candidates.size === 1) return candidates.values().next().value!;
    let best: Ranked | undefined;
    for (const path of candidates) {
      const { dir, segmentKeys } = this.notes.get(path)!;
      let suffix = 0;
      while (suffix < targetKeys.length && suffix < segmentKeys.length && targetKeys.at(-1 - suffix) === segmentKeys.at(-1 - suffix)) suffix++;
      let common = 0;
      while (common < dir.length && common < fromDir.length && dir[common] === fromDir[common]) common++;
      const candidate = { path, suffix, distance: dir.length - common + (fromDir.length - common), depth: segmentKeys.length };
      if (!best || isBetter(candidate, best)) best = candidate;
    }
    return best!.path;
  }

  private byExactPath(path: string): string | undefined {
    const paths = this.byPathKey.get(pathKey(path));
    if (!paths) return undefined;
    if (paths.size === 1) return paths.values().next().value;
    // Several notes differing only in case: the exact spelling, else a stable choice.
    for (const candidate of paths) if (stripNoteExtension(candidate) === stripNoteExtension(path)) return candidate;
    return [...paths].sort()[0];
  }

  private register(note: Pick<GraphNote, 'path' | 'title' | 'aliases' | 'blockIds'>): NoteEntry {
    const entry = unfiledEntry(note);
    this.notes.set(note.path, entry);
    this.fileNote(entry);
    return entry;
  }

  /** Works out a note's keys and files it under them. */
  private fileNote(entry: NoteEntry): void {
    entry.nameKeys = nameKeysOf(entry);
    entry.dir = dirSegments(entry.path);
    entry.segmentKeys = entry.path.split('/').map(keyOf);
    index(this.byPathKey, [pathKey(entry.path)], entry.path);
    index(this.byBaseKey, [baseKeyOfPath(entry.path)], entry.path);
    index(this.byNameKey, entry.nameKeys, entry.path);
    index(this.byBlockKey, entry.blockIds.map(blockKey), entry.path);
  }

  private attachLinks(entry: NoteEntry, links: ReadonlyArray<Pick<StoredLink, 'kind' | 'target'>>): void {
    for (const link of links) {
      if (link.target.trim() !== '') this.attachLink(entry, link.kind, link.target, this.resolveLink(link, entry));
    }
  }

  private attachLink(source: NoteEntry, kind: GraphLinkKind, target: string, dest: string | undefined): void {
    const link = unfiledLink(source, kind, target);
    this.fileLink(link);
    this.setDest(link, dest);
  }

  /** Works out the keys that can change a link's resolution and files it under them. */
  private fileLink(link: StoredLink): void {
    link.baseKey = link.kind === 'block' ? blockKey(link.target) : baseKeyOfTarget(link.target);
    link.nameKey = link.kind === 'block' ? blockKey(link.target) : nameKeyOfTarget(link.target);
    index(this.linksByKey, [link.baseKey, link.nameKey], link);
  }

  private detachLinks(entry: NoteEntry): void {
    for (const link of entry.links) {
      this.setDest(link, undefined);
      unindex(this.linksByKey, [link.baseKey, link.nameKey], link);
    }
    entry.links = [];
  }

  /** Re-resolves the links whose target could name a note with one of these keys. */
  private reresolve(keys: Iterable<string>): void {
    const affected = new Set<StoredLink>();
    for (const key of keys) for (const link of this.linksByKey.get(key) ?? []) affected.add(link);
    for (const link of affected) this.setDest(link, this.resolveLink(link, link.source));
  }

  private setDest(link: StoredLink, dest: string | undefined): void {
    if (link.dest === dest) return;
    const source = link.source.path;
    if (link.dest !== undefined) {
      const from = this.incoming.get(link.dest)!;
      const count = from.get(source)! - 1;
      if (count > 0) from.set(source, count);
      else from.delete(source);
      if (from.size === 0) this.incoming.delete(link.dest);
    }
    link.dest = dest;
    if (dest !== undefined) {
      let from = this.incoming.get(dest);
      if (!from) this.incoming.set(dest, (from = new Map()));
      from.set(source, (from.get(source) ?? 0) + 1);
    }
  }
}

/** A link added to its source note, before its keys are worked out (see `fileLink`). */
function unfiledLink(source: NoteEntry, kind: GraphLinkKind, target: string): StoredLink {
  const link: StoredLink = { source, kind, target, baseKey: '', nameKey: '', dest: undefined };
  source.links.push(link);
  return link;
}

/** A note's entry before its keys are worked out (see `fileNote`). */
function unfiledEntry(note: Pick<GraphNote, 'path' | 'title' | 'aliases' | 'blockIds'>): NoteEntry {
  return { path: note.path, title: note.title, aliases: [...note.aliases], nameKeys: [], dir: [], segmentKeys: [], blockIds: blockIdsOf(note), links: [] };
}

interface Ranked {
  path: string;
  suffix: number;
  distance: number;
  depth: number;
}

function isBetter(a: Ranked, b: Ranked): boolean {
  if (a.suffix !== b.suffix) return a.suffix > b.suffix;
  if (a.distance !== b.distance) return a.distance < b.distance;
  if (a.depth !== b.depth) return a.depth < b.depth;
  if (a.path.length !== b.path.length) return a.path.length < b.path.length;
  return a.path < b.path;
}
