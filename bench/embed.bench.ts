// Embedding throughput on a real vault: chunks every note with the default config and embeds all chunk contents
// through the embedder's worker. Usage: node --import tsx bench/embed.bench.ts <vault> [--batch-size N] [--model ID] [--dtype q8]
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createChunker } from '../core/chunking/createChunker.js';
import { defaultConfig } from '../core/config/schema.js';
import { createEmbedder } from '../core/embedding/embedder.js';
import { BUNDLED_MODEL } from '../core/embedding/modelFolder.js';
import { readNoteFile } from '../core/vault/readNoteFile.js';
import { scanVault } from '../core/vault/scanVault.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const vault = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!vault) {
  console.error('usage: node --import tsx bench/embed.bench.ts <vault> [--batch-size N] [--model ID] [--dtype q8]');
  process.exit(2);
}

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

const loadStarted = performance.now();
const embedder = await createEmbedder({
  model: option('--model') ?? BUNDLED_MODEL,
  dtype: option('--dtype') ?? 'q8',
  batchSize: Number(option('--batch-size') ?? 0),
  maxTokens: 0,
  dataRoot: path.join(os.tmpdir(), 'cairn-bench-data'),
});
const loadSeconds = (performance.now() - loadStarted) / 1000;

const { files } = await scanVault(path.resolve(vault), defaultConfig().vault);
const chunker = await createChunker(defaultConfig().chunking, embedder.tokens);
const texts: string[] = [];
for (const file of files) {
  const note = await readNoteFile(file);
  for (const chunk of chunker.chunk({ path: note.path, text: note.text, mtimeMs: note.mtimeMs }).chunks) texts.push(chunk.content);
}
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

// The embedding runs in the worker process: this event loop's delay shows it stays free.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const started = performance.now();
let progressCalls = 0;
const vectors = await embedder.embed(texts, () => progressCalls++);
const seconds = (performance.now() - started) / 1000;
loopDelay.disable();
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
await embedder.close();

if (vectors.length !== texts.length) throw new Error(`got ${vectors.length} vectors for ${texts.length} texts`);
console.log(`vault          ${vault}`);
console.log(`model          ${embedder.modelId} (${embedder.dtype}, ${embedder.dims} dims, window ${embedder.tokens.window} tokens), loaded in ${loadSeconds.toFixed(2)} s`);
console.log(`chunks         ${texts.length} from ${files.length} notes, ${(bytes / 1e6).toFixed(2)} MB, mean ${Math.round(bytes / Math.max(1, texts.length))} bytes`);
console.log(`embed          ${seconds.toFixed(2)} s, batch size ${embedder.batchSize} (${progressCalls} batches), texts sorted by length`);
console.log(`throughput     ${(texts.length / seconds).toFixed(0)} chunks/s, ${(bytes / 1e6 / seconds).toFixed(2)} MB/s`);
console.log(`main loop      max delay ${(loopDelay.max / 1e6).toFixed(0)} ms while embedding`);
console.log(`peak RSS       ${(peakRss / 2 ** 20).toFixed(0)} MB this process (scan, chunks, vectors), ${(embedder.workerMaxRss / 2 ** 20).toFixed(0)} MB embedding worker process`);
