// Keyword index on a real vault: build, save, load, memory, query latency.
// Usage: node --import tsx bench/keyword.bench.ts <vault> [--queries N] [--compare]
//   --compare also builds a plain MiniSearch (same tokenizer) queried with prefix + fuzzy on every term.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import MiniSearch from 'minisearch';
import { createChunker } from '../core/chunking/createChunker.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import { defaultConfig } from '../core/config/schema.js';
import { KEYWORD_FIELD_BOOSTS, KeywordIndex, type KeywordDoc } from '../core/indices/keyword/keywordIndex.js';
import { tokenizeForSearch } from '../core/indices/searchTokenizer.js';
import { readNoteFile } from '../core/vault/readNoteFile.js';
import { scanVault } from '../core/vault/scanVault.js';
import { seededRandom } from '../core/random/seededRandom.js';

const args = process.argv.slice(2);

// Child mode, timed from process start: `--load <file>`.
if (args[0] === '--load') {
  const index = await KeywordIndex.read(readFileSync(args[1]!));
  index.search('warmup query', 10);
  console.log(JSON.stringify({ readyMs: process.uptime() * 1000, size: index.size }));
  process.exit(0);
}

const vault = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const queryCount = Number(args[args.indexOf('--queries') + 1]) || 300;
const compare = args.includes('--compare');
if (!vault) {
  console.error('usage: node --import tsx bench/keyword.bench.ts <vault> [--queries N] [--compare]');
  process.exit(2);
}

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const time = <T>(fn: () => T): [T, number] => {
  const started = performance.now();
  const result = fn();
  return [result, performance.now() - started];
};

// --- corpus ---
const { files } = await scanVault(path.resolve(vault), defaultConfig().vault);
const chunker = await createChunker(defaultConfig().chunking, new BasicTokenCounter(510));
const docs: KeywordDoc[] = [];
let bytes = 0;
for (const file of files) {
  const note = await readNoteFile(file);
  bytes += note.size;
  for (const chunk of chunker.chunk({ path: note.path, text: note.text, mtimeMs: note.mtimeMs }).chunks) {
    docs.push({ id: chunk.id, path: chunk.docId, title: chunk.title, aliases: chunk.aliases, headerPath: chunk.headerPath, tags: chunk.tags, content: chunk.content });
  }
}
const contentChars = docs.reduce((n, d) => n + d.content.length, 0);
console.log(`vault          ${vault}`);
console.log(`corpus         ${files.length} notes, ${(bytes / 1e6).toFixed(1)} MB, ${docs.length} chunks (avg ${Math.round(contentChars / docs.length)} chars)`);

// --- tokenizer ---
const contentBytes = docs.reduce((n, d) => n + Buffer.byteLength(d.content), 0);
const [termCount, tokenizeMs] = time(() => docs.reduce((n, d) => n + tokenizeForSearch(d.content).length, 0));
console.log(`tokenizer      ${(contentBytes / 1e6 / (tokenizeMs / 1000)).toFixed(1)} MB/s over chunk contents (${(contentBytes / 1e6).toFixed(1)} MB, ${termCount} terms)`);

// --- build ---
const heapBefore = heapMb();
const [index, buildMs] = time(() => {
  const built = KeywordIndex.create();
  built.upsert(docs);
  return built;
});
const heapIndex = heapMb() - heapBefore;
console.log(`build          ${seconds(buildMs)} (${Math.round(docs.length / (buildMs / 1000))} chunks/s), ${index.terms().length} distinct terms`);
console.log(`heap           ${heapIndex.toFixed(0)} MB for the index`);

