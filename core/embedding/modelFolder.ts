// A model's folder on disk, read before any worker loads it: the name and dtype checks, which files a complete folder
// holds, the model's kind, fingerprint and prefixes, and whether a cheap token count is exact for its tokenizer.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ModelPrefixes } from '../contract/models.js';
import { catalogModel, NO_PREFIXES } from './modelCatalog.js';

/** Which model the configuration names when it names none: shipped in <repo>/models, fully offline. */
export const BUNDLED_MODEL = 'cairn-retrieval-100d';

/** Failing to find, download, load or run the embedding model; the message says which model, what failed and what to do. */
export class EmbeddingModelError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EmbeddingModelError';
  }
}

// transformers.js's file name suffix per dtype (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING).
const DTYPE_SUFFIX: Readonly<Record<string, string>> = {
  fp32: '',
  fp16: '_fp16',
  int8: '_int8',
  uint8: '_uint8',
  q8: '_quantized',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};
export const EMBEDDING_DTYPES = Object.keys(DTYPE_SUFFIX);

export function isKnownDtype(dtype: string): boolean {
  return Object.hasOwn(DTYPE_SUFFIX, dtype);
}

export const USE_BUNDLED = `set [embedding] model = "${BUNDLED_MODEL}" (bundled)`;

export type ModelKind = 'static-word-embeddings' | 'transformer';

/**
 * The model's query and passage prefixes: its cairn.json's "prefixes" ({ "query": "...", "passage": "..." }) when
 * it has one, else the model catalog's (modelCatalog.ts), else none.
 */
export async function readModelPrefixes(modelDir: string, modelId: string): Promise<ModelPrefixes> {
  const file = path.join(modelDir, 'cairn.json');
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw new Error(`${file}: cannot be read (${e.code ?? e.message})`);
  });
  const given = text === undefined ? undefined : parsePrefixes(text, file);
  return given ?? { ...(catalogModel(modelId)?.prefixes ?? NO_PREFIXES) };
}

function parsePrefixes(text: string, file: string): ModelPrefixes | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
  const prefixes = (value as { prefixes?: unknown } | null)?.prefixes;
  if (prefixes === undefined) return undefined;
  if (typeof prefixes !== 'object' || prefixes === null || Array.isArray(prefixes)) throw new Error(`${file}: "prefixes" must be an object with "query" and "passage" strings`);
  const result = { ...NO_PREFIXES };
  for (const [key, given] of Object.entries(prefixes)) {
    if (key !== 'query' && key !== 'passage') throw new Error(`${file}: prefixes.${key} is not a prefix (expected query, passage)`);
    if (typeof given !== 'string' || given.length > 200) throw new Error(`${file}: prefixes.${key} must be a string of at most 200 characters`);
    result[key] = given;
  }
  return result;
}

/** Prefixes change every vector, so they are part of the model's identity; a model without prefixes keeps its file fingerprint. */
export function prefixedFingerprint(fingerprint: string, prefixes: ModelPrefixes): string {
  if (!prefixes.query && !prefixes.passage) return fingerprint;
  return createHash('sha256').update(`${fingerprint}\0query:${prefixes.query}\0passage:${prefixes.passage}`).digest('hex').slice(0, 16);
}

/** True for a bundled folder name or a hub "owner/name" (what `[embedding] model` may hold). */
export function isModelId(modelId: string): boolean {
  const segments = modelId.split('/');
  return segments.length <= 2 && segments.every((s) => /^[\w.-]{1,96}$/.test(s) && s !== '.' && s !== '..');
}

/** The weights file transformers.js loads for a dtype ('q8' → onnx/model_quantized.onnx). */
export function onnxFileFor(dtype: string): string {
  if (!Object.hasOwn(DTYPE_SUFFIX, dtype)) throw new EmbeddingModelError(`[embedding] dtype = "${dtype}" is not one of ${EMBEDDING_DTYPES.join(', ')}.`);
  return `onnx/model${DTYPE_SUFFIX[dtype]}.onnx`;
}

export function checkModelId(modelId: string) {
  // A bundled folder name, or a hub "owner/name"; never a path that leaves the models folders.
  if (!isModelId(modelId)) {
    throw new EmbeddingModelError(`[embedding] model = "${modelId}" is not a model name: use a bundled model ("${BUNDLED_MODEL}") or a Hugging Face id like "Xenova/bge-small-en-v1.5".`);
  }
}


export async function isCompleteModelFolder(dir: string, dtype: string): Promise<boolean> {
  return ['config.json', 'tokenizer.json', onnxFileFor(dtype)].every((f) => existsSync(path.join(dir, f)));
}

