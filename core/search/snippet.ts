// A result's snippet: a window of the chunk text around the first word the search matched, as plain-text segments
// with the matched words flagged. Words are cut and compared with the keyword index's own tokenizer, so what is
// marked is what the keyword search matches: a word whose terms one of the query's terms begins (as-you-type prefix).
import type { SnippetSegment } from '../contract/search.js';
import { foldAccents, tokenizeForSearch } from '../indices/searchTokenizer.js';
import { renderInline } from '../contract/inlineText.js';
import { closesFence, FENCE_OPEN, FOOTNOTE_LABEL } from './answerUnits.js';

const WINDOW = 260;
/** Footnote labels ("[^1]: ") on any line: answers read a footnote without its label too. */
const FOOTNOTE_LABELS = new RegExp(FOOTNOTE_LABEL.source, 'gm');

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** A run of CJK text (matched as the index does with bigrams: a term anywhere in it), or a word with its joiners (`Get-ChildItem`, `Node.js`, `C++`). */
const WORD = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆]+)|[$.]?[\p{L}\p{M}\p{N}_]+(?:[.\-+#][\p{L}\p{M}\p{N}_]+)*[+#]*/gu;

/**
 * The chunk's Markdown as one line of readable text: block syntax (headings, table borders, list and quote markers,
 * callout types, reference definitions) dropped, inline Markdown rendered as answers and headings render it
 * (`renderInline`), fenced code kept as its text.
 */
export function plainText(markdown: string): string {
  return codeAndProse(markdown)
    .map(({ code, text }) => (code ? text.replace(/\s+/g, ' ').trim() : proseText(text)))
    .filter(Boolean)
    .join(' ')
    .replace(/(?:\s*·\s*)+/g, ' · ')
    .replace(/^ · | · $/g, '')
    .trim();
}

function proseText(markdown: string): string {
  const blocks = markdown
    // The chunk's own heading is already shown as the breadcrumb.
    .replace(/^(?:\s*#{1,6}\s[^\n]*\n)+/, '')
    .replace(/^#{1,6}\s+/gm, '')
    // Wikilinks first: inside a table their alias bar is written "\|", which must not read as a cell border.
    .replace(/!?\[\[([^\]|#\\]*)(?:#[^\]|\\]*)?(?:\\?\|([^\]]*))?\]\]/g, (_m, target: string, alias?: string) => alias ?? target)
    // Table separator rows, then cell borders (an escaped "\|" is a pipe in the text).
    .replace(/^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-{0,}:?\s*$/gm, '')
    .replace(/\s*(?<!\\)\|[ \t]*/g, ' · ')
    // Task list boxes, then list bullets and numbers, quote markers and callout types ("> [!note] Title").
    .replace(/^(\s*(?:[-*+]|\d+[.)])\s+)\[([ xX])\]\s+/gm, (_m, bullet: string, mark: string) => `${bullet}${mark === ' ' ? '☐' : '☑'} `)
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .replace(/^(?:\s*>\s?)+/gm, '')
    .replace(/^\[![\w-]+\][+-]?[ \t]*/gm, '')
    // Link reference definitions ("[id]: https://… "Title""); footnote definitions ("[^1]: …") are text.
    .replace(/^ {0,3}\[(?!\^)[^\]]+\]:[ \t]*(?:<[^>\n]*>|\S+)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$/gm, '')
    .replace(FOOTNOTE_LABELS, '');
  return renderInline(blocks.replace(/\\\|/g, '\u0001')).replace(/\u0001/g, '|');
}

/** The text in runs of prose and of fenced code (its fence lines, with their info string, left out). */
function codeAndProse(markdown: string): Array<{ code: boolean; text: string }> {
  if (!/^ {0,3}(?:```|~~~)/m.test(markdown)) return [{ code: false, text: markdown }];
  const runs: Array<{ code: boolean; lines: string[] }> = [];
  const add = (code: boolean, line?: string) => {
    if (runs.at(-1)?.code !== code) runs.push({ code, lines: [] });
    if (line !== undefined) runs.at(-1)!.lines.push(line);
  };
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    if (fence === undefined) {
      fence = FENCE_OPEN.exec(line)?.[1];
      if (fence === undefined) add(false, line);
      else add(true);
    } else if (closesFence(line, fence)) fence = undefined;
    else add(true, line);
  }
  return runs.map(({ code, lines }) => ({ code, text: lines.join('\n') }));
}

/**
 * `markdown` as a snippet with the words matching `terms` (SearchResponse/AskResponse `highlightTerms`) marked: the
 * window starts a little before the first match; with no terms or no match, the text's beginning.
 */
export function buildSnippet(markdown: string, terms: readonly string[]): SnippetSegment[] {
  const text = plainText(markdown);
  if (terms.length === 0) return [{ text: cut(text, 0), match: false }];
  const matcher = termMatcher(terms);
  const first = matchedSpans(text, matcher, 1)[0];
  const window = cut(text, first ? Math.max(0, first[0] - Math.floor(WINDOW / 3)) : 0);
  const segments: SnippetSegment[] = [];
  let last = 0;
  for (const [start, end] of matchedSpans(window, matcher)) {
    if (start > last) segments.push({ text: window.slice(last, start), match: false });
    segments.push({ text: window.slice(start, end), match: true });
    last = end;
  }
  if (last < window.length) segments.push({ text: window.slice(last), match: false });
  return segments;
}

interface TermMatcher {
  /** Folded query terms a word's index terms are compared with (by prefix). */
  words: string[];
  /** CJK query terms, found anywhere in a CJK run. */
  cjk: string[];
}

function termMatcher(terms: readonly string[]): TermMatcher {
  const folded = terms.map((t) => foldAccents(t.toLowerCase()));
  return { words: folded.filter((t) => !CJK.test(t)), cjk: folded.filter((t) => CJK.test(t)) };
}

/** [start, end) of the matched words of `text`, in order; at most `limit`. */
function matchedSpans(text: string, matcher: TermMatcher, limit = Infinity): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const word of text.matchAll(WORD)) {
    if (spans.length >= limit) break;
    const start = word.index;
    if (word[1] !== undefined) {
      spans.push(...cjkSpans(word[0], start, matcher.cjk));
    } else if (matcher.words.length && tokenizeForSearch(word[0]).some((term) => matcher.words.some((q) => term.startsWith(q)))) {
      spans.push([start, start + word[0].length]);
    }
  }
  return spans.slice(0, limit);
}

/** The non-overlapping occurrences of the CJK terms in a CJK run, longest term first where two start together. */
function cjkSpans(run: string, offset: number, terms: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < run.length && terms.length; ) {
    const term = terms.filter((t) => run.startsWith(t, i)).sort((a, b) => b.length - a.length)[0];
    if (term) {
      spans.push([offset + i, offset + i + term.length]);
      i += term.length;
    } else i++;
  }
  return spans;
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
