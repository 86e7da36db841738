/**
 * The static embedding models load through the real transformers.js path:
 * pipeline('feature-extraction', id, { dtype }) with { pooling: 'mean', normalize: true },
 * local files only (env.allowRemoteModels = false).
 *
 * A tiny random model is generated into a temp dir for the structural tests;
 * the shipped models/cairn-glove-100d is tested when present.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { tinyEmbeddings, tinyVocab, writeTinyModel } from '../scripts/models/make-tiny-model.js';
import { useLocalModels } from './support/localModels.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GLOVE_ROOT = path.join(REPO, 'models');
const GLOVE_ID = 'cairn-glove-100d';

type Dtype = 'fp32' | 'q8';

/** Loads a model folder <root>/<id> the way the app does: local files only. */
async function load(root: string, id: string, dtype?: Dtype): Promise<FeatureExtractionPipeline> {
  useLocalModels(root);
  return (await pipeline('feature-extraction', id, dtype ? { dtype } : {})) as FeatureExtractionPipeline;
}

async function embed(ext: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
  const out = await ext(texts, { pooling: 'mean', normalize: true });
  assert.equal(out.dims.length, 2);
  assert.equal(out.dims[0], texts.length);
  const d = out.dims[1];
  const data = out.data as Float32Array;
  return texts.map((_, i) => data.slice(i * d, (i + 1) * d));
}

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, what: string) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tol, `${what}: [${i}] ${actual[i]} vs ${expected[i]}`);
  }
}

const HIDDEN = 32;
const WORD_DIMS = HIDDEN - 1; // the last axis is reserved for empty / all-unknown texts
const EMPTY_AXIS = Array.from({ length: HIDDEN }, (_, i) => (i === WORD_DIMS ? 1 : 0));

/** What the tiny model must return: normalised sum of the known words' rows, plus [CLS]'s epsilon on the empty axis. */
function expectedTiny(words: string[]): number[] {
  const vocab = tinyVocab();
  const table = tinyEmbeddings(42, WORD_DIMS);
  const v = new Array<number>(HIDDEN).fill(0);
  for (const w of words) {
    const id = vocab.indexOf(w);
    assert.ok(id >= 5, `${w} is a tiny-model word`);
    for (let k = 0; k < WORD_DIMS; k++) v[k] += table[id * WORD_DIMS + k];
  }
  v[WORD_DIMS] = 1e-5;
  const n = norm(v);
  return v.map((x) => x / n);
}

