/**
 * Text as a reader of the rendered note sees it: inline Markdown without its markers, character references decoded.
 * In the contract because every surface names passages by their headings the same way (the app, the CLI, answers).
 */

/**
 * Inline Markdown rendered to the text a reader sees: code spans, emphasis, wikilinks, links and images lose their
 * markers, keep their text. Code spans are rendered first so the markers inside them stay literal.
 */
export function renderInline(text: string): string {
  // Plain prose, with none of the characters any rule below starts from, only has its spaces evened out.
  if (!MARKUP_START.test(text)) return text.replace(/\s+/g, ' ').trim();
  const spans: string[] = [];
  // A code span's content is kept verbatim behind a placeholder, so rules below never touch it.
  let out = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, _ticks: string, code: string) => `\u0000${spans.push(code.trim()) - 1}\u0000`);
  // Escaped characters are literal text: kept the same way, so "\*" never opens emphasis.
  out = out.replace(/\\([\\`*_{}[\]()#+\-.!|~<>])/g, (_, char: string) => `\u0000${spans.push(char) - 1}\u0000`);
  out = out
    .replace(/!\[\[[^\]]*\]\]/g, '')
    .replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
    .replace(/\[\[([^\]]*)\]\]/g, (_, target: string) => target.replace(/#\^?/g, ' > ').replace(/^ > /, ''))
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[\^[^\]]+\]/g, '')
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, '$1')
    .replace(/!?\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
    .replace(/\{\{[<%][\s\S]*?[%>]\}\}/g, '')
    // An HTML comment is not shown on the page (a to-do, a linter directive).
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ')
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
    // A strong-emphasis marker left without its pair: the sentence ended inside the emphasis ("**due dates … urgency.**").
    .replace(/\*\*/g, '')
    .replace(/(^|[^\p{L}\p{N}*])\*(?=\S)([^*]*?\S)\*(?![\p{L}\p{N}])/gu, '$1$2')
    .replace(/(^|[^\p{L}\p{N}_])_(?=\S)([^_]*?\S)_(?![\p{L}\p{N}])/gu, '$1$2')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
    .replace(/==(?=\S)([\s\S]*?\S)==/g, '$1');
  out = out.replace(/&(#\d{1,7}|#x[\da-f]{1,6}|[a-z]{2,8});/gi, (entity, name: string) => decodeEntity(name) ?? entity);
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => spans[Number(i)]).replace(/\s+/g, ' ').trim();
}

/** Every character a rule of `renderInline` needs to match (and its own placeholder mark). */
const MARKUP_START = /[`\\[!<{*_~=&\u0000]/;

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", ndash: '\u2013', mdash: '\u2014', hellip: '\u2026',
  reg: '\u00ae', copy: '\u00a9', trade: '\u2122', euro: '\u20ac', times: '\u00d7', rarr: '\u2192', larr: '\u2190',
  laquo: '\u00ab', raquo: '\u00bb', lsquo: '\u2018', rsquo: '\u2019', ldquo: '\u201c', rdquo: '\u201d', middot: '\u00b7',
};

/** An HTML character reference as the reader sees it ("&nbsp;" a space, "&#124;" a bar); unknown names stay. */
function decodeEntity(name: string): string | undefined {
  if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()];
  const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/** A heading as the page shows it: no code ticks or emphasis markers, "2nd&ndash;4th" as "2nd–4th". */
export function shownHeading(heading: string): string {
  return renderInline(heading) || heading;
}

/** A header path as the page shows it; a blank heading names nothing and is left out. */
export function shownHeaderPath(headerPath: readonly string[]): string[] {
  return headerPath.map(shownHeading).filter((heading) => heading.trim() !== '');
}

/**
 * The headings a citation names after the note's title, as the page shows them: a first heading that repeats the
 * title is left out ("Sorting § Sorting › Random sorting" says it twice).
 */
export function shownHeadings(title: string, headerPath: readonly string[]): string[] {
  const shown = shownHeaderPath(headerPath);
  return shown.length && shown[0] === shownHeading(title) ? shown.slice(1) : shown;
}
