// A result's snippet: a window of the chunk text around the first query term it contains, cut into plain-text
// segments with the matched terms flagged. The UI renders segments as text nodes (<mark> for matches), so
// nothing of the note is ever parsed as HTML here.

export interface SnippetSegment {
  text: string;
  match: boolean;
}

const WINDOW = 260;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches a term at the start of a word ("chunk" in "chunks", not "is" in "this"); CJK terms anywhere. */
function termPattern(terms: readonly string[]): RegExp {
  const alternatives = terms.map((t) => (CJK.test(t) ? escapeRegExp(t) : `(?<![\\p{L}\\p{N}])${escapeRegExp(t)}`));
  return new RegExp(alternatives.join('|'), 'giu');
}

/** The chunk's Markdown as one line of readable text. */
export function plainText(markdown: string): string {
  return (
    markdown
      // The chunk's own heading is already shown as the breadcrumb.
      .replace(/^(?:\s*#{1,6}\s[^\n]*\n)+/, '')
      .replace(/^#{1,6}\s+/gm, '')
      // Wikilinks first: inside a table their alias bar is written "\|", which must not read as a cell border.
      .replace(/!?\[\[([^\]|#\\]*)(?:#[^\]|\\]*)?(?:\\?\|([^\]]*))?\]\]/g, (_m, target: string, alias?: string) => alias ?? target)
      // Table separator rows, then cell borders (an escaped "\|" is a pipe in the text).
      .replace(/^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-{0,}:?\s*$/gm, '')
      .replace(/\s*(?<!\\)\|[ \t]*/g, ' · ')
      .replace(/\\\|/g, '|')
      // Task list boxes, then list bullets and numbers, quote markers.
      .replace(/^(\s*(?:[-*+]|\d+[.)])\s+)\[([ xX])\]\s+/gm, (_m, bullet: string, mark: string) => `${bullet}${mark === ' ' ? '☐' : '☑'} `)
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
      .replace(/^\s*>\s?/gm, '')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      // Emphasis markers, but not the underscores inside words such as max_chunk_chars.
      .replace(/\*{1,3}([^*\n]+?)\*{1,3}/g, '$1')
      .replace(/(^|[^\p{L}\p{N}])_{1,3}([^_\n]+?)_{1,3}(?![\p{L}\p{N}])/gu, '$1$2')
      .replace(/`+/g, '')
      .replace(/(?:\s*·\s*)+/g, ' · ')
      .replace(/\s+/g, ' ')
      .replace(/^ · | · $/g, '')
      .trim()
  );
}

/** `terms`: the words the core searched for (SearchResponse/AskResponse `highlightTerms`), longest first. */
export function buildSnippet(markdown: string, terms: readonly string[]): SnippetSegment[] {
  const text = plainText(markdown);
  if (terms.length === 0) return [{ text: cut(text, 0), match: false }];
  const pattern = termPattern(terms);
  const first = new RegExp(pattern.source, 'iu').exec(text);
  const start = first ? Math.max(0, first.index - Math.floor(WINDOW / 3)) : 0;
  const window = cut(text, start);
  const segments: SnippetSegment[] = [];
  let last = 0;
  for (const match of window.matchAll(pattern)) {
    if (match.index > last) segments.push({ text: window.slice(last, match.index), match: false });
    segments.push({ text: match[0], match: true });
    last = match.index + match[0].length;
  }
  if (last < window.length) segments.push({ text: window.slice(last), match: false });
  return segments;
}

/** WINDOW characters from `start`, moved to word boundaries, with ellipses where text was left out. */
function cut(text: string, start: number): string {
  let from = start;
  if (from > 0) {
    const space = text.indexOf(' ', from);
    from = space >= 0 && space - from < 20 ? space + 1 : from;
  }
  let to = Math.min(text.length, from + WINDOW);
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    if (space > from + WINDOW / 2) to = space;
  }
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}
