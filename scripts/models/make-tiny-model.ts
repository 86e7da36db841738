/**
 * Tiny, deterministic, random BERT-shaped static-embedding model for tests.
 * Same files and graph as the shipped model (see core/adapt/staticModelWriter.ts), ~100
 * common English words, hidden size 32 by default; writes in milliseconds.
 *
 *   node --import tsx scripts/models/make-tiny-model.ts <dir> [--seed N] [--hidden 32]
 *
 * The vectors are random (seeded), so only structural properties are
 * meaningful: dims, unit norm, determinism, tokenisation, and that a text
 * embeds to the normalised mean of its known words' rows.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SPECIAL_TOKENS, writeBertEmbeddingModel, type Variant, type WriteResult } from '../../core/adapt/staticModelWriter.js';
import { seededRandom } from '../../core/random/seededRandom.js';

/** 100 common English words; every one is a single BERT basic-tokenizer token. */
export const TINY_WORDS = [
  'the', 'of', 'and', 'to', 'a', 'in', 'is', 'it', 'that', 'for',
  'on', 'with', 'as', 'was', 'at', 'by', 'this', 'be', 'from', 'or',
  'not', 'are', 'an', 'but', 'have', 'has', 'can', 'will', 'one', 'two',
  'all', 'new', 'more', 'some', 'time', 'year', 'day', 'people', 'way', 'work',
  'cat', 'dog', 'kitten', 'puppy', 'animal', 'pet', 'rug', 'carpet', 'sat', 'slept',
  'car', 'road', 'drive', 'train', 'city', 'house', 'room', 'table', 'desk', 'chair',
  'code', 'file', 'data', 'server', 'database', 'query', 'index', 'search', 'note', 'notes',
  'test', 'build', 'error', 'bug', 'fix', 'run', 'user', 'list', 'page', 'text',
  'water', 'food', 'coffee', 'tea', 'bread', 'music', 'book', 'read', 'write', 'learn',
  'red', 'blue', 'green', 'big', 'small', 'fast', 'slow', 'good', 'bad', '2024',
];

export interface TinyModelOptions {
  /** PRNG seed. Default 42. */
  seed?: number;
  /** Final hidden size (including the empty-text axis). Default 32. */
  hiddenSize?: number;
  /** ONNX files to write. Default both fp32 and q8. */
  variants?: Variant[];
}

/** The vocabulary of the tiny model: specials first (ids 0-4), then TINY_WORDS. */
export function tinyVocab(): string[] {
  return [...SPECIAL_TOKENS, ...TINY_WORDS];
}

/** The word-vector table (before the writer zeroes specials and appends the empty-text axis). */
export function tinyEmbeddings(seed = 42, dims = 31): Float32Array {
  const vocab = tinyVocab();
  const next = seededRandom(seed);
  const table = new Float32Array(vocab.length * dims);
  for (let i = 0; i < table.length; i++) {
    // Box-Muller standard normal.
    const u = Math.max(next(), 1e-12);
    const v = next();
    table[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  return table;
}

export async function writeTinyModel(dir: string, opts: TinyModelOptions = {}): Promise<WriteResult> {
  const hidden = opts.hiddenSize ?? 32;
  if (hidden < 2) throw new Error('hiddenSize must be >= 2');
  const dims = hidden - 1; // one axis is reserved for empty / all-unknown texts
  return writeBertEmbeddingModel(
    dir,
    { vocab: tinyVocab(), embeddings: tinyEmbeddings(opts.seed ?? 42, dims), dims },
    {
      variants: opts.variants ?? ['fp32', 'q8'],
      description: 'Tiny random static-embedding model for tests. Not meaningful.',
      metadata: { seed: opts.seed ?? 42 },
    },
  );
}

function parseArgs(argv: string[]) {
  let dir: string | undefined;
  const opts: TinyModelOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seed') opts.seed = Number(argv[++i]);
    else if (a === '--hidden') opts.hiddenSize = Number(argv[++i]);
    else if (a === '--variants') opts.variants = argv[++i].split(',') as Variant[];
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else dir = a;
  }
  if (!dir) throw new Error('usage: make-tiny-model.ts <dir> [--seed N] [--hidden N] [--variants fp32,q8]');
  return { dir, opts };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { dir, opts } = parseArgs(process.argv.slice(2));
  const res = await writeTinyModel(dir, opts);
  for (const f of res.files) console.log(`${f.bytes.toString().padStart(8)}  ${path.join(dir, f.path)}`);
}
