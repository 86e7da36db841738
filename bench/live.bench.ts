// Live updates on a real vault. Usage: npm run bench:live -- <vault> [--edits N] [--offline-changes N]
// Copies the vault to a temp folder, then measures edit-to-searchable latency through the real watcher,
// the catch-up after notes changed while Cairn was closed, and how many embeddings each computed.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CairnService, type IndexSummary } from '../core/app/index.js';
import { argValue, percentile, random, timeEditToSearchable } from './support.js';

const args = process.argv.slice(2);
const source = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!source) {
  console.error('usage: npm run bench:live -- <vault> [--edits N] [--offline-changes N]');
  process.exit(2);
}
const edits = Number(argValue(args, '--edits') ?? 60);
const offlineChanges = Number(argValue(args, '--offline-changes') ?? 100);
const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-live-bench-'));
const vault = path.join(root, 'vault');
await cp(source, vault, { recursive: true });
const dataDir = path.join(root, 'data');

let embedded = 0;
const onFinished = (summary: IndexSummary) => (embedded += summary.embedded);
// The first index is followed by learning the vault's vocabulary in the background, then a re-embedding reopen: the
// edits are timed after it, as a user's vault runs from then on (bench:adapt measures the adaptation itself).
// One edit is timed while that reopen re-embeds the vault: the vault answering meanwhile must take it at once.
let adaptStarted = false;
let adaptDone: (adapted: boolean) => void = () => {};
const adapted = new Promise<boolean>((resolve) => (adaptDone = resolve));
let service = await CairnService.start({
  vault,
  dataDir,
  listener: (e) => {
    if (e.type === 'indexing-finished') onFinished(e.summary);
    else if (e.type === 'adapt-progress') adaptStarted = true;
    else if (e.type === 'adapt-finished') adaptDone(e.adapted);
  },
});
const paths = Object.keys(service.currentVault!.snapshot().links);
await new Promise((resolve) => setTimeout(resolve, 1000));
if (adaptStarted || (await service.getState()).adapting) {
  if (await adapted) {
    const reopenStarted = performance.now();
    const during = await timeEditToSearchable(service, vault, paths[0], 'zqduringrebuildmarker');
    console.log(`edit → search  ${during.toFixed(0)} ms for an edit made as the re-embedding after vocabulary adaptation began (it took ${((performance.now() - reopenStarted) / 1000).toFixed(1)} s)`);
  }
  await service.idle();
}
const notes = service.currentVault!.snapshot();
const seen = new Set<string>();
const hashesOf = (p: string) => service.currentVault!.noteInfo(p)?.record.chunks.map((c) => c.hash) ?? [];
for (const p of paths) for (const h of hashesOf(p)) seen.add(h);
console.log(`vault          ${source} (${paths.length} notes, ${notes.chunkIds.length} chunks), debounce ${300} ms`);

const rand = random(11);
const latencies: number[] = [];
let expected = 0;
embedded = 0;
for (let i = 0; i < edits; i++) {
  const note = paths[Math.floor(rand() * paths.length)];
  latencies.push(await timeEditToSearchable(service, vault, note, `zqlive${i}marker`));
  for (const h of hashesOf(note)) if (!seen.has(h)) (seen.add(h), expected++);
}
console.log(`edit → search  p50 ${percentile(latencies, 50).toFixed(0)} ms · p95 ${percentile(latencies, 95).toFixed(0)} ms · max ${Math.max(...latencies).toFixed(0)} ms over ${edits} single-note edits (keyword-searchable; includes the debounce)`);
console.log(`embeddings     ${embedded} computed for ${expected} changed chunk texts`);

await service.close();
const changed = new Set<string>();
while (changed.size < Math.min(offlineChanges, paths.length)) changed.add(paths[Math.floor(rand() * paths.length)]);
for (const [i, note] of [...changed].entries()) {
  const file = path.join(vault, note);
  await writeFile(file, `${await readFile(file, 'utf8')}\n\nChanged while closed ${i}.\n`);
}
embedded = 0;
const started = performance.now();
service = await CairnService.start({ vault, dataDir, listener: (e) => e.type === 'indexing-finished' && onFinished(e.summary) });
const catchUp = (performance.now() - started) / 1000;
let offlineExpected = 0;
for (const note of changed) for (const h of hashesOf(note)) if (!seen.has(h)) (seen.add(h), offlineExpected++);
console.log(`catch-up       ${catchUp.toFixed(2)} s to reopen and apply ${changed.size} notes changed while closed (includes loading the index and the model)`);
console.log(`embeddings     ${embedded} computed for ${offlineExpected} changed chunk texts`);
await service.close();
await rm(root, { recursive: true, force: true });
