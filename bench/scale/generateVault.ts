/**
 * Builds a large, deterministic vault from the real corpora, sized by its chunk count under the default chunking:
 *
 *   node --import tsx bench/scale/generateVault.ts <corpora> <out-dir> [--chunks 50k] [--seed N]
 *
 * Writes <out-dir>/vault (the notes, written as they are made), <out-dir>/samples.json (queries from generated titles
 * and headings, and notes to edit) and <out-dir>/generated.json (what was made; a second run with the same arguments
 * reuses the vault). Chunks per note are estimated by chunking a sample of generated notes with Cairn's own chunker.
 */
import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chunkFiles } from '../../core/app/index.js';
import { defaultConfig } from '../../core/config/schema.js';
import { seededMtimes } from '../../core/search/seededMtimes.js';
import { argValue } from '../support.js';
import { readFamilies } from './corpusNotes.js';
import { VaultPlan, type MadeNote, type PlannedNote } from './noteMaker.js';
import { parseSize } from './sizes.js';

/** Bumped when the same arguments would make different notes: an older vault is then made again. */
const GENERATOR_VERSION = 2;
const SAMPLE_NOTES = 600;
const WRITE_BATCH = 64;
const EDITABLE_NOTES = 50;
const MAX_CHUNK_CHARS = defaultConfig().chunking.max_chunk_chars;

export interface GeneratedVault {
  version: number;
  seed: number;
  targetChunks: number;
  notes: number;
  chunksPerNote: number;
  bytes: number;
  seconds: number;
}

export interface VaultSamples {
  queries: string[];
  editable: string[];
}

export const vaultFolder = (outDir: string) => path.join(outDir, 'vault');
export const samplesFile = (outDir: string) => path.join(outDir, 'samples.json');

export async function generateVault(options: { corpora: string; outDir: string; targetChunks: number; seed?: number; queries?: number; log?: (line: string) => void }): Promise<GeneratedVault> {
  const { corpora, outDir, targetChunks, seed = 1, queries = 300, log = () => {} } = options;
  const infoFile = path.join(outDir, 'generated.json');
  const previous = (await readFile(infoFile, 'utf8').then(JSON.parse, () => undefined)) as GeneratedVault | undefined;
  if (previous && previous.version === GENERATOR_VERSION && previous.seed === seed && previous.targetChunks === targetChunks) {
    log(`reusing ${outDir} (${previous.notes} notes)`);
    return previous;
  }
  const started = performance.now();
  await rm(outDir, { recursive: true, force: true });
  const families = await readFamilies(corpora);
  log(`corpora: ${families.map((f) => `${f.name} ${f.notes.length}`).join(', ')} notes`);

  const samplePlan = new VaultPlan(families, seed, SAMPLE_NOTES);
  const ratio = await chunksPerGuess(samplePlan, path.join(outDir, 'sample'));
  const plan = new VaultPlan(families, seed, notesFor(targetChunks / ratio, samplePlan));
  const chunksPerNote = targetChunks / plan.count;
  log(`${chunksPerNote.toFixed(2)} chunks per note (chunker on a sample of ${SAMPLE_NOTES}, ${ratio.toFixed(2)} chunks per guessed one): ${plan.count} notes for ${targetChunks} chunks`);

  const vault = vaultFolder(outDir);
  const querySpacing = Math.max(1, Math.floor(plan.count / queries));
  const samples: VaultSamples = { queries: [], editable: [] };
  const paths: string[] = [];
  let bytes = 0;
  await writeNotes(plan, vault, (index, planned, made) => {
    paths.push(planned.path);
    bytes += Buffer.byteLength(made.text);
    if (index % querySpacing === 0 && samples.queries.length < queries) samples.queries.push(queryFor(index, planned.base.title, made.headings));
    if (index % Math.max(1, Math.floor(plan.count / EDITABLE_NOTES)) === 0 && samples.editable.length < EDITABLE_NOTES) samples.editable.push(planned.path);
    if (index % 10_000 === 0 && index > 0) log(`${index} notes written`);
  });
  // Realistic modification times: 5 % this week, 10 % earlier this month, the rest over two years.
  for (const [file, mtime] of seededMtimes(paths, seed, Date.now())) await utimes(path.join(vault, file), mtime / 1000, mtime / 1000);

  const info: GeneratedVault = { version: GENERATOR_VERSION, seed, targetChunks, notes: plan.count, chunksPerNote, bytes, seconds: (performance.now() - started) / 1000 };
  await writeFile(samplesFile(outDir), JSON.stringify(samples, null, 1));
  await writeFile(infoFile, JSON.stringify(info, null, 1));
  return info;
}

