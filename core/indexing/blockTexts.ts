import { blockRefsIn } from '../parse/logseqBlocks.js';

/** How deep references inside referenced blocks are followed (as `findBlockRefs` resolves them). */
const REF_DEPTH = 3;

interface BlockNote {
  path: string;
  blockTexts?: Record<string, string>;
  chunks: ReadonlyArray<{ blockRefs?: string[] }>;
}

/**
 * The vault's block texts (`id::` blocks, uuid → text) and which notes reference which blocks: what a note's
 * `((uuid))` reads as, and which notes must be chunked again when a block's text changes. Derived from the note
 * records (each keeps its own blocks' texts), so it is persisted with them and rebuilt as they load.
 */
export class BlockTexts {
  /** uuid → defining note → text. A uuid defined twice reads as the note first by path (deterministic). */
  private readonly defs = new Map<string, Map<string, string>>();
  /** uuid → notes whose chunks reference it. */
  private readonly referrers = new Map<string, Set<string>>();
  /** uuid → uuids of blocks whose own text references it (a change there changes how they read too). */
  private readonly inBlocks = new Map<string, Set<string>>();
  /** uuid → its text before the first change since the last `takeChanged`. */
  private readonly before = new Map<string, string | undefined>();

  text(uuid: string): string | undefined {
    const first = this.note(uuid);
    return first === undefined ? undefined : this.defs.get(uuid)!.get(first);
  }

  /** The note defining a block (the first by path when several do). */
  note(uuid: string): string | undefined {
    const defs = this.defs.get(uuid);
    if (!defs) return undefined;
    let first: string | undefined;
    for (const path of defs.keys()) if (first === undefined || path < first) first = path;
    return first;
  }

  /** `tracked`: the note's blocks count as changed (false for a note loaded as it was saved). */
  add(note: BlockNote, tracked = true): void {
    for (const [uuid, text] of Object.entries(note.blockTexts ?? {})) {
      if (tracked) this.touch(uuid);
      let defs = this.defs.get(uuid);
      if (!defs) this.defs.set(uuid, (defs = new Map()));
      defs.set(note.path, text);
      for (const target of blockRefsIn(text)) setOf(this.inBlocks, target).add(uuid);
    }
    for (const uuid of refsOf(note)) setOf(this.referrers, uuid).add(note.path);
  }

  remove(note: BlockNote): void {
    for (const [uuid, text] of Object.entries(note.blockTexts ?? {})) {
      this.touch(uuid);
      const defs = this.defs.get(uuid);
      defs?.delete(note.path);
      if (defs?.size === 0) this.defs.delete(uuid);
      // Kept while another note still defines the uuid with a text referencing the same block (rare; harmless).
      if (!this.defs.has(uuid)) for (const target of blockRefsIn(text)) dropFrom(this.inBlocks, target, uuid);
    }
    for (const uuid of refsOf(note)) dropFrom(this.referrers, uuid, note.path);
  }

  clear(): void {
    this.defs.clear();
    this.referrers.clear();
    this.inBlocks.clear();
    this.before.clear();
  }

  /** The uuids whose text changed (appeared, changed, went) since the last call. */
  takeChanged(): string[] {
    const changed = [...this.before].filter(([uuid, text]) => this.text(uuid) !== text).map(([uuid]) => uuid);
    this.before.clear();
    return changed;
  }

  /**
   * The notes that show any of these blocks: those referencing them, or referencing a block whose text references
   * them (as deep as references are resolved).
   */
  referencing(uuids: Iterable<string>): Set<string> {
    const affected = new Set(uuids);
    let frontier = [...affected];
    for (let depth = 0; depth < REF_DEPTH && frontier.length; depth++) {
      const next: string[] = [];
      for (const uuid of frontier) for (const outer of this.inBlocks.get(uuid) ?? []) if (!affected.has(outer)) affected.add(outer), next.push(outer);
      frontier = next;
    }
    const paths = new Set<string>();
    for (const uuid of affected) for (const path of this.referrers.get(uuid) ?? []) paths.add(path);
    return paths;
  }

  /**
   * The texts a note's references (`blockRefsIn` its text) read, and those inside them, as deep as they are
   * resolved: uuid → text.
   */
  textsFor(refs: readonly string[]): Record<string, string> {
    const texts: Record<string, string> = {};
    let frontier = [...refs];
    for (let depth = 0; depth <= REF_DEPTH && frontier.length; depth++) {
      const next: string[] = [];
      for (const uuid of frontier) {
        if (Object.hasOwn(texts, uuid)) continue;
        const text = this.text(uuid);
        if (text === undefined) continue;
        Object.defineProperty(texts, uuid, { value: text, enumerable: true, writable: true, configurable: true });
        next.push(...blockRefsIn(text));
      }
      frontier = next;
    }
    return texts;
  }

  private touch(uuid: string): void {
    if (!this.before.has(uuid)) this.before.set(uuid, this.text(uuid));
  }
}

function refsOf(note: BlockNote): Set<string> {
  return new Set(note.chunks.flatMap((c) => c.blockRefs ?? []));
}

function setOf<T>(map: Map<string, Set<T>>, key: string): Set<T> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

function dropFrom<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
