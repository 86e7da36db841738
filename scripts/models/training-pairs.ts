/**
 * (query-like text, passage) pairs for training the retrieval embedding table
 * (train-retrieval-model.ts), read from openly licensed sources only:
 *   - WordNet (Debian package wordnet-base): synonyms -> gloss, example sentence -> gloss;
 *   - tldr pages: "what it does" line -> command name, page description and command;
 *   - Markdown books: heading -> section text, and inverse cloze pairs;
 *   - documentation sets (Markdown or reStructuredText): heading, question heading or front matter description ->
 *     section prose, and inverse cloze pairs.
 * Never point these readers at ../shared/corpora or ../shared/eval: those are
 * what the model is judged on.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface TrainingPair {
  query: string;
  passage: string;
  /** Which reader made it (for the mix and the held-out figures). */
  source: string;
}

// ---------------------------------------------------------------- WordNet

const WORDNET_FILES = ['data.noun', 'data.verb', 'data.adj', 'data.adv'];

/**
 * One line of a WordNet data.* file: "offset lex_filenum ss_type w_cnt word lex_id ... | gloss".
 * Returns null for the licence header lines (they start with two spaces).
 */
export function parseWordnetLine(line: string): { lemmas: string[]; definition: string; examples: string[] } | null {
  if (line.startsWith(' ') || !line.includes(' | ')) return null;
  const [head, gloss] = [line.slice(0, line.indexOf(' | ')), line.slice(line.indexOf(' | ') + 3).trim()];
  const f = head.split(' ');
  const count = parseInt(f[3], 16);
  if (!Number.isFinite(count)) return null;
  const lemmas: string[] = [];
  for (let i = 0; i < count; i++) {
    // Adjective markers such as "galore(ip)" are syntax, not words.
    const w = (f[4 + 2 * i] ?? '').replace(/\([a-z]+\)$/, '').replace(/_/g, ' ');
    if (w && !lemmas.includes(w.toLowerCase())) lemmas.push(w.toLowerCase());
  }
  const examples = [...gloss.matchAll(/"([^"]+)"/g)].map((m) => m[1].trim()).filter((e) => e.length > 0);
  const firstQuote = gloss.indexOf('"');
  const definition = (firstQuote >= 0 ? gloss.slice(0, firstQuote) : gloss).replace(/[;\s]+$/, '').trim();
  return definition ? { lemmas, definition, examples } : null;
}

export async function wordnetPairs(dir: string): Promise<TrainingPair[]> {
  const pairs: TrainingPair[] = [];
  for (const file of WORDNET_FILES) {
    const text = await readFile(path.join(dir, file), 'utf8').catch((e: Error) => {
      throw new Error(`${path.join(dir, file)}: cannot read WordNet (apt-get install wordnet-base): ${e.message}`);
    });
    for (const line of text.split('\n')) {
      const s = parseWordnetLine(line);
      if (!s) continue;
      if (s.lemmas.length > 0) pairs.push({ query: s.lemmas.slice(0, 4).join(', '), passage: s.definition, source: 'wordnet-synonyms' });
      for (const ex of s.examples) pairs.push({ query: ex, passage: s.definition, source: 'wordnet-examples' });
    }
  }
  return pairs;
}

// ---------------------------------------------------------------- tldr pages

/** "[c]reate a g[z]ipped archive" -> "create a gzipped archive"; "{{path/to/file}}" -> "path/to/file". */
function tldrText(s: string) {
  return s.replace(/\{\{|\}\}/g, '').replace(/\[([^\]]*)\]/g, '$1').replace(/`/g, '').trim();
}

/** Pairs of one tldr page: each "- what it does:" line -> command name, page description and that command. */
export function tldrPagePairs(markdown: string): TrainingPair[] {
  const lines = markdown.split('\n');
  const title = lines.find((l) => l.startsWith('# '))?.slice(2).trim();
  if (!title) return [];
  const description = lines
    .filter((l) => l.startsWith('> ') && !/^> (More information|See also)/i.test(l))
    .map((l) => l.slice(2).trim())
    .join(' ');
  const pairs: TrainingPair[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('- ')) continue;
    const what = tldrText(lines[i].slice(2).replace(/:\s*$/, ''));
    const command = lines.slice(i + 1).find((l) => l.startsWith('`'));
    if (!what || !command) continue;
    pairs.push({ query: asQuestion(what, pairs.length), passage: `${title}: ${description} ${tldrText(command)}`, source: 'tldr' });
  }
  return pairs;
}

