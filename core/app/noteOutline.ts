// What the note view needs to know of a note written as an outline (Logseq pages, Obsidian outline notes), from the
// core's own line scan (core/parse/outlineBlocks.ts): which lines are `key:: value` properties (metadata, never shown
// as text), the page's properties (shown as a table), and each block's id and heading level, by the line of its bullet.
import type { NoteOutlineView, OutlineBlockView } from '../contract/note.js';
import { lineCounter } from '../parse/lineNumbers.js';
import { parseOutline, type NoteOutline } from '../parse/outlineBlocks.js';

export function outlineInfo(text: string, bodyStart: number): NoteOutlineView {
  let outline: NoteOutline;
  try {
    outline = parseOutline(text, bodyStart, atxHeadings(text, bodyStart));
  } catch {
    return { propertyLines: [], blocks: {}, pageProperties: [], isOutline: false, dedent: [] };
  }
  const lineOf = lineCounter(text);
  const propertyLines = [...new Set(outline.propertyLines.map((p) => lineOf(p.start)))];
  const blocks: Record<number, OutlineBlockView> = {};
  for (const block of outline.blocks) {
    const info: OutlineBlockView = {};
    const id = block.properties.id?.toLowerCase();
    if (id) info.uuid = id;
    // A `- ## Heading` block is rendered as a heading by Markdown already; a `heading:: true` block is not.
    if (block.heading && !/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+#{1,6}(?:[ \t]|\r?\n|$)/.test(text.slice(block.start, block.headEnd))) info.headingLevel = Math.min(6, Math.max(1, block.heading.level));
    if (info.uuid || info.headingLevel) blocks[lineOf(block.start)] = info;
  }
  const dedent = outline.blocks.filter((b) => b.parent === -1 && b.column >= 4).map((b) => ({ from: lineOf(b.start), to: lineOf(Math.max(b.start, b.end - 1)), columns: b.column }));
  return { propertyLines, blocks, pageProperties: pagePropertiesOf(text, bodyStart, outline), isOutline: dedent.length > 0 || isOutlineBody(text, bodyStart, outline), dedent };
}

/** Starts of the lines that are ATX headings at the margin (the outline scan ignores those inside code itself). */
function atxHeadings(text: string, bodyStart: number): number[] {
  const starts: number[] = [];
  const heading = /^#{1,6}(?:[ \t]|$)/gm;
  heading.lastIndex = bodyStart;
  for (let match = heading.exec(text); match; match = heading.exec(text)) {
    starts.push(match.index);
    heading.lastIndex = match.index + 1;
  }
  return starts;
}

function pagePropertiesOf(text: string, bodyStart: number, outline: NoteOutline): Array<[string, string]> {
  const first = outline.blocks[0];
  const lines = outline.propertyLines.filter((p) => {
    if (p.block === -1) return !/\S/.test(textOutside(text, bodyStart, p.start, outline));
    return p.block === 0 && first !== undefined && outline.propertyLines.some((q) => q.start === first.start);
  });
  return lines.map((p) => {
    const raw = /^[ \t]*(?:[-*+][ \t]+)?([^:\s]+)::/.exec(text.slice(p.start, p.end));
    return [raw?.[1] ?? p.key, p.value.replace(/\[\[([^\]]*)\]\]/g, '$1')];
  });
}

/** The text between the body's start and `end` that is not a property line (page properties come before any text). */
function textOutside(text: string, from: number, end: number, outline: NoteOutline): string {
  let rest = '';
  let at = from;
  for (const p of outline.propertyLines) {
    if (p.start >= end) break;
    if (p.start > at) rest += text.slice(at, p.start);
    at = Math.max(at, p.end);
  }
  if (at < end) rest += text.slice(at, end);
  return rest;
}

function isOutlineBody(text: string, bodyStart: number, outline: NoteOutline): boolean {
  if (outline.blocks.length === 0) return false;
  const top = outline.blocks.filter((b) => b.parent === -1);
  const covered = [...top.map((b) => [b.start, b.end] as const), ...outline.propertyLines.map((p) => [p.start, p.end] as const)].sort((a, b) => a[0] - b[0]);
  // Outside the blocks: only blank lines and headings.
  const prose = (from: number, to: number) => text.slice(from, to).split('\n').some((line) => /\S/.test(line) && !/^#{1,6}(?:[ \t]|$)/.test(line));
  let at = bodyStart;
  for (const [start, end] of covered) {
    if (start > at && prose(at, start)) return false;
    at = Math.max(at, end);
  }
  return !prose(at, text.length);
}
