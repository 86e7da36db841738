import { QUERY_STOP_WORDS } from '../indices/searchTokenizer.js';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The words of a query (or question) that the app marks in snippets: its words in any script, less the words that
 * shape a question rather than name its subject, with the same stop list the keyword search uses, so what is
 * highlighted is what was searched for. Longest first, so "chunking" is marked rather than "chunk" where both match.
 */
export function highlightTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const terms = words.filter((w) => CJK.test(w) || (w.length >= 2 && !QUERY_STOP_WORDS.has(w)));
  return [...new Set(terms)].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
}
