// markdown-it plugin: Logseq outline syntax rendered as the outliner shows it, not as raw text.
// - `key:: value` property lines (found by the core's outline scan: NoteView.outline) are not rendered; a bullet
//   left with nothing in it (a block of properties only) disappears.
// - Blocks carrying `id::` get data-block-id (so `((uuid))` and [[Page#^uuid]] can scroll to them); `heading:: true`
//   blocks render their first line as a heading; in an outline every block's first lines are a <p> with its own
//   source lines, so that a citation highlights the cited block and not its whole parent.
// - `((uuid))`, `[label](((uuid)))` and `{{embed ((uuid))}}` show the referenced block's text as an in-app link (the
//   note view scrolls to the block, or opens the note holding it); an unknown uuid reads "missing block".
// - `{{embed [[Page]]}}` is an embed link like ![[Page]]; other macros (`{{query …}}`, `{{renderer …}}`…) are a muted label.
// - `#+BEGIN_QUERY`/`SRC`/`EXAMPLE`… regions are code blocks; `#+BEGIN_NOTE`/`TIP`/`QUOTE`… are boxed Markdown.
// Line numbers are those of the whole file: the source-line attributes stay exact.
import type MarkdownIt from 'markdown-it';
import type { StateBlock, StateCore, StateInline, Token } from 'markdown-it';
import type { BlockRefView, NoteOutlineView } from '../../../core/contract/appApi.ts';
import type { SourceLineEnv } from './sourceLines.ts';
import { parseWikilink } from './wikilinks.ts';

