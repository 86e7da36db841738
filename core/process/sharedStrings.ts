/**
 * One copy of each string among indices loaded together. The note store, the keyword index and the vector index
 * each parse a chunk's id out of their own file, so a loaded index held every id three times (a heap snapshot of the
 * 50k scale vault: 54,869 ids in three copies each, 8.6 MB of copies), the store and the link graph each every note
 * path, and the graph every link target once per link. The files load in parallel, so whichever reads a string first
 * keeps its copy and the others take it. Dropped once the load is done: it holds a table entry per string, and the
 * indices keep only the strings.
 */
export class SharedStrings {
  private readonly table = new Map<string, string>();

  /** The first copy of `text` asked for; `text` itself when it is the first, or short (see SHORT). */
  of(text: string): string {
    if (text.length <= SHORT) return text;
    const known = this.table.get(text);
    if (known !== undefined) return known;
    this.table.set(text, text);
    return text;
  }

  get size(): number {
    return this.table.size;
  }
}

/**
 * Strings up to this long are left alone: JSON.parse keeps one copy of each itself (V8 internalises them), so
 * looking up a short title or link target would only cost time.
 */
const SHORT = 10;

/** For a reader given no table: every string stays its own. */
export const OWN_STRINGS = { of: (text: string) => text } as const satisfies Pick<SharedStrings, 'of'>;
export type StringTable = Pick<SharedStrings, 'of'>;
