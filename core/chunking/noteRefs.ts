/**
 * A note's links, tags and block references, found in one pass over the note and handed to each chunk by offset.
 * Scanning each chunk's span on its own went over every code range of the note once per chunk (quadratic in a long
 * reference page of many code blocks), and is what a `[chunking]` change paid most for once the parse is cached.
 * A reference belongs to the chunk its first character is in.
 */
import { firstStartingAt } from '../parse/sortedSpans.js';
import { scanInlineRefs, uniqueTags, type NoteLink, type TagAt } from '../parse/links.js';
import { blockRefsAt } from '../parse/logseqBlocks.js';
import type { Span } from './rangeSplitter.js';

export interface ChunkRefs {
  links: NoteLink[];
  /** Each tag once, by its first spelling in the chunk. */
  tags: string[];
  /** Block uuids referenced outside code, each once. */
  blockRefs: string[];
}

export class NoteRefs {
  private readonly links: NoteLink[];
  private readonly tags: TagAt[];
  private readonly blockRefs: Array<{ uuid: string; start: number }> = [];

  /** `codeRanges` sorted by start: no references in them. */
  constructor(text: string, bodyStart: number, codeRanges: ReadonlyArray<readonly [number, number]>) {
    ({ links: this.links, tags: this.tags } = scanInlineRefs(text, bodyStart, text.length, codeRanges));
    // Block references are Logseq's: most notes have none, and the test is cheaper than the scan.
    if (!text.includes('((', bodyStart)) return;
    let from = bodyStart;
    for (const [start, end] of codeRanges) {
      if (end <= from) continue;
      if (start > from) this.blockRefs.push(...blockRefsAt(text, from, start));
      from = Math.max(from, end);
    }
    if (from < text.length) this.blockRefs.push(...blockRefsAt(text, from, text.length));
  }

  in(span: Span): ChunkRefs {
    return {
      links: within(this.links, span),
      tags: uniqueTags(within(this.tags, span)),
      blockRefs: [...new Set(within(this.blockRefs, span).map((ref) => ref.uuid))],
    };
  }
}

/** The items of `sorted` (by start) that start inside the span. */
function within<T extends { start: number }>(sorted: readonly T[], span: Span): T[] {
  const first = firstStartingAt(sorted, span.start);
  let last = first;
  while (last < sorted.length && sorted[last].start < span.end) last++;
  return sorted.slice(first, last);
}
