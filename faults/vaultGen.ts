import { mkdirSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Random } from './random.js';

/** Real English words, so the bundled GloVe model gives the notes meaningful vectors. */
const TOPICS: Record<string, string[]> = {
  garden: ['garden', 'soil', 'compost', 'seeds', 'tomato', 'water', 'roots', 'harvest', 'spring', 'weeds', 'flowers', 'sunlight'],
  astronomy: ['telescope', 'orbit', 'planet', 'star', 'galaxy', 'moon', 'comet', 'eclipse', 'gravity', 'nebula', 'solar', 'sky'],
  cooking: ['recipe', 'flour', 'butter', 'oven', 'bread', 'sugar', 'salt', 'onion', 'soup', 'pepper', 'garlic', 'dinner'],
  finance: ['budget', 'invoice', 'tax', 'savings', 'expense', 'income', 'loan', 'interest', 'account', 'payment', 'bank', 'price'],
  travel: ['train', 'ticket', 'hotel', 'airport', 'luggage', 'passport', 'map', 'beach', 'city', 'museum', 'journey', 'border'],
  software: ['server', 'database', 'deploy', 'bug', 'release', 'network', 'cache', 'compiler', 'query', 'backup', 'kernel', 'logs'],
};
const COMMON = ['the', 'a', 'we', 'should', 'check', 'every', 'week', 'because', 'it', 'is', 'often', 'more', 'than', 'one', 'new', 'old', 'good', 'plan', 'notes', 'list', 'after', 'before', 'with', 'and'];
const FOLDERS = ['projects', 'journal', 'reference', 'inbox'];
/** Fixed mtime base (whole seconds, recent enough for the same recency boost everywhere) so copies keep mtimes exactly. */
const MTIME_BASE_S = Math.floor(Date.now() / 1000) - 3600;

/** Queries run against every index: a few words per topic, plus a title. Same list for the reference and the faulted index. */
export const QUERIES = [...Object.values(TOPICS).map((words) => `${words[0]} ${words[3]}`), 'weekly plan notes', 'Orbit 13'];

function sentence(rng: Random, topic: string): string {
  const words = Array.from({ length: rng.int(8, 16) }, () => (rng.chance(0.6) ? rng.pick(TOPICS[topic]!) : rng.pick(COMMON)));
  words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
  return `${words.join(' ')}.`;
}

function paragraph(rng: Random, topic: string, titles: string[]): string {
  const parts = Array.from({ length: rng.int(2, 5) }, () => sentence(rng, topic));
  if (titles.length && rng.chance(0.4)) parts.push(`See [[${rng.pick(titles)}]].`);
  if (rng.chance(0.2)) parts.push(`#${topic}`);
  return parts.join(' ');
}

/** One note: optional front matter, a title, 2-4 sections (ATX or setext), paragraphs, wikilinks and tags. */
export function noteText(rng: Random, title: string, titles: string[]): string {
  const topic = rng.pick(Object.keys(TOPICS));
  const lines: string[] = [];
  if (rng.chance(0.3)) lines.push('---', `tags: [${topic}, ${rng.pick(FOLDERS)}]`, `aliases: ["${title} alias"]`, '---', '');
  lines.push(`# ${title}`, '', paragraph(rng, topic, titles), '');
  for (let s = 0, n = rng.int(2, 4); s < n; s++) {
    const heading = `${rng.pick(TOPICS[topic]!)} ${rng.pick(COMMON)} ${s + 1}`;
    if (rng.chance(0.2)) lines.push(heading, '-'.repeat(heading.length), '');
    else lines.push(`## ${heading}`, '');
    for (let p = 0, m = rng.int(1, 3); p < m; p++) lines.push(paragraph(rng, topic, titles), '');
    if (rng.chance(0.3)) lines.push(`- ${sentence(rng, topic)}`, `- ${sentence(rng, topic)}`, '');
  }
  return lines.join('\n');
}

export function titleOf(relPath: string): string {
  return path.basename(relPath, '.md');
}

