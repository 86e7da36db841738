/**
 * (query-like text, passage) pairs for training the retrieval embedding table
 * (train-retrieval-model.ts), read from openly licensed sources only:
 *   - WordNet (Debian package wordnet-base): synonyms -> gloss, example sentence -> gloss;
 *   - tldr pages: "what it does" line -> command name, page description and command;
 *   - Markdown books: heading -> section text.
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

async function markdownFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await markdownFiles(p)));
    else if (e.name.endsWith('.md')) out.push(p);
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
