/**
 * Citations inside chunks that merge several small sections (`min_chunk_chars`): such a chunk is stored under its
 * longest part's heading, but a search or a quote should name the heading of the part it is actually about.
 */
import type { ChunkSummary } from '../contract/search.js';
import { termSet, termWeights } from './termOverlap.js';

/** Each part's lines of the chunk text: from its first line to the line before the next part. */
function partTexts(summary: ChunkSummary): string[] {
  const parts = summary.parts!;
  const lines = summary.text.split('\n');
  return parts.map((part, i) => lines.slice(part.startLine - summary.startLine, (parts[i + 1]?.startLine ?? summary.endLine + 1) - summary.startLine).join('\n'));
}

/**
 * The chunk cited by the part that holds the query's words: the IDF-weighted (over the parts) sum of the query terms
 * a part contains, terms of its header path counting twice (a subsection is under its parents' headings too, so a
 * parent is cited over its subsection only for words of its own text). The chunk's own citation stands unless
 * another part scores higher.
 */
export function citeQueriedPart<T extends ChunkSummary>(summary: T, queryTerms: readonly string[]): T {
  const parts = summary.parts;
  if (!parts || queryTerms.length === 0) return summary;
  const texts = partTexts(summary).map((text, i) => termSet(`${parts[i].headerPath.join(' ')}\n${text}`));
  const headings = parts.map((part) => termSet(part.headerPath.join(' ')));
  const weights = termWeights(queryTerms, texts);
  const score = (i: number) => queryTerms.reduce((sum, term) => sum + (texts[i].has(term) ? weights.get(term)! : 0) + (headings[i].has(term) ? weights.get(term)! : 0), 0);
  const own = Math.max(0, parts.findIndex((part) => part.anchor === summary.anchor && part.headerPath.join('\0') === summary.headerPath.join('\0')));
  let best = own;
  for (let i = 0; i < parts.length; i++) if (score(i) > score(best)) best = i;
  return best === own ? summary : { ...summary, headerPath: parts[best].headerPath, anchor: parts[best].anchor };
}

/** The chunk cited by the part it opens with: for a passage listed by filters alone, with no words to match. */
export function citeOpeningPart<T extends ChunkSummary>(summary: T): T {
  const first = summary.parts?.[0];
  return first ? { ...summary, headerPath: first.headerPath, anchor: first.anchor } : summary;
}

/** The header path of the part of a chunk that holds `line` (the chunk's own when it merges nothing). */
export function headerPathAt(summary: ChunkSummary, line: number): string[] {
  const part = summary.parts?.findLast((p) => p.startLine <= line);
  return part?.headerPath ?? summary.headerPath;
}