describe('tiny static embedding model through transformers.js', () => {
  let root: string;
  let fp32: FeatureExtractionPipeline;
  let q8: FeatureExtractionPipeline;

  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-tiny-model-'));
    await writeTinyModel(path.join(root, 'tiny'));
    fp32 = await load(root, 'tiny', 'fp32');
    q8 = await load(root, 'tiny', 'q8');
  });
  after(async () => {
    await fp32?.dispose();
    await q8?.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it('writes the files transformers.js expects, small', async () => {
    const files = (await readdir(path.join(root, 'tiny'), { recursive: true })).sort();
    assert.deepEqual(files, [
      'config.json', 'onnx', 'onnx/model.onnx', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json',
    ]);
    const config = JSON.parse(await readFile(path.join(root, 'tiny', 'config.json'), 'utf8'));
    assert.equal(config.model_type, 'bert');
    assert.equal(config.hidden_size, HIDDEN);
    assert.equal(config.vocab_size, tinyVocab().length);
    assert.deepEqual(fp32.model.sessions.model.inputNames, ['input_ids', 'attention_mask', 'token_type_ids']);
  });

  it('returns [n, hidden] unit vectors for fp32 and q8', async () => {
    const texts = ['the cat sat on the rug', 'Build and run the test, then fix the bug.', 'coffee'];
    for (const ext of [fp32, q8]) {
      const vecs = await embed(ext, texts);
      for (const v of vecs) {
        assert.equal(v.length, HIDDEN);
        assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
      }
    }
  });

  it('computes the normalised mean of the known words’ rows (unknown words and punctuation add nothing)', async () => {
    const [a, b, c] = await embed(fp32, ['the cat sat on the rug', 'The CAT sat, on the rüg!', 'the cat xyzzy sat on plugh the rug ???']);
    const expected = expectedTiny(['the', 'cat', 'sat', 'on', 'the', 'rug']);
    assertClose(a, expected, 1e-5, 'plain text');
    assertClose(b, expected, 1e-5, 'case, accents and punctuation');
    assertClose(c, expected, 1e-5, 'unknown words');
  });

  it('q8 stays within cosine 0.999 of fp32', async () => {
    const texts = ['the cat sat on the rug', 'search the notes index for the query', 'red green blue', 'water'];
    const [a, b] = [await embed(fp32, texts), await embed(q8, texts)];
    for (let i = 0; i < texts.length; i++) assert.ok(dot(a[i], b[i]) > 0.999, `${texts[i]}: ${dot(a[i], b[i])}`);
  });

  it('is deterministic: same call, batching/padding, and regenerating the model give the same result', async () => {
    const long = 'the big red dog and the small green cat read a good book about fast cars on the road in the city';
    const [x1] = await embed(fp32, ['data index search']);
    const [x2] = await embed(fp32, ['data index search']);
    const [x3] = await embed(fp32, [long, 'data index search']).then((v) => v.slice(1));
    assert.deepEqual(x1, x2);
    assertClose(x3, x1, 1e-6, 'padded in a batch');

    const again = path.join(root, 'tiny-again');
    const other = path.join(root, 'tiny-other-seed');
    await writeTinyModel(again);
    await writeTinyModel(other, { seed: 7 });
    for (const f of ['onnx/model.onnx', 'onnx/model_quantized.onnx', 'tokenizer.json', 'config.json']) {
      assert.deepEqual(await readFile(path.join(again, f)), await readFile(path.join(root, 'tiny', f)), f);
    }
    assert.notDeepEqual(await readFile(path.join(other, 'onnx/model.onnx')), await readFile(path.join(root, 'tiny', 'onnx/model.onnx')));
  });

  it('embeds empty and all-unknown texts to the reserved unit axis (not NaN, not a crash)', async () => {
    for (const ext of [fp32, q8]) {
      const [empty, unknown, punct, cjk, known] = await embed(ext, ['', 'xyzzy plugh frobnicate', '!!! ... ???', '猫が好き', 'cat']);
      for (const v of [empty, unknown, punct, cjk]) {
        assert.ok(v.every(Number.isFinite), 'finite');
        assertClose(v, EMPTY_AXIS, 1e-6, 'empty axis');
      }
      // ~orthogonal to any text that has a known word
      assert.ok(Math.abs(dot(unknown, known)) < 1e-3, `cos ${dot(unknown, known)}`);
    }
  });

  it('tokenizes like a lowercasing whole-word BERT WordPiece tokenizer and counts tokens as expected', () => {
    const tok = fp32.tokenizer;
    assert.deepEqual(tok.tokenize('The Cat sat, on the RÜG!'), ['the', 'cat', 'sat', '[UNK]', 'on', 'the', 'rug', '[UNK]']);
    // CJK characters are split off one by one; words with no vocabulary entry (no ## pieces) are one [UNK]
    assert.deepEqual(tok.tokenize('猫cat catty'), ['[UNK]', 'cat', '[UNK]']);
    const vocab = tinyVocab();
    const enc = tok('The Cat sat, on the RÜG!');
    const ids = (enc.input_ids.tolist() as bigint[][])[0].map(Number);
    assert.deepEqual(ids, ['[CLS]', 'the', 'cat', 'sat', '[UNK]', 'on', 'the', 'rug', '[UNK]', '[SEP]'].map((t) => vocab.indexOf(t)));
    assert.equal((enc.attention_mask.tolist() as bigint[][])[0].length, 10);
    assert.equal(tok.model_max_length, 512);
    // Long texts are truncated to model_max_length, [CLS] and [SEP] included.
    const long = Array.from({ length: 600 }, () => 'note').join(' ');
    assert.equal(tok(long, { truncation: true }).input_ids.dims[1], 512);
    assert.equal(tok(long).input_ids.dims[1], 602);
  });

  it('a model shipped with only the q8 file loads without a dtype (config.json names q8)', async () => {
    await writeTinyModel(path.join(root, 'tiny-q8'), { variants: ['q8'] });
    assert.equal(existsSync(path.join(root, 'tiny-q8', 'onnx', 'model.onnx')), false);
    const ext = await load(root, 'tiny-q8');
    try {
      const [a] = await embed(ext, ['the cat sat on the rug']);
      assert.ok(dot(a, expectedTiny(['the', 'cat', 'sat', 'on', 'the', 'rug'])) > 0.999);
    } finally {
      await ext.dispose();
    }
  });
});