export interface LogseqEnv extends SourceLineEnv {
  outline?: NoteOutlineView;
  /** The outline's property lines, for lookups line by line. */
  propertyLines?: ReadonlySet<number>;
  /** uuid (lower-cased) → the referenced block; a uuid not here is a missing block. */
  blockRefs?: Record<string, BlockRefView>;
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const BLOCK_REF = new RegExp(`\\(\\((${UUID})\\)\\)`, 'g');
const LABELLED_REF = new RegExp(`^\\[([^\\]\\n]*)\\]\\(\\(\\((${UUID})\\)\\)\\)`);
const EMBED_BLOCK = new RegExp(`^embed[ \\t]+\\(\\((${UUID})\\)\\)[ \\t]*$`, 'i');
const EMBED_PAGE = /^embed[ \t]+\[\[([^\]\n]+)\]\][ \t]*$/i;
const MACRO_NAME = /^\{\{([A-Za-z][\w-]*)/;
const BEGIN = /^#\+BEGIN_([A-Za-z]+)\b[ \t]*(.*)$/i;
const CODE_KINDS = new Set(['QUERY', 'SRC', 'EXAMPLE', 'EXPORT', 'COMMENT']);

interface BlockRefMeta {
  uuid: string;
  label?: string;
  embed: boolean;
}

/** 1-based file line of a body line. */
function fileLine(env: LogseqEnv, line: number): number {
  return line + env.lineOffset + 1;
}

/** Property lines: consumed, nothing rendered. Also ends a paragraph (a property line is never prose). */
function propertyRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const env = state.env as LogseqEnv;
  const lines = env.propertyLines;
  if (!lines?.has(fileLine(env, startLine))) return false;
  // `- key:: value` opens a block: the list rule makes the item, and meets the line again inside it without its bullet.
  if (/^[-*+][ \t]/.test(lineText(state, startLine))) return false;
  if (silent) return true;
  let line = startLine + 1;
  while (line < endLine && lines.has(fileLine(env, line)) && state.sCount[line] >= state.blkIndent && !/^[-*+][ \t]/.test(lineText(state, line))) line++;
  state.line = line;
  return true;
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

/** `#+BEGIN_KIND … #+END_KIND`: a code block, or for the prose kinds a box around the Markdown inside. */
function beginRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const open = BEGIN.exec(lineText(state, startLine));
  if (!open) return false;
  if (silent) return true;
  const kind = open[1].toUpperCase();
  const endMarker = new RegExp(`^#\\+END_${kind}\\b`, 'i');
  let line = startLine + 1;
  let closed = false;
  for (; line < endLine; line++) {
    const text = lineText(state, line);
    // Unclosed: the region ends where its block does.
    if (text !== '' && state.sCount[line] < state.blkIndent) break;
    if (endMarker.test(text)) {
      closed = true;
      break;
    }
  }
  const next = closed ? line + 1 : line;
  if (CODE_KINDS.has(kind)) {
    const token = state.push('fence', 'code', 0);
    token.info = kind === 'SRC' ? open[2].trim() : kind.toLowerCase();
    token.content = state.getLines(startLine + 1, line, state.blkIndent, true);
    token.markup = '```';
    token.map = [startLine, next];
  } else {
    const boxOpen = state.push('logseq_box_open', 'div', 1);
    boxOpen.attrSet('class', `logseq-box logseq-box-${kind.toLowerCase()}`);
    boxOpen.attrSet('data-kind', kind.toLowerCase());
    boxOpen.map = [startLine, next];
    const lineMax = state.lineMax;
    state.lineMax = line;
    state.md.block.tokenize(state, startLine + 1, line);
    state.lineMax = lineMax;
    state.push('logseq_box_close', 'div', -1);
  }
  state.line = next;
  return true;
}

/** Block ids and headings on list items; tight-list paragraphs shown (outlines); items left empty removed. */
function outlineBlocksRule(state: StateCore): void {
  const env = state.env as LogseqEnv;
  const outline = env.outline;
  if (!outline) return;
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type !== 'list_item_open' || !token.map) continue;
    const block = outline.blocks[fileLine(env, token.map[0])];
    if (block?.uuid) token.attrSet('data-block-id', block.uuid);
    const first = tokens[i + 1];
    if (block?.headingLevel && first?.type === 'paragraph_open' && tokens[i + 3]?.type === 'paragraph_close') {
      first.tag = tokens[i + 3].tag = `h${block.headingLevel}`;
      first.hidden = tokens[i + 3].hidden = false;
    }
  }
  if (outline.isOutline) for (const token of tokens) if (token.type === 'paragraph_open' || token.type === 'paragraph_close') token.hidden = false;
  // A bullet holding only properties (a page-properties block) is not shown; nor is a list left without items.
  const kept: Token[] = [];
  const opened: number[] = [];
  for (const token of tokens) {
    if (/^(list_item|bullet_list|ordered_list)_open$/.test(token.type)) {
      opened.push(kept.length);
      kept.push(token);
    } else if (/^(list_item|bullet_list|ordered_list)_close$/.test(token.type)) {
      const at = opened.pop()!;
      if (kept.length === at + 1) kept.pop();
      else kept.push(token);
    } else kept.push(token);
  }
  state.tokens = kept;
}

/** `((uuid))` inside text: markdown-it's text rule runs over parentheses, so references are cut out of text tokens. */
function blockRefTextRule(state: StateCore): void {
  for (const token of state.tokens) {
    if (token.type !== 'inline' || !token.children) continue;
    const children: Token[] = [];
    for (const child of token.children) {
      if (child.type !== 'text' || !child.content.includes('((')) {
        children.push(child);
        continue;
      }
      let last = 0;
      for (const match of child.content.matchAll(BLOCK_REF)) {
        if (match.index > last) children.push(textToken(state, child.content.slice(last, match.index), child.level));
        const ref = new state.Token('logseq_block_ref', 'a', 0);
        ref.level = child.level;
        ref.meta = { uuid: match[1].toLowerCase(), embed: false } satisfies BlockRefMeta;
        children.push(ref);
        last = match.index + match[0].length;
      }
      if (last === 0) children.push(child);
      else if (last < child.content.length) children.push(textToken(state, child.content.slice(last), child.level));
    }
    token.children = children;
  }
}

function textToken(state: StateCore, content: string, level: number): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  token.level = level;
  return token;
}

