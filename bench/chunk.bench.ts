// Chunking throughput on a real vault. Usage: npm run bench:chunk -- <vault> [--runs N]
import path from 'node:path';
import { NoteChunkerPool, WorkerNoteChunker } from '../core/chunking/chunkerPool.js';
import { createChunker } from '../core/chunking/createChunker.js';
import type { NoteChunker, OutlineUse } from '../core/chunking/types.js';
import { inOrderBounded } from '../core/indexing/inOrderBounded.js';
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
// The indexer's path: the same notes through chunk worker threads, 16 in flight as the indexer keeps them, results
// copied back. First one worker (as before issue 16), then one per core; that run keeps each note's parse outline,
// and the last re-chunks from those outlines after a `[chunking] max_chunk_chars` change (no parse, only re-packing).
const phaseRss: string[] = [];
const timeWorkers = async (chunker: NoteChunker, outline: (i: number) => OutlineUse | undefined = () => undefined): Promise<number> => {
  const runTimes: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await inOrderBounded(notes.map((_, i) => i), 16, (i) => chunker.chunk({ path: notes[i].path, text: notes[i].text, mtimeMs: notes[i].mtimeMs }, outline(i)));
    runTimes.push((performance.now() - started) / 1000);
  }
  await chunker.close();
  phaseRss.push(`${(peakRss / 2 ** 20).toFixed(0)} MB`);
  return runTimes.sort((a, b) => a - b)[Math.floor(runs / 2)];
};
const oneWorker = await timeWorkers(new WorkerNoteChunker({ config, window: 510 }));
const outlines: string[] = [];
const pool = new NoteChunkerPool({ config, window: 510 });
const poolMedian = await timeWorkers(pool, (i) => ({ keep: (encoded) => (outlines[i] = encoded) }));
const repackConfig = { ...config, max_chunk_chars: Math.round(config.max_chunk_chars * 0.75) };
const repackMedian = await timeWorkers(new NoteChunkerPool({ config: repackConfig, window: 510 }), (i) => ({ cached: outlines[i] }));
const reparseMedian = await timeWorkers(new NoteChunkerPool({ config: repackConfig, window: 510 }));
clearInterval(sampler);
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const mb = bytes / 1e6;
const rate = (seconds: number) => `${(mb / seconds).toFixed(2)} MB/s, ${(notes.length / seconds).toFixed(0)} notes/s`;
console.log(`vault          ${vault}`);
console.log(`notes          ${notes.length} (${mb.toFixed(2)} MB, ${chars.toLocaleString('en')} UTF-16 chars)`);
console.log(`scan + read    ${readSeconds.toFixed(2)} s`);
console.log(`chunk          ${median.toFixed(2)} s median of ${runs} (best ${times[0].toFixed(2)} s, worst ${times.at(-1)!.toFixed(2)} s), one thread`);
console.log(`throughput     ${rate(median)}, ${(chunkCount / median).toFixed(0)} chunks/s (${chunkCount} chunks)`);
console.log(`one worker     ${oneWorker.toFixed(2)} s median of ${runs}, ${rate(oneWorker)} (a worker thread, results copied back)`);
console.log(`${`${pool.workers} workers`.padEnd(14)} ${poolMedian.toFixed(2)} s median of ${runs}, ${rate(poolMedian)} (the indexer's path: one worker per core)`);
console.log(`re-chunk       ${repackMedian.toFixed(2)} s median of ${runs}, ${rate(repackMedian)} (max_chunk_chars ${config.max_chunk_chars} → ${repackConfig.max_chunk_chars}, cached outlines; ${outlines.filter(Boolean).length} of ${notes.length} notes had one)`);
console.log(`re-parse       ${reparseMedian.toFixed(2)} s median of ${runs}, ${rate(reparseMedian)} (the same change without the outline cache)`);
console.log(`peak RSS       ${(peakRss / 2 ** 20).toFixed(0)} MB (after each worker run above: ${phaseRss.join(', ')})`);
