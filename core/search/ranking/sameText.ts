/**
 * The same passage, word for word, in several notes is one candidate: a documentation vault that keeps a page per
 * product version (the PowerShell docs hold most pages three times: 17,611 distinct chunk texts among 47,126
 * chunks), a paragraph pasted into several notes, a template's boilerplate. Ranked as they are, the copies tie and
 * fill the results with one passage (on the PowerShell docs, 4.5 distinct passages in a top 10 on average over 300
 * queries of its headings, often one in a top 5), pushing every other passage down and weighing one text several
 * times in both rankings.
 *
 * Each ranking keeps a text once, at its best rank, under one chunk of the text (the first by id, so its note's path
 * first: the same in both rankings, in every mode, and however the index was built; a choice by modification time
 * would differ between two copies of a vault); the other copies are listed with it, in id order, so a result shows
 * where else its passage is. A text is a chunk's hash, of what it embeds and indexes
 * (with `include_parent_headers`, its heading path too: sections that read alike under other headings stay apart).
 */
import type { RankerHit } from './fusion.js';

export interface CopyContext {
  /** The chunk's text hash. */
  textOf(id: string): string;
}

export interface CollapsedRankings<H extends RankerHit> {
  /** Each ranking with every text once, at its best rank, under the text's chosen chunk. */
  lists: H[][];
  /** A chosen chunk's copies (other chunks with its text in either ranking), in id order. */
  copies: Map<string, string[]>;
}

/**
 * Rankers are asked this many times the depth fusion takes from each: the copies of a text count once, and a vault
 * keeping most pages in several versions would otherwise fuse a third of the passages other vaults do, and run out
 * of results (a PowerShell query: 9 in all). The same postings are scored and the same vectors scanned; the larger
 * lists cost about 0.7 ms a hybrid query on a vault of 50,000 chunks, and 4 times the depth about twice that for
 * no more distinct passages in a top 10 (9.82 and 9.87 a query on the PowerShell docs).
 */
export const COPY_ALLOWANCE = 2;

/** `lists` are the rankings as asked (COPY_ALLOWANCE × depth); each comes back with at most `depth` texts. */
export function collapseCopies<H extends RankerHit>(lists: ReadonlyArray<readonly H[]>, context: CopyContext, depth = Number.POSITIVE_INFINITY): CollapsedRankings<H> {
  const byText = new Map<string, string[]>();
  for (const list of lists) {
    for (const { id } of list) {
      const text = context.textOf(id);
      const ids = byText.get(text);
      if (!ids) byText.set(text, [id]);
      else if (!ids.includes(id)) ids.push(id);
    }
  }
  const chosen = new Map<string, string>();
  const copies = new Map<string, string[]>();
  for (const ids of byText.values()) {
    if (ids.length < 2) continue;
    ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const id of ids) chosen.set(id, ids[0]!);
    copies.set(ids[0]!, ids.slice(1));
  }
  if (copies.size === 0) return { lists: lists.map((list) => list.slice(0, depth)), copies };
  return {
    lists: lists.map((list) => {
      const kept = new Map<string, H>();
      for (const hit of list) {
        const id = chosen.get(hit.id) ?? hit.id;
        const seen = kept.get(id);
        // A copy that is the note's title (an exact match) makes the text's entry one.
        if (seen) {
          if (hit.exactTitle && !seen.exactTitle) kept.set(id, { ...seen, exactTitle: true });
          continue;
        }
        kept.set(id, id === hit.id ? hit : { ...hit, id });
      }
      return [...kept.values()].slice(0, depth);
    }),
    copies,
  };
}