// --- save / load ---
const dir = mkdtempSync(path.join(tmpdir(), 'cairn-keyword-bench-'));
try {
  const writeStarted = performance.now();
  const pieces: Buffer[] = [];
  for await (const piece of index.lines()) pieces.push(Buffer.from(piece));
  const writeMs = performance.now() - writeStarted;
  const file = path.join(dir, 'keyword.jsonl');
  writeFileSync(file, Buffer.concat(pieces));
  const bytes = readFileSync(file);
  console.log(`save           ${seconds(writeMs)}, ${bytes.toString().split('\n').length - 1} lines, ${(bytes.length / 1e6).toFixed(1)} MB`);
  const heapBeforeLoad = heapMb();
  let last = performance.now();
  let held = 0;
  const ticker = setInterval(() => {
    held = Math.max(held, performance.now() - last);
    last = performance.now();
  }, 1);
  const loadStarted = performance.now();
  const loaded = await KeywordIndex.read(bytes);
  const loadMs = performance.now() - loadStarted;
  clearInterval(ticker);
  held = Math.max(held, performance.now() - last);
  const heapLoaded = heapMb() - heapBeforeLoad;
  console.log(`load           ${seconds(loadMs)} in process, event loop held at most ${held.toFixed(0)} ms, heap ${heapLoaded.toFixed(0)} MB once loaded`);
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--load', file], { encoding: 'utf8' });
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  const ready = line.startsWith('{') ? (JSON.parse(line) as { readyMs: number }).readyMs : NaN;
  console.log(`ready          ${seconds(ready)} from process start to first answered query (fresh node + tsx)`);

  // --- queries ---
  const random = seededRandom(42);
  const queries = makeQueries(docs, queryCount, random);
  const typed = queries.map((q) => asTyped(q, random));
  const typos = queries.map((q) => withTypo(q, random));
  const vocabulary = index.terms().filter((t) => /^[a-z]{4,}$/.test(t));
  const expansions = queries.map(() => [1, 2, 3].map(() => ({ term: vocabulary[Math.floor(random() * vocabulary.length)]!, weight: 0.5 })));

  for (const [label, target] of [
    ['built', index],
    ['loaded', loaded],
  ] as const) {
    report(`query ${label}`, queries, (q) => target.search(q, 10));
  }
  // The rest on the loaded index, the state a running app queries.
  report('loaded, as-you-type', typed, (q) => loaded.search(q, 10));
  report('loaded, with typo', typos, (q) => loaded.search(q, 10));
  report('loaded, +3 expansions', queries, (q, i) => loaded.search(q, 10, { expansions: expansions[i] }));
  report('loaded, accept 50%', queries, (q) => loaded.search(q, 10, { accept: (id) => id.length % 2 === 0 }));
  report('loaded, k = 100', queries, (q) => loaded.search(q, 100));

  if (compare) {
    const plain = new MiniSearch<KeywordDoc>({
      fields: ['title', 'aliases', 'headerPath', 'tags', 'content'],
      extractField: (d, f) => (Array.isArray(d[f as keyof KeywordDoc]) ? (d[f as keyof KeywordDoc] as string[]).join('\n') : d[f as keyof KeywordDoc]),
      tokenize: tokenizeForSearch,
      processTerm: (t) => t,
    });
    plain.addAll(docs);
    const boost = { ...KEYWORD_FIELD_BOOSTS };
    // Plain MiniSearch `search`, built in this process: compare with "query built".
    report('plain exact', queries, (q) => plain.search(q, { boost }).slice(0, 10));
    report('plain prefix+fuzzy all terms', queries, (q) => plain.search(q, { boost, prefix: true, fuzzy: 0.2 }).slice(0, 10));
    report('plain on as-you-type', typed, (q) => plain.search(q, { boost, prefix: true, fuzzy: 0.2 }).slice(0, 10));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function report(label: string, queries: string[], run: (q: string, i: number) => unknown[]): void {
  for (let i = 0; i < Math.min(20, queries.length); i++) run(queries[i]!, i); // warm up
  const times: number[] = [];
  let hits = 0;
  queries.forEach((q, i) => {
    const started = performance.now();
    hits += run(q, i).length;
    times.push(performance.now() - started);
  });
  console.log(
    `${label.padEnd(30)} p50 ${percentile(times, 50).toFixed(1).padStart(5)} ms  p95 ${percentile(times, 95).toFixed(1).padStart(5)} ms  max ${Math.max(...times).toFixed(0).padStart(4)} ms  (${queries.length} queries, ${(hits / queries.length).toFixed(1)} hits avg)`,
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** 1-4 words (≥ 3 letters) drawn from one random chunk, as a user would pick words of a passage. */
function makeQueries(all: KeywordDoc[], count: number, random: () => number): string[] {
  const queries: string[] = [];
  while (queries.length < count) {
    const words = tokenizeForSearch(all[Math.floor(random() * all.length)]!.content).filter((t) => /^[a-z]{3,}$/.test(t));
    if (words.length === 0) continue;
    const n = 1 + Math.floor(random() * 4);
    queries.push(Array.from({ length: n }, () => words[Math.floor(random() * words.length)]!).join(' '));
  }
  return queries;
}

/** The query as it looks while the last word is still being typed. */
function asTyped(query: string, random: () => number): string {
  const words = query.split(' ');
  const last = words.at(-1)!;
  words[words.length - 1] = last.slice(0, Math.max(3, Math.ceil(last.length * (0.4 + 0.4 * random()))));
  return words.join(' ');
}

/** Two adjacent letters swapped in the longest word. */
function withTypo(query: string, random: () => number): string {
  const words = query.split(' ');
  const longest = words.reduce((best, w, i) => (w.length > words[best]!.length ? i : best), 0);
  const word = words[longest]!;
  if (word.length < 4) return query;
  const i = 1 + Math.floor(random() * (word.length - 2));
  words[longest] = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  return words.join(' ');
}

