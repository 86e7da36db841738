/**
 * The one tokenizer of the keyword index, for documents and queries alike, so both sides agree on every term.
 *
 * Terms are lowercased and accent-folded. Code-ish tokens are kept whole and also split into their parts, so
 * `Get-ChildItem` is found by `get-childitem`, `childitem` or `child item`, and `Node.js` by `node`.
 *
 * CJK text has no spaces. Each run of Han/Hiragana/Katakana/Hangul is cut into words with `Intl.Segmenter`
 * (ICU's dictionary) and, in addition, into overlapping character bigrams: the dictionary alone misses a query
 * word that it segments differently inside a longer compound (`検索` in `全文検索`), while bigrams always
 * contain every two-character piece of the query. Two-character dictionary words are exactly bigrams, so only
 * words of another length are added on top.
 */

import { stemmer } from 'stemmer';

/** Words that shape a question ("how do I", "what is", "something like") rather than name its subject: never matched. */
export const QUERY_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'could', 'did', 'do', 'does', 'for', 'from',
  'had', 'has', 'have', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'like', 'me', 'my', 'of', 'on', 'or', 'our',
  'should', 'so', 'than', 'that', 'the', 'their', 'them', 'then', 'there', 'these', 'they', 'this', 'those', 'to',
  'was', 'we', 'were', 'what', 'when', 'where', 'which', 'who', 'why', 'will', 'with', 'would', 'you', 'your',
]);

const CJK_CHARS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆`;
const WORD_CHAR = String.raw`[[\p{L}\p{M}\p{N}_]--[${CJK_CHARS}]]`;
/**
 * One pass over the text. Groups: 1 CJK run; 2 sigil (`$` of a variable, `.` of `.NET`); 3 first word run;
 * 4 further runs joined by `.`, `-`, `+`, `#`; 5 trailing `+`/`#` (`C++`, `C#`).
 */
const TOKEN = new RegExp(
  String.raw`([${CJK_CHARS}]+)|([$.])?(${WORD_CHAR}+)((?:[.\-+#]${WORD_CHAR}+)*)([+#]*)`,
  'gv',
);
const PART_SEPARATOR = /[.\-+#_]+/;
const NON_ASCII = /[^\x00-\x7f]/;
// Only the diacritic blocks: stripping every \p{M} would break kana voicing marks and Indic vowel signs.
const DIACRITICS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;
const SURROGATE = /[\ud800-\udfff]/;
const UNDERSCORES_ONLY = /^_+$/;
// Below this length a base name before `++`/`#` is a language letter (C, F, J) rather than a word.
const MIN_SUFFIXED_BASE = 3;

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

export function tokenizeForSearch(text: string): string[] {
  const terms: string[] = [];
  scanTerms(text, terms);
  return terms;
}

/** NFKD, diacritics removed, then NFC again so Hangul syllables and voiced kana recompose. */
export function foldAccents(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.normalize('NFKD').replace(DIACRITICS, '').normalize('NFC');
}

/**
 * Appends the terms of `input` to `terms`; when `tokens` is given, also the ordinal of the source token of each
 * term (a token's first term is the whole token). No closures here: this runs once per indexed chunk.
 */
export function scanTerms(input: string, terms: string[], tokens?: number[]): void {
  const text = foldAccents(input);
  const lowered = text.toLowerCase();
  // Lowercasing can change the length (U+0130), and then offsets into `lowered` would be wrong.
  const aligned = lowered.length === text.length;
  let token = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const firstTerm = terms.length;
    const raw = m[0];
    if (m[1] !== undefined) {
      emitCjkRun(raw, terms);
    } else {
      const low = aligned ? lowered.slice(m.index, m.index + raw.length) : raw.toLowerCase();
      const sigil = m[2];
      const suffix = m[5]!;
      if (sigil === undefined && m[4] === '' && suffix === '' && !raw.includes('_')) {
        terms.push(low);
        if (raw !== low) pushCamelParts(raw, low, terms);
      } else {
        emitCompound(raw, low, sigil ?? '', suffix, terms);
      }
    }
    if (tokens) for (let i = firstTerm; i < terms.length; i++) tokens.push(token);
    token++;
  }
}