// People ask notes "how do I ...?": two of three command descriptions are phrased that way (chosen by position,
// so the data stays deterministic) so that question words learn to carry no topic.
const QUESTION_FORMS = [(s: string) => s, (s: string) => `How do I ${s}?`, (s: string) => `How can I ${s}?`];
function asQuestion(what: string, i: number) {
  return QUESTION_FORMS[i % QUESTION_FORMS.length](what.charAt(0).toLowerCase() + what.slice(1));
}

async function markdownFiles(dir: string, name = /\.md$/): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await markdownFiles(p, name)));
    else if (name.test(e.name)) out.push(p);
  }
  return out.sort();
}

export async function tldrPairs(pagesDir: string): Promise<TrainingPair[]> {
  const pairs: TrainingPair[] = [];
  for (const f of await markdownFiles(pagesDir)) pairs.push(...tldrPagePairs(await readFile(f, 'utf8')));
  return pairs;
}

// ---------------------------------------------------------------- Markdown sections

/** Heading -> text of its section (code fences left out: their words are mostly identifiers). */
export function headingSectionPairs(markdown: string, source: string): TrainingPair[] {
  const pairs: TrainingPair[] = [];
  let heading: string | null = null;
  let body: string[] = [];
  let inFence = false;
  const flush = () => {
    const text = body.join(' ').replace(/\s+/g, ' ').trim();
    if (heading && text.split(' ').length >= 5) pairs.push({ query: heading, passage: text, source });
  };
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (inFence) continue;
    else if (/^#{1,6}\s/.test(line)) {
      flush();
      heading = line.replace(/^#+\s*/, '').replace(/\s*#+\s*$/, '').replace(/[`*_]/g, '').trim();
      body = [];
    } else body.push(line);
  }
  flush();
  return pairs;
}

export async function markdownBookPairs(dir: string, source: string): Promise<TrainingPair[]> {
  const pairs: TrainingPair[] = [];
  for (const f of await markdownFiles(dir)) pairs.push(...headingSectionPairs(await readFile(f, 'utf8'), source));
  return pairs;
}

/**
 * Inverse cloze pairs (Lee, Chang & Toutanova 2019): one sentence of a paragraph -> the rest of that paragraph.
 * The sentence plays a question about the passage it came from, without sharing its exact words.
 */
