import type { ChunkingConfig } from '../config/schema.js';
import { parseFrontmatter } from '../parse/frontmatter.js';
import type { TokenCounter } from './tokenCounter.js';
import type { Chunk } from './types.js';

/**
 * Checks the promises every chunking of a note keeps, returning what is broken (empty when all hold).
 * Used by the property tests and by `npm run check:corpora` over real vaults.
 */
export function chunkInvariantViolations(text: string, chunks: Chunk[], config: ChunkingConfig, tokens: TokenCounter): string[] {
  const problems: string[] = [];
  const bodyStart = parseFrontmatter(text).end;
  const ids = new Set<string>();
  chunks.forEach((chunk, i) => {
    const where = `chunk ${i} (${chunk.id})`;
    if (chunk.index !== i) problems.push(`${where}: index ${chunk.index}`);
    if (ids.has(chunk.id)) problems.push(`${where}: duplicate id`);
    ids.add(chunk.id);
    if (chunk.start < bodyStart) problems.push(`${where}: starts inside the front matter`);
    if (chunk.text !== text.slice(chunk.start, chunk.end)) problems.push(`${where}: text is not source.slice(start, end)`);
    if (/^\s|\s$/.test(chunk.text) || chunk.text.length === 0) problems.push(`${where}: text is empty or has surrounding white space`);
    if (i > 0 && chunks[i - 1].end > chunk.start) problems.push(`${where}: overlaps or precedes the previous chunk`);
    if (config.strategy === 'header_based' && chunk.text.length > config.max_chunk_chars) problems.push(`${where}: ${chunk.text.length} chars > max_chunk_chars ${config.max_chunk_chars}`);
    const counted = tokens.count(chunk.content);
    if (counted !== chunk.tokenCount) problems.push(`${where}: tokenCount ${chunk.tokenCount} but content has ${counted}`);
    if (counted > tokens.window) problems.push(`${where}: ${counted} tokens > window ${tokens.window}`);
    if (chunk.startLine !== lineAt(text, chunk.start) || chunk.endLine !== lineAt(text, chunk.end - 1)) problems.push(`${where}: wrong line numbers`);
    // content = header prefix (possibly shortened to fit the window) + overlap + text.
    const body = (chunk.overlap ? `${chunk.overlap}\n` : '') + chunk.text;
    const prefix = chunk.content.endsWith(body) ? chunk.content.slice(0, chunk.content.length - body.length) : undefined;
    const prefixOk = prefix === '' || (prefix !== undefined && config.include_parent_headers && prefix.endsWith('\n\n') && chunk.headerPath.join(' > ').includes(prefix.slice(0, -2)));
    if (!prefixOk) problems.push(`${where}: content is not header prefix + overlap + text`);
    if (config.include_parent_headers && chunk.headerPath.length && prefix === '' && tokens.count(chunk.headerPath.at(-1)!) <= tokens.window / 2) problems.push(`${where}: header prefix missing`);
    if (chunk.overlap) {
      const previous = chunks[i - 1];
      const siblings = previous && chunk.sub !== null && chunk.sub > 0 && previous.sub === chunk.sub - 1 && sectionOf(previous) === sectionOf(chunk);
      if (!siblings) problems.push(`${where}: overlap outside a force-split section`);
      else if (!previous.text.endsWith(chunk.overlap)) problems.push(`${where}: overlap is not the tail of the previous sub-chunk`);
      if (chunk.overlap.length > config.overlap_chars) problems.push(`${where}: overlap longer than overlap_chars`);
    }
    if (chunk.parts) {
      const lines = chunk.parts.map((p) => p.startLine);
      if (chunk.parts.length < 2) problems.push(`${where}: parts listed for a single section`);
      if (lines[0] !== chunk.startLine || lines.some((line, j) => j > 0 && line <= lines[j - 1]) || lines.at(-1)! > chunk.endLine) problems.push(`${where}: part lines ${lines.join(',')} out of order or outside lines ${chunk.startLine}-${chunk.endLine}`);
      if (!chunk.parts.some((p) => p.headerPath.join('\0') === chunk.headerPath.join('\0') && p.anchor === chunk.anchor)) problems.push(`${where}: cited heading is none of its parts`);
    }
    if (chunk.sub !== null && !chunk.id.includes(`_sub_${chunk.sub}@`)) problems.push(`${where}: sub-chunk id lacks _sub_${chunk.sub}`);
  });
  // Every non-blank character of the body belongs to a chunk.
  let next = bodyStart;
  for (const chunk of chunks) {
    const gap = text.slice(next, chunk.start);
    if (/\S/.test(gap)) problems.push(`non-blank text at ${next + gap.search(/\S/)} is in no chunk`);
    next = Math.max(next, chunk.end);
  }
  const tail = text.slice(next);
  if (/\S/.test(tail)) problems.push(`non-blank text at ${next + tail.search(/\S/)} is in no chunk`);
  return problems;
}

function sectionOf(chunk: Chunk): string {
  return chunk.id.slice(0, chunk.id.lastIndexOf('_sub_'));
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
