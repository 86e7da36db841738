// Chunking throughput on a real vault. Usage: npm run bench:chunk -- <vault> [--runs N]
import path from 'node:path';
import { WorkerNoteChunker } from '../core/chunking/chunkerPool.js';
import { createChunker } from '../core/chunking/createChunker.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import { defaultConfig } from '../core/config/schema.js';
import { readNoteFile, type NoteSource } from '../core/vault/readNoteFile.js';
import { scanVault } from '../core/vault/scanVault.js';

const args = process.argv.slice(2);
const vault = args.find((a) => !a.startsWith('--'));
const runs = Number(args[args.indexOf('--runs') + 1]) || 5;
if (!vault) {
  console.error('usage: npm run bench:chunk -- <vault> [--runs N]');
  process.exit(2);
}

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

const t0 = performance.now();
const { files } = await scanVault(path.resolve(vault), defaultConfig().vault);
const notes: NoteSource[] = [];
for (const file of files) notes.push(await readNoteFile(file));
const readSeconds = (performance.now() - t0) / 1000;
const chars = notes.reduce((n, note) => n + note.text.length, 0);
const bytes = notes.reduce((n, note) => n + note.size, 0);

const config = defaultConfig().chunking;
const chunker = await createChunker(config, new BasicTokenCounter(510));
const times: number[] = [];
let chunkCount = 0;
for (let run = 0; run < runs; run++) {
  const started = performance.now();
  chunkCount = 0;
  for (const note of notes) chunkCount += chunker.chunk({ path: note.path, text: note.text, mtimeMs: note.mtimeMs }).chunks.length;
  times.push((performance.now() - started) / 1000);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}
// The indexer's path: the same notes through the chunk worker thread, one at a time as the indexer sends them
// (16 in flight), results copied back.
const worker = new WorkerNoteChunker({ config, window: 510 });
const workerTimes: number[] = [];
for (let run = 0; run < runs; run++) {
  const started = performance.now();
  for (let i = 0; i < notes.length; i += 16) {
    await Promise.all(notes.slice(i, i + 16).map((note) => worker.chunk({ path: note.path, text: note.text, mtimeMs: note.mtimeMs })));
  }
  workerTimes.push((performance.now() - started) / 1000);
}
await worker.close();
clearInterval(sampler);
times.sort((a, b) => a - b);
workerTimes.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const workerMedian = workerTimes[Math.floor(workerTimes.length / 2)];
const mb = bytes / 1e6;
console.log(`vault          ${vault}`);
console.log(`notes          ${notes.length} (${mb.toFixed(2)} MB, ${chars.toLocaleString('en')} UTF-16 chars)`);
console.log(`scan + read    ${readSeconds.toFixed(2)} s`);
console.log(`chunk          ${median.toFixed(2)} s median of ${runs} (best ${times[0].toFixed(2)} s, worst ${times.at(-1)!.toFixed(2)} s), one thread`);
console.log(`throughput     ${(mb / median).toFixed(2)} MB/s, ${(notes.length / median).toFixed(0)} files/s, ${(chunkCount / median).toFixed(0)} chunks/s (${chunkCount} chunks)`);
console.log(`chunk worker   ${workerMedian.toFixed(2)} s median of ${runs}, ${(mb / workerMedian).toFixed(2)} MB/s (the indexer's path: a worker thread, results copied back)`);
console.log(`peak RSS       ${(peakRss / 2 ** 20).toFixed(0)} MB`);