describe('shipped model models/cairn-glove-100d', { skip: !existsSync(path.join(GLOVE_ROOT, GLOVE_ID, 'config.json')) }, () => {
  let ext: FeatureExtractionPipeline;
  before(async () => {
    ext = await load(GLOVE_ROOT, GLOVE_ID, 'q8');
  });
  after(async () => {
    await ext?.dispose();
  });

  it('ships the q8 model with its tokenizer, README and licence files', async () => {
    const dir = path.join(GLOVE_ROOT, GLOVE_ID);
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx', 'README.md', 'LICENSE-GloVe-PDDL.md', 'LICENSE-wink-embeddings-MIT.md']) {
      assert.ok(existsSync(path.join(dir, f)), f);
    }
    const config = JSON.parse(await readFile(path.join(dir, 'config.json'), 'utf8'));
    assert.equal(config['transformers.js_config'].dtype, 'q8');
    assert.equal(config.hidden_size, 101);
  });

  it('returns 101-d unit vectors and the reserved axis for text without known words', async () => {
    const [a, empty] = await embed(ext, ['Notes about the meeting with the design team.', '']);
    assert.equal(a.length, 101);
    assert.ok(Math.abs(norm(a) - 1) < 1e-5);
    assertClose(empty, Array.from({ length: 101 }, (_, i) => (i === 100 ? 1 : 0)), 1e-6, 'empty text');
    assert.ok(Math.abs(a[100]) < 1e-3);
  });

  it('scores related sentence pairs above unrelated ones', async () => {
    const pairs: [string, string][] = [
      ['The cat rested on the carpet.', 'The kitten slept on the rug.'],
      ['Use git to revert the last commit.', 'Undo the most recent change in version control.'],
      ['The server crashed because it ran out of memory.', 'An out-of-memory error brought down the backend process.'],
      ['The recipe needs flour, sugar and eggs.', 'Baking the cake requires eggs, sugar and flour.'],
      ['My laptop battery drains quickly.', 'The notebook computer loses charge fast.'],
    ];
    const vecs = await embed(ext, pairs.flat());
    const a = (i: number) => vecs[2 * i];
    const b = (i: number) => vecs[2 * i + 1];
    const related: number[] = [];
    const unrelated: number[] = [];
    for (let i = 0; i < pairs.length; i++) {
      related.push(dot(a(i), b(i)));
      for (let j = 0; j < pairs.length; j++) {
        if (j === i) continue;
        const u = dot(a(i), b(j));
        unrelated.push(u);
        // each sentence is closer to its paraphrase than to any other pair's sentence
        assert.ok(related[i] > u + 0.05, `"${pairs[i][0]}": related ${related[i].toFixed(3)} vs "${pairs[j][1]}" ${u.toFixed(3)}`);
      }
    }
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y) / xs.length;
    // measured when the model was built: related mean ~0.59, unrelated mean ~0.10
    assert.ok(mean(related) - mean(unrelated) > 0.3, `related mean ${mean(related)} vs unrelated mean ${mean(unrelated)}`);
  });

  it('ranks the answering note first for a paraphrased question', async () => {
    const notes = [
      'To undo the last commit in git, run git reset --soft HEAD~1; the changes stay staged.',
      'Sourdough bread: mix flour, water and starter, let the dough rise overnight, bake at 230 degrees.',
      'Kubernetes pods restart when the liveness probe fails or the container exceeds its memory limit.',
      'Trip to Lisbon in May: book flights, a hotel near the old town, and a tram pass.',
    ];
    const [q, ...docs] = await embed(ext, ['how do I roll back my most recent change in version control?', ...notes]);
    const scores = docs.map((d) => dot(q, d));
    assert.equal(scores.indexOf(Math.max(...scores)), 0, `scores ${scores.map((s) => s.toFixed(3)).join(', ')}`);
  });
});