export interface ModelFolder {
  dir: string;
  kind: ModelKind;
  fingerprint: string;
  onnxFile: string;
  /** A table already adapted to a vault (config.json says from which model). */
  adapted: boolean;
}

/** Reads what the main thread needs to know about the model's files, failing early with a clear message. */
export async function inspectModelFolder(dir: string, modelId: string, dtype: string): Promise<ModelFolder> {
  const onnxFile = onnxFileFor(dtype);
  const read = (file: string) =>
    readFile(path.join(dir, file)).catch((e: NodeJS.ErrnoException) => {
      throw new EmbeddingModelError(`embedding model "${modelId}": cannot read ${path.join(dir, file)} (${e.code ?? e.message}); ${USE_BUNDLED} or restore the file.`);
    });
  const [configBytes, tokenizerBytes] = await Promise.all([read('config.json'), read('tokenizer.json')]);
  const onnxSize = await stat(path.join(dir, onnxFile)).then(
    (s) => s.size,
    async () => {
      const available = await readdir(path.join(dir, 'onnx')).catch(() => [] as string[]);
      throw new EmbeddingModelError(
        `embedding model "${modelId}" has no ${onnxFile} for [embedding] dtype = "${dtype}" (onnx/ holds: ${available.join(', ') || 'nothing'}); set dtype to match one of them.`,
      );
    },
  );
  const externalDataSize = await stat(path.join(dir, `${onnxFile}_data`)).then((s) => s.size, () => 0);
  let config: { cairn?: { kind?: string; adapted?: unknown } };
  // tokenizer.json is hashed, not parsed: reading its large vocabulary is the embedding worker's work.
  try {
    config = JSON.parse(configBytes.toString('utf8'));
  } catch (e) {
    throw new EmbeddingModelError(`embedding model "${modelId}" in ${dir}: config.json is not valid JSON (${(e as Error).message}).`);
  }
  const fingerprint = createHash('sha256')
    .update(configBytes)
    .update('\0')
    .update(tokenizerBytes)
    .update(`\0${onnxFile}:${onnxSize}:${externalDataSize}`)
    .digest('hex')
    .slice(0, 16);
  return {
    dir,
    kind: config.cairn?.kind === 'static-word-embeddings' ? 'static-word-embeddings' : 'transformer',
    fingerprint,
    onnxFile,
    adapted: config.cairn?.adapted !== undefined,
  };
}

/** What decides how a tokenizer counts: its parts' types (as tokenizer.json names them), vocabulary and added tokens. */
export interface TokenizerShape {
  normalizer?: string;
  preTokenizer?: string;
  model?: string;
  continuingSubwordPrefix?: string;
  /** Undefined when the vocabulary cannot be read: then nothing is assumed of it. */
  vocabulary?: Iterable<string>;
  addedTokens: readonly string[];
}

/**
 * True for a BERT WordPiece tokenizer whose vocabulary holds only whole words: it then emits exactly one token
 * per BERT pre-token, so BasicTokenCounter's count is exact for ordinary text and an upper bound otherwise (it
 * splits symbols and emoji off words, which BERT keeps as one [UNK]). It is ~25x faster than the tokenizer.
 */
export function countsOneTokenPerBasicToken(tokenizer: TokenizerShape): boolean {
  if (tokenizer.model !== 'WordPiece' || tokenizer.preTokenizer !== 'BertPreTokenizer' || !tokenizer.vocabulary) return false;
  if (tokenizer.normalizer !== undefined && tokenizer.normalizer !== 'BertNormalizer') return false;
  if (hasContinuationPieces(tokenizer.vocabulary, tokenizer.continuingSubwordPrefix ?? '##')) return false;
  // Added tokens are cut out of the text wherever they occur; bounded by punctuation ("[CLS]") they fall on
  // basic-token boundaries, but a letter-bounded one could split a word into more tokens than counted.
  return tokenizer.addedTokens.every((t) => /^[^\s\p{L}\p{M}\p{N}](?:.*[^\s\p{L}\p{M}\p{N}])?$/su.test(t));
}

/** Vocabularies already read for continuation pieces, by prefix: the embedding worker asks twice of 100,000 words. */
const piecesRead = new WeakMap<object, Map<string, boolean>>();

function hasContinuationPieces(vocabulary: Iterable<string>, prefix: string): boolean {
  const known = typeof vocabulary === 'object' ? piecesRead.get(vocabulary) : undefined;
  const seen = known?.get(prefix);
  if (seen !== undefined) return seen;
  let found = false;
  for (const word of vocabulary) {
    if (word.length > prefix.length && word.startsWith(prefix)) {
      found = true;
      break;
    }
  }
  if (typeof vocabulary === 'object') piecesRead.set(vocabulary, (known ?? new Map()).set(prefix, found));
  return found;
}
