import type { Block, Heading, MarkdownOutline } from '../parse/markdownTree.js';

/** Bumped whenever the encoding below changes: cached outlines of another format are not read. */
export const OUTLINE_FORMAT = 1;

/**
 * A note's Markdown outline as a compact string, for the outline cache (see `core/indexing/outlineCache.ts`): block
 * types in a table, then flat number arrays — `[types, headings, blocks, code]` with headings as `level, start, end,
 * text`, blocks as `type index, start, end, part count (-1: no parts), part starts and ends…`, code as `start, end`.
 */
export function encodeOutline(outline: MarkdownOutline): string {
  const types: string[] = [];
  const typeIndex = new Map<string, number>();
  const headings: Array<number | string> = [];
  for (const h of outline.headings) headings.push(h.level, h.start, h.end, h.text);
  const blocks: number[] = [];
  for (const b of outline.blocks) {
    let t = typeIndex.get(b.type);
    if (t === undefined) {
      t = types.push(b.type) - 1;
      typeIndex.set(b.type, t);
    }
    blocks.push(t, b.start, b.end, b.parts ? b.parts.length : -1);
    for (const [start, end] of b.parts ?? []) blocks.push(start, end);
  }
  return JSON.stringify([types, headings, blocks, outline.codeRanges.flat()]);
}

/**
 * The outline `encodeOutline` wrote, or undefined when `encoded` is not one for a text of this length (a damaged
 * or foreign record): the caller then parses the note instead.
 */
export function decodeOutline(encoded: string, textLength: number): MarkdownOutline | undefined {
  try {
    const [types, headingData, blockData, codeData] = JSON.parse(encoded) as [string[], Array<number | string>, number[], number[]];
    const offset = (value: unknown): number => {
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > textLength) throw new Error('bad offset');
      return value as number;
    };
    if (!Array.isArray(types) || !types.every((t) => typeof t === 'string')) return undefined;
    const headings: Heading[] = [];
    if (headingData.length % 4) return undefined;
    for (let i = 0; i < headingData.length; i += 4) {
      const [level, start, end, text] = headingData.slice(i, i + 4);
      if (!Number.isInteger(level) || typeof text !== 'string') return undefined;
      headings.push({ level: level as number, text, start: offset(start), end: offset(end) });
    }
    const blocks: Block[] = [];
    for (let i = 0; i < blockData.length; ) {
      const type = types[blockData[i]];
      const count = blockData[i + 3];
      if (type === undefined || !Number.isInteger(count) || count < -1) return undefined;
      const block: Block = { type, start: offset(blockData[i + 1]), end: offset(blockData[i + 2]) };
      i += 4;
      if (count >= 0) {
        block.parts = [];
        for (let p = 0; p < count; p++, i += 2) block.parts.push([offset(blockData[i]), offset(blockData[i + 1])]);
      }
      blocks.push(block);
    }
    if (codeData.length % 2) return undefined;
    const codeRanges: Array<[number, number]> = [];
    for (let i = 0; i < codeData.length; i += 2) codeRanges.push([offset(codeData[i]), offset(codeData[i + 1])]);
    return { headings, blocks, codeRanges };
  } catch {
    return undefined;
  }
}