/** Writes `count` notes into `dir` (which must not exist), spread over a few folders, with whole-second mtimes. */
export function generateVault(dir: string, rng: Random, count: number): void {
  const topics = Object.keys(TOPICS);
  const titles = Array.from({ length: count }, (_, i) => `${capitalise(TOPICS[topics[i % topics.length]!]![i % 12]!)} ${i}`);
  for (const folder of FOLDERS) mkdirSync(path.join(dir, folder), { recursive: true });
  titles.forEach((title, i) => {
    const file = path.join(dir, FOLDERS[i % FOLDERS.length]!, `${title}.md`);
    writeFileSync(file, noteText(rng, title, titles));
    const t = MTIME_BASE_S - i * 60;
    utimesSync(file, t, t);
  });
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The notes of a vault (regular .md files, not following links), vault-relative. */
export function listNotes(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && entry.name.endsWith('.md')) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/** One edit of a burst, applied to the vault on disk; returns what it did, for the log. */
export type Edit = (dir: string, rng: Random) => string;

const addNote: Edit = (dir, rng) => {
  const rel = `${rng.pick(FOLDERS)}/${capitalise(rng.pick(TOPICS.travel!))} new ${rng.int(1000, 9999)}.md`;
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), noteText(rng, titleOf(rel), listNotes(dir).map(titleOf)));
  return `add ${rel}`;
};

export const editNote: Edit = (dir, rng) => {
  const notes = listNotes(dir);
  if (notes.length === 0) return addNote(dir, rng);
  const rel = rng.pick(notes);
  const file = path.join(dir, rel);
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, rng.chance(0.5) ? `${text}\n## Added ${rng.int(1, 99)}\n\n${paragraph(rng, rng.pick(Object.keys(TOPICS)), [])}\n` : noteText(rng, titleOf(rel), notes.map(titleOf)));
  return `edit ${rel}`;
};

const deleteNote: Edit = (dir, rng) => {
  const notes = listNotes(dir);
  if (notes.length < 10) return addNote(dir, rng);
  const rel = rng.pick(notes);
  rmSync(path.join(dir, rel));
  return `delete ${rel}`;
};

const renameNote: Edit = (dir, rng) => {
  const notes = listNotes(dir);
  if (notes.length === 0) return addNote(dir, rng);
  const rel = rng.pick(notes);
  const to = `${rng.pick(FOLDERS)}/${titleOf(rel)} moved ${rng.int(10, 99)}.md`;
  if (existsSync(path.join(dir, to))) return `rename skipped (${to} exists)`;
  mkdirSync(path.dirname(path.join(dir, to)), { recursive: true });
  renameSync(path.join(dir, rel), path.join(dir, to));
  return `rename ${rel} -> ${to}`;
};

/** What `git checkout` of another branch looks like to a watcher: two folders trade places at once. */
const swapFolders: Edit = (dir, rng) => {
  const folders = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
  if (folders.length < 2) return rewriteMany(dir, rng);
  const [a, b] = rng.shuffle(folders);
  const tmp = path.join(dir, `.swap-${rng.int(1, 1e6)}`);
  renameSync(path.join(dir, a!), tmp);
  renameSync(path.join(dir, b!), path.join(dir, a!));
  renameSync(tmp, path.join(dir, b!));
  return `swap ${a} <-> ${b}`;
};

/** Many files rewritten within a few milliseconds (a checkout or a sync tool catching up). */
const rewriteMany: Edit = (dir, rng) => {
  const notes = listNotes(dir);
  const chosen = rng.shuffle(notes).slice(0, Math.ceil(notes.length / 4));
  for (const rel of chosen) writeFileSync(path.join(dir, rel), noteText(rng, titleOf(rel), notes.map(titleOf)));
  return `rewrite ${chosen.length} notes`;
};

const EDITS: Array<[Edit, number]> = [
  [addNote, 3],
  [editNote, 5],
  [deleteNote, 2],
  [renameNote, 2],
  [swapFolders, 1],
  [rewriteMany, 1],
];

export function randomEdit(rng: Random): Edit {
  const total = EDITS.reduce((sum, [, w]) => sum + w, 0);
  let roll = rng.next() * total;
  for (const [edit, weight] of EDITS) if ((roll -= weight) < 0) return edit;
  return editNote;
}