/** Writes every note of the plan, a batch at a time (the vault is never held in memory). */
async function writeNotes(plan: VaultPlan, vault: string, onNote: (index: number, planned: PlannedNote, made: MadeNote) => void): Promise<void> {
  const folders = new Set<string>();
  for (let start = 0; start < plan.count; start += WRITE_BATCH) {
    const writes: Promise<void>[] = [];
    for (let index = start; index < Math.min(plan.count, start + WRITE_BATCH); index++) {
      const planned = plan.note(index);
      const made = plan.make(index);
      onNote(index, planned, made);
      const file = path.join(vault, planned.path);
      const folder = path.dirname(file);
      if (!folders.has(folder)) (folders.add(folder), await mkdir(folder, { recursive: true }));
      writes.push(writeFile(file, made.text));
    }
    await Promise.all(writes);
  }
}

/** A query as a user might type it: a note's title without its generated suffix, a heading, or both. */
function queryFor(index: number, baseTitle: string, headings: string[]): string {
  const heading = headings[index % Math.max(1, headings.length)] ?? baseTitle;
  const kind = index % 3;
  return kind === 0 ? baseTitle : kind === 1 ? heading : `${baseTitle} ${heading}`;
}

/**
 * A quick guess of a generated note's chunk count from its base note: its sections, long ones counted once per
 * max_chunk_chars. Notes differ widely (one PowerShell reference page makes 100 chunks), so the count of notes needed
 * is summed from each planned note's guess, scaled by the chunker's count over the guesses on a sample.
 */
function guessChunks(note: PlannedNote): number {
  return (note.base.intro.trim() ? 1 : 0) + note.base.sections.reduce((n, s) => n + Math.max(1, Math.ceil(s.length / MAX_CHUNK_CHARS)), 0);
}

function notesFor(guessedChunks: number, plan: VaultPlan): number {
  let count = 0;
  for (let sum = 0; sum < guessedChunks; count++) sum += guessChunks(plan.note(count));
  return Math.max(1, count);
}

/** The real chunker's chunk count on a sample of generated notes, per guessed chunk. */
async function chunksPerGuess(samplePlan: VaultPlan, dir: string): Promise<number> {
  await writeNotes(samplePlan, dir, () => {});
  const config = defaultConfig();
  config.index.data_dir = path.join(dir, '..', 'sample-data');
  let chunks = 0;
  for await (const file of chunkFiles([dir], config)) if ('chunks' in file) chunks += file.chunks.length;
  await rm(dir, { recursive: true, force: true });
  await rm(config.index.data_dir, { recursive: true, force: true });
  let guessed = 0;
  for (let i = 0; i < samplePlan.count; i++) guessed += guessChunks(samplePlan.note(i));
  return chunks / guessed;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const [corpora, outDir] = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  if (!corpora || !outDir) {
    console.error('usage: node --import tsx bench/scale/generateVault.ts <corpora> <out-dir> [--chunks 50k] [--seed N]');
    process.exit(2);
  }
  const info = await generateVault({ corpora, outDir: path.resolve(outDir), targetChunks: parseSize(argValue(args, '--chunks') ?? '50k'), seed: Number(argValue(args, '--seed') ?? 1), log: console.log });
  console.log(`${info.notes} notes, ${(info.bytes / 1e6).toFixed(1)} MB in ${info.seconds.toFixed(1)} s → ${vaultFolder(path.resolve(outDir))}`);
}