export function inverseClozePairs(markdown: string, source: string): TrainingPair[] {
  const pairs: TrainingPair[] = [];
  const prose = markdown.replace(/^(```|~~~)[\s\S]*?^\1.*$/gm, '');
  for (const para of prose.split(/\n\s*\n/)) {
    if (/^\s*([#|><-]|\d+\.|\[)/.test(para)) continue; // headings, tables, quotes, HTML, lists, link definitions
    const sentences = para.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s+(?=[A-Z])/);
    if (sentences.length < 3) continue;
    const pick = Math.floor(sentences.length / 2);
    const rest = sentences.filter((_, i) => i !== pick).join(' ');
    pairs.push({ query: sentences[pick], passage: rest, source });
  }
  return pairs;
}

export async function inverseClozeBookPairs(dir: string, source: string): Promise<TrainingPair[]> {
  const pairs: TrainingPair[] = [];
  for (const f of await markdownFiles(dir)) pairs.push(...inverseClozePairs(await readFile(f, 'utf8'), source));
  return pairs;
}

// ---------------------------------------------------------------- documentation sets

/** Headings that name no subject of their own: a query built from one also says whose section it is. */
const GENERIC_HEADING = /^(examples?|usage|options?|notes?|overview|introduction|intro|summary|details?|description|syntax|parameters?|arguments?|returns?|return values?|see also|related|limitations?|troubleshooting|faq|configuration|config|settings|caveats|known issues|background|basics|getting started|how it works|more information|reference|references|api|methods|properties|events|rule details|when not to use it|version|versions|resources|further reading|abstract|motivation|rationale|specification|copyright|footnotes|acknowledge?ments|backwards? compatibility|security implications|how to teach this|reference implementation|rejected ideas|open issues|discussion|alternatives|implementation|conclusion|appendix|prerequisites|requirements|installation|install|setup|next steps|what's next|learn more|contributing|license|credits|changelog|type|default|values?|output|input|exit status|environment|files|bugs|authors?|history|errors|exceptions|attributes|fields|commands?|flags|aliases|inherited options|synopsis)$/i;

/** Markdown and template markup left out of a passage's text: what is shown, not how it is written. */
export function docProse(markdown: string): string {
  return markdown
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/\{\{[<%][\s\S]*?[%>]\}\}|\{%[\s\S]*?%\}|\{\{[\s\S]*?\}\}/g, ' ') // Hugo, Liquid and Vue-style template tags
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, ' ')
    .replace(/^\s*(:::|!!!|\?\?\?)\S*.*$/gm, ' ')
    .replace(/^\s*>\s?(\[![A-Za-z]+\][+-]?)?/gm, '')
    .replace(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, ' ')
    .replace(/[`*_|#]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A front matter block's `title:` and `description:` (or `summary:` / `intro:`), read as plain single-line strings. */
function frontMatterFields(markdown: string): { body: string; title?: string; description?: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(markdown);
  if (!m) return { body: markdown };
  const field = (...names: string[]) => {
    for (const name of names) {
      const f = new RegExp(`^${name}:\\s*(.+)$`, 'mi').exec(m[1]);
      const v = f?.[1].trim().replace(/^(['"])(.*)\1$/, '$2').trim();
      if (v && !/^[>|]-?$/.test(v)) return v;
    }
    return undefined;
  };
  return { body: markdown.slice(m[0].length), title: field('title', 'sidebar_label'), description: field('description', 'summary', 'intro', 'excerpt') };
}

/**
 * Pairs of one page of a documentation set:
 *   - `<set>-headings`: heading -> the prose of its section (sub-sections not included; code left out). A heading
 *     that names no subject ("Examples", "Options") is prefixed with its parent's or the page's title;
 *   - `<set>-questions`: the same, for headings that are questions ("How do I ...?"): the nearest thing to a user's
 *     question and its answer in a manual;
 *   - `<set>-descriptions`: the page's front matter description -> the page's opening prose, and its title -> the
 *     description and opening together;
 *   - `<set>-cloze`: inverse cloze pairs of its prose paragraphs.
 */
export function docPagePairs(markdown: string, set: string): TrainingPair[] {
  const { body, title, description } = frontMatterFields(markdown.replace(/\r\n/g, '\n'));
  const pairs: TrainingPair[] = [];
  const path: string[] = [];
  let level = 0;
  let heading: string | undefined;
  let lines: string[] = [];
  let opening: string | undefined;
  let fence: string | undefined;
  const words = (s: string) => s.split(' ').filter((w) => /[A-Za-z]/.test(w)).length;
  const flush = () => {
    const text = docProse(lines.join('\n'));
    lines = [];
    if (heading === undefined) {
      if (words(text) >= 8) opening = text;
      return;
    }
    if (words(text) < 8) return;
    const parent = path.length > 1 ? path[path.length - 2] : title;
    const query = (GENERIC_HEADING.test(heading) || words(heading) < 2) && parent ? `${parent}: ${heading}` : heading;
    pairs.push({ query, passage: text, source: `${set}-${/\?\s*$/.test(heading) ? 'questions' : 'headings'}` });
  };
  for (const line of body.split('\n')) {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = undefined;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) {
      lines.push(line);
      continue;
    }
    flush();
    level = h[1].length;
    heading = docProse(h[2].replace(/\s*\{#[^}]*\}\s*$/, ''));
    path.length = Math.min(path.length, level - 1);
    while (path.length < level - 1) path.push(path.at(-1) ?? title ?? '');
    path.push(heading);
    if (!heading) heading = undefined;
  }
  flush();
  if (opening && description && words(description) >= 3) pairs.push({ query: description, passage: opening, source: `${set}-descriptions` });
  if (opening && title && words(title) >= 1) pairs.push({ query: title, passage: [description, opening].filter(Boolean).join(' '), source: `${set}-descriptions` });
  pairs.push(...inverseClozePairs(body, `${set}-cloze`));
  return pairs;
}

/** Change logs and release notes: their headings are versions and "Fixed", which say nothing of the text below. */
const CHANGE_LOG = /(change-?log|changes|release-notes|history|news)[^/]*$|(^|\/)whatsnew\//i;

/**
 * Every page of a documentation set's folder, in path order, change logs left out: Markdown (`.md`, `.mdx`) and
 * reStructuredText (`.rst`, and Sphinx's `_sources` copies `.rst.txt`, read through `restToMarkdown`).
 */
export async function docSetPairs(dir: string, set: string): Promise<TrainingPair[]> {
  const pairs: TrainingPair[] = [];
  for (const f of await markdownFiles(dir, /\.(mdx?|rst|rst\.txt)$/)) {
    if (CHANGE_LOG.test(path.relative(dir, f))) continue;
    const text = await readFile(f, 'utf8');
    pairs.push(...docPagePairs(/\.rst(\.txt)?$/.test(f) ? restToMarkdown(text) : text, set));
  }
  return pairs;
}

// ---------------------------------------------------------------- reStructuredText

/** Sphinx directives that describe an API object: their argument becomes a heading, their body its section. */
const OBJECT_DIRECTIVE = /^(function|method|class|attribute|data|exception|decorator|classmethod|staticmethod|module|opcode|cmdoption|option|envvar|describe|c:function|c:macro|c:type|c:member)$/;
/** Directives whose body is prose to keep (notes, warnings, version remarks); any other directive's body is left out. */
const PROSE_DIRECTIVE = /^(note|warning|tip|important|seealso|hint|caution|attention|versionadded|versionchanged|deprecated|admonition|topic|sidebar|rubric|impl-detail)$/;
const UNDERLINE = /^([=\-~^"'`#*+:.])\1{2,}\s*$/;

/** Inline reST markup to its text: roles (:func:`len`, :ref:`text <target>`), literals, emphasis, hyperlinks. */
function restInline(line: string): string {
  return line
    .replace(/:[\w:+-]+:`([^`<]*?)\s*<[^`>]*>`/g, '$1')
    .replace(/:[\w:+-]+:`~?!?([^`]*)`/g, '$1')
    .replace(/`([^`<]*?)\s*<[^`>]*>`_{1,2}/g, '$1')
    .replace(/``([^`]*)``/g, '$1')
    .replace(/`([^`]*)`_{0,2}/g, '$1')
    .replace(/\*\*([^*]*)\*\*|\*([^*]*)\*/g, '$1$2')
    .replace(/\|([^|\s][^|]*)\|/g, '$1');
}

/**
 * Enough of reStructuredText to make documentation pairs of it, written as Markdown: section titles (underlined,
 * optionally overlined; levels in order of first use) become `#` headings, API directives (`.. method:: Path.glob(pattern)`)
 * headings one level below the current section, prose directives keep their body, literal blocks (after `::`) and
 * every other directive (code, images, tables of contents) are left out.
 */
export function restToMarkdown(rst: string): string {
  const lines = rst.replace(/\r\n/g, '\n').split('\n');
  const styles: string[] = [];
  let level = 0;
  const out: string[] = [];
  const indentOf = (l: string) => l.length - l.trimStart().length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1] ?? '';
    // A section title, overlined (==== / Title / ====) or underlined (Title / ====): its style sets its level.
    const overlined = UNDERLINE.test(line) && lines[i + 2] !== undefined && UNDERLINE.test(lines[i + 2]!) && next.trim() !== '' && indentOf(next) <= 2;
    const underlined = !overlined && line.trim() !== '' && indentOf(line) === 0 && UNDERLINE.test(next) && next.trim().length >= line.trim().length && !UNDERLINE.test(line);
    if (overlined || underlined) {
      const style = overlined ? `o${line.trim()[0]}` : `u${next.trim()[0]}`;
      if (!styles.includes(style)) styles.push(style);
      level = styles.indexOf(style) + 1;
      out.push('', `${'#'.repeat(Math.min(6, level))} ${restInline((overlined ? next : line).trim())}`, '');
      i += overlined ? 2 : 1;
      continue;
    }
    const directive = /^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$/.exec(line);
    if (directive || /^\s*\.\.(\s|$)/.test(line)) {
      const base = indentOf(line);
      const name = directive?.[2] ?? '';
      const body: string[] = [];
      while (i + 1 < lines.length && (!lines[i + 1]!.trim() || indentOf(lines[i + 1]!) > base)) body.push(lines[++i]!);
      // Options (":synopsis: …") open a directive's body.
      const prose = body.filter((l) => !/^\s*:[\w-]+:/.test(l));
      if (OBJECT_DIRECTIVE.test(name) && directive![3]) {
        out.push('', `${'#'.repeat(Math.min(6, level + 1))} ${restInline(directive![3].trim())}`, '', ...restToMarkdown(dedent(prose)).split('\n'), '');
      } else if (PROSE_DIRECTIVE.test(name)) {
        out.push('', ...(directive![3] ? [restInline(directive![3])] : []), ...restToMarkdown(dedent(prose)).split('\n'), '');
      }
      continue;
    }
    if (/::\s*$/.test(line)) {
      // A literal block follows: the paragraph keeps its text (":" for "::"), the indented block is code.
      const text = line.replace(/\s*::\s*$/, /\S\s*::\s*$/.test(line) && !/\s::\s*$/.test(line) ? ':' : '');
      if (text.trim()) out.push(restInline(text));
      const base = indentOf(line);
      while (i + 1 < lines.length && (!lines[i + 1]!.trim() || indentOf(lines[i + 1]!) > base)) i++;
      out.push('');
      continue;
    }
    // Field lists, grid-table borders and doctest lines are not prose.
    if (/^\s*(\+[-=+]+\+|>>>|\.\.\.\s)/.test(line)) continue;
    out.push(restInline(line));
  }
  return out.join('\n');
}

function dedent(lines: readonly string[]): string {
  const indents = lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join('\n');
}
