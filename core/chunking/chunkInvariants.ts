import type { ChunkingConfig } from '../config/schema.js';
import { parseFrontmatter } from '../parse/frontmatter.js';
import { reduceWikilinks } from '../parse/links.js';
import { parseOutline, PROPERTY_LINE } from '../parse/outlineBlocks.js';
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
  const quoted = quotedLines(text);
  chunks.forEach((chunk, i) => {
    const where = `chunk ${i} (${chunk.id})`;
    if (chunk.index !== i) problems.push(`${where}: index ${chunk.index}`);
    if (ids.has(chunk.id)) problems.push(`${where}: duplicate id`);
    ids.add(chunk.id);
    if (chunk.start < bodyStart) problems.push(`${where}: starts inside the front matter`);
    if (chunk.text !== text.slice(chunk.start, chunk.end)) problems.push(`${where}: text is not source.slice(start, end)`);
    if (lineCount(chunk.displayText) !== lineCount(chunk.text)) problems.push(`${where}: displayText has ${lineCount(chunk.displayText)} lines, text ${lineCount(chunk.text)}`);
    if (/^\s|\s$/.test(chunk.text) || chunk.text.length === 0) problems.push(`${where}: text is empty or has surrounding white space`);
    if (i > 0 && chunks[i - 1].end > chunk.start) problems.push(`${where}: overlaps or precedes the previous chunk`);
    if (config.strategy === 'header_based' && chunk.text.length > config.max_chunk_chars) problems.push(`${where}: ${chunk.text.length} chars > max_chunk_chars ${config.max_chunk_chars}`);
    const counted = tokens.count(chunk.content);
    if (counted !== chunk.tokenCount) problems.push(`${where}: tokenCount ${chunk.tokenCount} but content has ${counted}`);
    if (counted > tokens.window) problems.push(`${where}: ${counted} tokens > window ${tokens.window}`);
    if (chunk.startLine !== lineAt(text, chunk.start) || chunk.endLine !== lineAt(text, chunk.end - 1)) problems.push(`${where}: wrong line numbers`);
    // content = header prefix (possibly shortened to fit the window) + overlap + the text as shown.
    const body = (chunk.overlap ? `${chunk.overlap}\n` : '') + chunk.displayText;
    const prefix = chunk.content.endsWith(body) ? chunk.content.slice(0, chunk.content.length - body.length) : undefined;
    const prefixOk = prefix === '' || (prefix !== undefined && config.include_parent_headers && prefix.endsWith('\n\n') && chunk.headerPath.join(' > ').includes(prefix.slice(0, -2)));
    if (!prefixOk) problems.push(`${where}: content is not header prefix + overlap + text`);
    if (config.include_parent_headers && chunk.headerPath.length && prefix === '' && tokens.count(chunk.headerPath.at(-1)!) <= tokens.window / 2) problems.push(`${where}: header prefix missing`);
    if (chunk.overlap) {
      const previous = chunks[i - 1];
      const siblings = previous && chunk.sub !== null && chunk.sub > 0 && previous.sub === chunk.sub - 1 && sectionOf(previous) === sectionOf(chunk);
      if (!siblings) problems.push(`${where}: overlap outside a force-split section`);
      else if (!previous.displayText.trimEnd().endsWith(chunk.overlap)) problems.push(`${where}: overlap is not the tail of the previous sub-chunk`);
      if (chunk.overlap.length > config.overlap_chars) problems.push(`${where}: overlap longer than overlap_chars`);
    }
    if (chunk.parts) {
      const lines = chunk.parts.map((p) => p.startLine);
      if (chunk.parts.length < 2) problems.push(`${where}: parts listed for a single section`);
      if (lines[0] !== chunk.startLine || lines.some((line, j) => j > 0 && line <= lines[j - 1]) || lines.at(-1)! > chunk.endLine) problems.push(`${where}: part lines ${lines.join(',')} out of order or outside lines ${chunk.startLine}-${chunk.endLine}`);
      if (!chunk.parts.some((p) => p.headerPath.join('\0') === chunk.headerPath.join('\0') && p.anchor === chunk.anchor)) problems.push(`${where}: cited heading is none of its parts`);
    }
    // The shown text and the header prefix; the overlap is a tail of the previous chunk's shown text, checked there.
    const leaked = propertyLineIn(chunk.displayText, quoted) ?? propertyLineIn(prefix ?? '', quoted);
    if (leaked !== undefined) problems.push(`${where}: property line in content: ${JSON.stringify(leaked)}`);
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

/**
 * The outline promises (strategy header_based): every heading block (`- ## Usage`, `heading:: true`) is an entry of
 * the header path of the chunk its heading line is in (or of the merged part that starts there). Returns what is
 * broken, and how many heading blocks were checked.
 */
export function outlineInvariantViolations(text: string, chunks: Chunk[]): { problems: string[]; headingBlocks: number } {
  const problems: string[] = [];
  const outline = parseOutline(text, parseFrontmatter(text).end);
  let headingBlocks = 0;
  for (const block of outline.blocks) {
    if (!block.heading?.text) continue;
    headingBlocks++;
    const title = reduceWikilinks(block.heading.text);
    const at = block.start + (/^[ \t]*/.exec(text.slice(block.start, block.start + 200))?.[0].length ?? 0);
    const chunk = chunks.find((c) => c.start <= at && at < c.end);
    const paths = chunk ? [chunk.headerPath, ...(chunk.parts ?? []).map((p) => p.headerPath)] : [];
    if (!paths.some((path) => path.includes(title))) problems.push(`heading block ${JSON.stringify(title)} at ${at} is in no header path of its chunk (${chunk?.headerPath.join(' > ') ?? 'no chunk'})`);
  }
  return { problems, headingBlocks };
}

/**
 * A `key:: value` line of `content` outside fenced code, if any: properties are metadata, never indexed text. Read
 * without the outline parser on purpose (an independent check); `#+BEGIN` code is fenced in content by then.
 */
export function propertyLineIn(content: string, quoted: ReadonlySet<string> = new Set()): string | undefined {
  let fence: string | undefined;
  for (const line of content.split(/\r?\n/)) {
    const body = line.trimStart().replace(/^(?:[-*+]|\d{1,9}[.)])[ \t]+/, '');
    const marker = /^(`{3,}|~{3,})/.exec(body)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && /^[`~]+\s*$/.test(body)) fence = undefined;
    } else if (marker) fence = marker;
    else if (PROPERTY_LINE.test(line) && !quoted.has(line.trim())) return line;
  }
  return undefined;
}

/** Lines inside `#+BEGIN_QUOTE`-style regions of a note: text there, whatever they look like. */
function quotedLines(source: string): Set<string> {
  const quoted = new Set<string>();
  let region: string | undefined;
  for (const line of source.split(/\r?\n/)) {
    const body = line.trimStart().replace(/^(?:[-*+]|\d{1,9}[.)])[ \t]+/, '');
    if (region) {
      if (body.toUpperCase().startsWith(`#+END_${region}`)) region = undefined;
      else quoted.add(line.trim());
    } else region = /^#\+BEGIN_([A-Za-z]+)/.exec(body)?.[1].toUpperCase();
  }
  return quoted;
}

function lineCount(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

function sectionOf(chunk: Chunk): string {
  return chunk.id.slice(0, chunk.id.lastIndexOf('_sub_'));
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
