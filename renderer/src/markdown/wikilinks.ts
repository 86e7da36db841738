// markdown-it plugin: Obsidian wikilinks [[Target]], [[Target|alias]], [[Target#Heading]], [[#Heading]] and
// embeds ![[Target]] become in-app links. They are plain <a> elements carrying the target in data attributes; the
// note view resolves them through the api (resolveLink) and marks the unresolved ones.
import type MarkdownIt from 'markdown-it';
import type { StateInline } from 'markdown-it';

export interface Wikilink {
  target: string;
  heading: string | null;
  label: string;
  embed: boolean;
}

/** Splits the inside of [[…]]: target, optional #heading (or #^block), optional |alias ("\|" inside tables). */
export function parseWikilink(inner: string, embed = false): Wikilink {
  const bar = inner.search(/\\?\|/);
  const reference = (bar >= 0 ? inner.slice(0, bar) : inner).trim();
  const alias = bar >= 0 ? inner.slice(bar).replace(/^\\?\|/, '').trim() : '';
  const hash = reference.indexOf('#');
  const target = (hash >= 0 ? reference.slice(0, hash) : reference).trim();
  // "#^id" names a block (kept with its caret); "#Heading" a heading.
  const heading = hash >= 0 ? reference.slice(hash + 1).trim() || null : null;
  const shownHeading = heading?.replace(/^\^/, '');
  const shown = shownHeading ? (target ? `${target} › ${shownHeading}` : shownHeading) : target;
  return { target, heading, label: alias || shown, embed };
}

function wikilinkRule(state: StateInline, silent: boolean): boolean {
  const { src } = state;
  const embed = src.charCodeAt(state.pos) === 0x21; /* ! */
  const open = embed ? state.pos + 1 : state.pos;
  if (src.charCodeAt(open) !== 0x5b || src.charCodeAt(open + 1) !== 0x5b) return false;
  const close = src.indexOf(']]', open + 2);
  if (close < 0) return false;
  const inner = src.slice(open + 2, close);
  if (!inner.trim() || inner.includes('\n') || inner.includes('[[')) return false;
  if (!silent) {
    const token = state.push('wikilink', 'a', 0);
    token.meta = parseWikilink(inner, embed);
  }
  state.pos = close + 2;
  return true;
}

export function wikilinkPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('link', 'wikilink', wikilinkRule);
  md.renderer.rules.wikilink = (tokens, idx) => {
    const link = tokens[idx].meta as Wikilink;
    const escape = md.utils.escapeHtml;
    const classes = link.embed ? 'wikilink embed' : 'wikilink';
    const marker = link.embed ? '<span class="embed-mark" aria-hidden="true">↪ </span>' : '';
    return `<a href="#" class="${classes}" data-wikilink="${escape(link.target)}" data-heading="${escape(link.heading ?? '')}">${marker}${escape(link.label)}</a>`;
  };
}
