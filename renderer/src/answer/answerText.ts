// An answer's text (quoted sentences, or a model's reply) cut into blocks and inline pieces for React to render as
// text: paragraphs, lists, `code`, **strong**, *emphasis* and the [n] citation markers. Nothing of it is ever
// parsed as HTML, and links are reduced to their text: an answer must not be able to point anywhere by itself.

import { shownHeadings } from '../../../core/contract/inlineText.ts';

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong'; text: string }
  | { kind: 'em'; text: string }
  | { kind: 'marker'; n: number };

export type Block = { kind: 'paragraph'; inlines: Inline[] } | { kind: 'list'; ordered: boolean; items: Inline[][] };

const LIST_ITEM = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/;
const HEADING = /^\s*#{1,6}\s+(.*)$/;

/**
 * Wikilinks and embeds (shown by their alias or target), Markdown links (their text), code spans, strong and
 * emphasis, and markers: [1], [1][2], and while a model is still writing, its unchecked [1, 2] or [1; 2].
 */
const INLINE =
  /!?\[\[([^\]\n]+?)\]\]|!?\[([^\]\n]*)\]\([^)\n]*\)|`([^`\n]+)`|\*\*([^*\n]+?)\*\*|__([^_\n]+?)__|\[(\d+(?:\s*[,;]\s*\d+)*)\]|(?<![\p{L}\p{N}*\\])\*(?!\s)([^*\n]+?)\*(?![\p{L}\p{N}*])|(?<![\p{L}\p{N}_\\])_(?!\s)([^_\n]+?)_(?![\p{L}\p{N}_])/gu;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  const pushText = (t: string) => {
    if (!t) return;
    const last = out.at(-1);
    if (last?.kind === 'text') last.text += t;
    else out.push({ kind: 'text', text: t });
  };
  let at = 0;
  for (const match of text.matchAll(INLINE)) {
    pushText(text.slice(at, match.index));
    at = match.index + match[0].length;
    const [, wikilink, linkText, code, strong, strongUnderscore, markers, em, emUnderscore] = match;
    if (wikilink !== undefined) {
      const [target, alias] = wikilink.split('|');
      pushText(alias?.trim() || target.replace(/#\^?/, ' › ').trim());
    } else if (linkText !== undefined) pushText(linkText);
    else if (code !== undefined) out.push({ kind: 'code', text: code });
    else if (strong !== undefined || strongUnderscore !== undefined) out.push({ kind: 'strong', text: (strong ?? strongUnderscore)! });
    else if (markers !== undefined) for (const n of markers.split(/[,;]/)) out.push({ kind: 'marker', n: Number(n.trim()) });
    else if (em !== undefined || emUnderscore !== undefined) out.push({ kind: 'em', text: (em ?? emUnderscore)! });
  }
  pushText(text.slice(at));
  return out;
}

/**
 * A table row quoted from a note ("| key | default | meaning | [2]") as its cells joined by " · ", its markers
 * kept; '' for a separator row; null for any other line.
 */
function tableCells(line: string): string | null {
  const row = /^\s*\|(.*)\|\s*((?:\[\d+\])*)\s*$/.exec(line);
  if (!row) return null;
  const cells = row[1]
    .split('|')
    .map((cell) => cell.trim())
    .filter(Boolean);
  if (cells.every((cell) => /^:?-{3,}:?$/.test(cell))) return '';
  return `${cells.join(' · ')}${row[2] ? ` ${row[2]}` : ''}`;
}

/**
 * Blank lines separate paragraphs; "- ", "* " or "1. " lines are list items; a single line break inside a
 * paragraph is kept (the renderer shows it). Table rows become their cells joined by " · ".
 */
export function parseAnswer(text: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flushParagraph = () => {
    if (paragraph.length) blocks.push({ kind: 'paragraph', inlines: parseInline(paragraph.join('\n')) });
    paragraph = [];
  };
  const flushList = () => {
    if (list) blocks.push({ kind: 'list', ordered: list.ordered, items: list.items.map(parseInline) });
    list = null;
  };
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (!raw.trim()) {
      flushParagraph();
      flushList();
      continue;
    }
    const item = LIST_ITEM.exec(raw);
    if (item) {
      flushParagraph();
      const ordered = item[2] !== undefined;
      if (list && list.ordered !== ordered) flushList();
      list ??= { ordered, items: [] };
      const cells = tableCells(item[3]);
      if (cells !== '') list.items.push(cells ?? item[3]);
      continue;
    }
    flushList();
    const cells = tableCells(raw);
    if (cells === '') continue;
    const heading = HEADING.exec(raw);
    paragraph.push(cells ?? (heading ? `**${heading[1]}**` : raw.trim()));
  }
  flushParagraph();
  flushList();
  return blocks;
}

/** "Title § Header › Path": how a cited passage is named (a first heading repeating the title is left out). */
export function passageLabel(source: { title: string; headerPath: string[]; path: string }): string {
  const title = source.title || source.path.slice(source.path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  const headers = shownHeadings(title, source.headerPath);
  return headers.length ? `${title} § ${headers.join(' › ')}` : title;
}
