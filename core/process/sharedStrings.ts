/**
 * One copy of each string among indices loaded together. The note store, the keyword index and the vector index
 * each parse a chunk's id out of their own file, so a loaded index held every id three times (a heap snapshot of the
 * 50k scale vault: 54,869 ids in three copies each, 8.6 MB of copies), and the store gave every chunk its own copy
 * of headings and anchors that recur across notes. The files load in parallel, so whichever reads a string first
 * keeps its copy and the others take it. Dropped once the load is done: it holds a table entry per string, and the
 * indices keep only the strings.
 */
export class SharedStrings {
  private readonly table = new Map<string, string>();

  /** The first copy of `text` asked for; `text` itself when it is the first. */
  of(text: string): string {
    const known = this.table.get(text);
    if (known !== undefined) return known;
    this.table.set(text, text);
    return text;
  }

  get size(): number {
    return this.table.size;
  }
}

/** For a reader given no table: every string stays its own. */
export const OWN_STRINGS = { of: (text: string) => text } as const satisfies Pick<SharedStrings, 'of'>;
export type StringTable = Pick<SharedStrings, 'of'>;
