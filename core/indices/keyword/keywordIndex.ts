/**
 * BM25+ keyword search over chunks, with exact title/alias matches first, as-you-type prefix on the last word,
 * light typo tolerance, and optional weighted expansion terms. The facade over this folder: the documents
 * (keywordDocs.ts), MiniSearch's internals (miniSearchInternals.ts), the query plan and scorer (queryPlan.ts,
 * bm25Scorer.ts) and the file format (keywordIndexFile.ts).
 */
import { searchChunks, type KeywordHit, type KeywordSearchOptions } from './bm25Scorer.js';
import { titleKeysOf, TitleKeys, type KeywordDoc } from './keywordDocs.js';
import { keywordIndexLines, readKeywordIndex } from './keywordIndexFile.js';
import { ChunkPostings } from './miniSearchInternals.js';
import type { StringTable } from '../../process/sharedStrings.js';

export type { KeywordHit, KeywordSearchOptions } from './bm25Scorer.js';
export { KEYWORD_FIELD_BOOSTS, type KeywordDoc } from './keywordDocs.js';
export { KeywordIndexCorruptError } from './keywordIndexFile.js';

export class KeywordIndex {
  /** Counts the changes to what the index holds (see `revision`). */
  private changes = 0;

  private constructor(
    private readonly index: ChunkPostings,
    private readonly titles: TitleKeys,
  ) {}

  /** `vacuumTurnMs`: see ChunkPostings (tests only). */
  static create(options: { vacuumTurnMs?: number } = {}): KeywordIndex {
    return new KeywordIndex(ChunkPostings.create(options.vacuumTurnMs), new TitleKeys());
  }

  /** Loads what `lines()` wrote, giving the event loop a turn every few milliseconds; `strings`: see SharedStrings. */
  static async read(bytes: Uint8Array, strings?: StringTable): Promise<KeywordIndex> {
    const { index, titles } = await readKeywordIndex(bytes, strings);
    return new KeywordIndex(index, titles);
  }

  /**
   * The index as lines of JSON (see keywordIndexFile.ts), in pieces (text or UTF-8 bytes) to write one after another. The index must
   * not change while they are taken (call `settle()` first: an automatic vacuum in progress would change it).
   */
  lines(): AsyncGenerator<string | Uint8Array> {
    return keywordIndexLines(this.index, this.titles);
  }

  /** Waits for vacuuming, which changes the postings across event-loop turns. */
  settle(): Promise<void> {
    return this.index.settle();
  }

  get size(): number {
    return this.index.documentCount;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  /**
   * Changes with every upsert, relabel and removal (not with vacuuming, which changes no result): a search run in an
   * earlier turn of the event loop still holds if the revision is the same.
   */
  get revision(): number {
    return this.changes;
  }

  /**
   * Adds chunks, each replacing the one with its id; returns how many it added. With `enough` (and chunks of
   * distinct ids), stops once it says so, asked after each chunk: a long pass gives the rest in its next turn.
   */
  upsert(docs: ReadonlyArray<KeywordDoc>, enough?: () => boolean): number {
    this.changes++;
    // The last of several docs with one id wins, as if each replaced the one before.
    const unique = [...new Map(docs.map((doc) => [doc.id, doc])).values()];
    for (const { id } of unique) if (this.index.has(id)) this.discard(id);
    const added = unique.slice(0, this.index.addAll(unique, enough));
    for (const doc of added) {
      const shortId = this.index.shortIdOf(doc.id)!;
      for (const key of titleKeysOf(doc)) this.titles.add(key, shortId);
    }
    return added.length;
  }

  /**
   * Moves chunks to new ids, keeping what was indexed of them (their title keys follow: they are held by short
   * id). Each pair `[from, to]` is moved when `from` is present and `to` is not; returns how many were.
   */
  relabel(pairs: Iterable<readonly [string, string]>): number {
    this.changes++;
    let moved = 0;
    for (const [from, to] of pairs) if (this.index.relabel(from, to)) moved++;
    return moved;
  }

  remove(ids: Iterable<string>): void {
    this.changes++;
    for (const id of ids) if (this.index.has(id)) this.discard(id);
  }

  search(query: string, k: number, options: KeywordSearchOptions = {}): KeywordHit[] {
    return searchChunks(this.index, this.titles, query, k, options);
  }

  /** Every distinct indexed term (for building query expansions over the vault's own vocabulary). */
  terms(): string[] {
    return this.index.terms();
  }

  private discard(id: string): void {
    this.titles.discard(this.index.shortIdOf(id)!);
    this.index.discard(id);
  }
}