function emitCompound(raw: string, low: string, sigil: string, suffix: string, terms: string[]): void {
  const first = terms.length;
  if (!UNDERSCORES_ONLY.test(low)) terms.push(low);
  const body = raw.slice(sigil.length, raw.length - suffix.length);
  const bodyLow = low.slice(sigil.length, low.length - suffix.length);
  if (suffix === '' || bodyLow.length >= MIN_SUFFIXED_BASE) pushPart(bodyLow, terms, first);
  const segments = body.split(PART_SEPARATOR);
  for (const segment of segments) {
    const segmentLow = segment.toLowerCase();
    if (segments.length > 1) pushPart(segmentLow, terms, first);
    if (segment !== segmentLow) pushCamelParts(segment, segmentLow, terms, first);
  }
}

function pushCamelParts(word: string, wordLow: string, terms: string[], first = terms.length - 1): void {
  const parts = camelParts(word, wordLow);
  if (parts.length > 1) for (const part of parts) pushPart(part, terms, first);
}

/** Adds a part unless empty, only underscores, or already among this token's terms (from `first` on). */
function pushPart(part: string, terms: string[], first: number): void {
  if (part === '' || UNDERSCORES_ONLY.test(part)) return;
  for (let i = first; i < terms.length; i++) if (terms[i] === part) return;
  terms.push(part);
}

/**
 * Splits at lower→Upper (`childItem`) and at the last capital of a capital run before a lowercase letter
 * (`HTTPResponse`), but not before a plural "s" (`URLs`, `IDs`). Letters and digits stay together (`Win32`).
 */
function camelParts(segment: string, segmentLow: string): string[] {
  if (segment.length !== segmentLow.length) return [segmentLow];
  const parts: string[] = [];
  let from = 0;
  for (let i = 1; i < segment.length; i++) {
    if (segment[i] === segmentLow[i]) continue;
    const afterLower = segment[i - 1] === segmentLow[i - 1];
    const pluralTail = i + 2 === segment.length && segmentLow[i + 1] === 's';
    const next = segment[i + 1];
    const nextIsLower = next !== undefined && next === segmentLow[i + 1] && next !== next.toUpperCase();
    const endsCapitalRun = !afterLower && nextIsLower && !pluralTail;
    if (afterLower || endsCapitalRun) {
      parts.push(segmentLow.slice(from, i));
      from = i;
    }
  }
  parts.push(segmentLow.slice(from));
  return parts;
}

function emitCjkRun(run: string, terms: string[]): void {
  const chars = SURROGATE.test(run) ? Array.from(run) : null;
  const length = chars ? chars.length : run.length;
  if (length <= 2) {
    terms.push(run);
    return;
  }
  for (const { segment, isWordLike } of wordSegmenter.segment(run)) {
    if (isWordLike && codePointLength(segment) !== 2) terms.push(segment);
  }
  for (let i = 0; i + 1 < length; i++) terms.push(chars ? chars[i]! + chars[i + 1]! : run.slice(i, i + 2));
}

function codePointLength(text: string): number {
  return SURROGATE.test(text) ? Array.from(text).length : text.length;
}

const PLAIN_WORD = /^[a-z]+$/;
/** Stems worked out, by term: a search stems the words of some 150 passages, mostly the same few thousand. */
const stems = new Map<string, string>();
/** About 2 MB: emptied when full. */
const MAX_STEMS = 50_000;

/**
 * A term's Porter stem (npm `stemmer`), so "tasks"/"task" and "sorting"/"sorted"/"sort" meet; a term that is not a
 * plain lowercase word (a number, a code name, CJK) is its own stem.
 */
export function stem(term: string): string {
  if (!PLAIN_WORD.test(term)) return term;
  let stemmed = stems.get(term);
  if (stemmed === undefined) {
    if (stems.size >= MAX_STEMS) stems.clear();
    stemmed = stemmer(term);
    stems.set(term, stemmed);
  }
  return stemmed;
}