/** `[label](((uuid)))`: a labelled block reference (before markdown-it reads it as a link). */
function labelledRefRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5b /* [ */) return false;
  const match = LABELLED_REF.exec(state.src.slice(state.pos));
  if (!match) return false;
  if (!silent) {
    const token = state.push('logseq_block_ref', 'a', 0);
    token.meta = { uuid: match[2].toLowerCase(), label: match[1].trim() || undefined, embed: false } satisfies BlockRefMeta;
  }
  state.pos += match[0].length;
  return true;
}

/** `{{…}}` macros: block and page embeds, and the others (queries, renderers, videos…) as a label. */
function macroRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x7b || src.charCodeAt(pos + 1) !== 0x7b) return false;
  const name = MACRO_NAME.exec(src.slice(pos));
  if (!name) return false;
  // The closing }} that balances the braces (queries hold {…} maps).
  let depth = 0;
  let end = -1;
  for (let i = pos; i < state.posMax; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x7b) depth++;
    else if (c === 0x7d) {
      depth--;
      if (depth === 0) {
        end = i + 1;
        break;
      }
    }
  }
  if (end < 0 || src.slice(end - 2, end) !== '}}') return false;
  if (!silent) {
    const inner = src.slice(pos + 2, end - 2).trim();
    const embedBlock = EMBED_BLOCK.exec(inner);
    const embedPage = EMBED_PAGE.exec(inner);
    if (embedBlock) {
      state.push('logseq_block_ref', 'a', 0).meta = { uuid: embedBlock[1].toLowerCase(), embed: true } satisfies BlockRefMeta;
    } else if (embedPage) {
      state.push('wikilink', 'a', 0).meta = parseWikilink(embedPage[1], true);
    } else {
      const token = state.push('logseq_macro', 'span', 0);
      token.meta = { name: name[1].toLowerCase() };
    }
  }
  state.pos = end;
  return true;
}

/** The referenced block's text as a line of plain text: links, emphasis and markers reduced to their words. */
export function plainBlockText(text: string): string {
  return text
    .replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
    .replace(/\[\[([^\]]*)\]\]/g, '$1')
    .replace(/\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
    .replace(/(\*\*|__|~~|==)(.+?)\1/g, '$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\{\{[^}]*\}\}/g, '')
    .replace(/#\+(?:BEGIN|END)_[A-Za-z]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function logseqPlugin(md: MarkdownIt): void {
  md.block.ruler.before('table', 'logseq_property', propertyRule, { alt: ['paragraph'] });
  md.block.ruler.before('fence', 'logseq_begin', beginRule, { alt: ['paragraph'] });
  md.inline.ruler.before('link', 'logseq_labelled_ref', labelledRefRule);
  md.inline.ruler.before('link', 'logseq_macro', macroRule);
  md.core.ruler.after('block', 'logseq_blocks', outlineBlocksRule);
  md.core.ruler.after('text_join', 'logseq_block_refs', blockRefTextRule);
  const escape = md.utils.escapeHtml;
  md.renderer.rules.logseq_block_ref = (tokens, idx, _options, env: LogseqEnv) => {
    const ref = tokens[idx].meta as BlockRefMeta;
    const target = env.blockRefs && Object.hasOwn(env.blockRefs, ref.uuid) ? env.blockRefs[ref.uuid] : undefined;
    if (!target) {
      const shown = ref.label ?? 'missing block';
      return `<span class="block-ref missing${ref.embed ? ' block-embed' : ''}" title="The referenced block is in no note of this vault">${escape(shown)}</span>`;
    }
    const text = ref.label ?? (plainBlockText(target.text) || 'empty block');
    const link = `<a href="#" class="block-ref" data-block-ref="${escape(ref.uuid)}" data-block-path="${escape(target.path)}" title="${escape(target.path)}, line ${target.line}">${escape(text)}</a>`;
    return ref.embed ? `<span class="block-embed"><span class="embed-mark" aria-hidden="true">↪ </span>${link}</span>` : link;
  };
  md.renderer.rules.logseq_macro = (tokens, idx) => {
    const name = (tokens[idx].meta as { name: string }).name;
    return `<span class="logseq-macro" data-macro="${escape(name)}" title="A Logseq ${escape(name)} macro: shown in Logseq, not here">${escape(name)}</span>`;
  };
}
