/**
 * The embedder through its real worker process: a tiny model written into a temporary "bundled models" folder
 * for the structural tests, the shipped cairn-glove-100d for the event-loop and token-count tests, and a local
 * HTTP server standing in for the Hugging Face hub for the download path.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import fc from 'fast-check';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import { createEmbedder, type Embedder, type EmbedderOptions, type EmbeddingProgress } from '../core/embedding/embedder.js';
import { BUNDLED_MODEL, EmbeddingModelError } from '../core/embedding/modelFolder.js';
import { writeTinyModel } from '../scripts/models/make-tiny-model.js';
import { useLocalModels } from './support/localModels.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HAS_BUNDLED = existsSync(path.join(REPO, 'models', BUNDLED_MODEL, 'config.json'));
const TINY_DIMS = 32;

const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));
const crashWorker = (e: Embedder) => (e as unknown as { crashWorkerForTesting(): void }).crashWorkerForTesting();

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, what: string) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++) assert.ok(Math.abs(actual[i] - expected[i]) <= tol, `${what}: [${i}] ${actual[i]} vs ${expected[i]}`);
}

/** Texts of 1-30 tiny-model words, deliberately not in length order. */
function tinyTexts(n: number): string[] {
  const words = ['cat', 'dog', 'the', 'search', 'index', 'coffee', 'red', 'fast', 'note', 'unknownword', 'code', '!'];
  return Array.from({ length: n }, (_, i) => Array.from({ length: 1 + ((i * 7919) % 30) }, (_, k) => words[(i + k * 3) % words.length]).join(' '));
}

let root: string;
let modelsDir: string;
let dataRoot: string;
const options = (overrides: Partial<EmbedderOptions> = {}): EmbedderOptions => ({
  model: 'tiny',
  dtype: 'q8',
  batchSize: 0,
  maxTokens: 0,
  dataRoot,
  modelsDir,
  ...overrides,
});

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'cairn-embedder-'));
  modelsDir = path.join(root, 'models');
  dataRoot = path.join(root, 'data');
  await writeTinyModel(path.join(modelsDir, 'tiny'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('embedder with the tiny model, through the worker', () => {
  let embedder: Embedder;
  before(async () => {
    embedder = await createEmbedder(options({ batchSize: 3 }));
  });
  after(async () => {
    await embedder?.close();
  });

  it('describes the model: id, dims, dtype, fingerprint, window, batch size', () => {
    assert.equal(embedder.modelId, 'tiny');
    assert.equal(embedder.dims, TINY_DIMS);
    assert.equal(embedder.dtype, 'q8');
    assert.match(embedder.fingerprint, /^[0-9a-f]{16}$/);
    assert.ok(embedder.tokens instanceof BasicTokenCounter, 'whole-word vocabulary counts with BasicTokenCounter');
    assert.equal(embedder.tokens.window, 510);
    assert.equal(embedder.batchSize, 3);
  });

  it('returns unit vectors in input order although batches are sorted by length', async () => {
    const texts = tinyTexts(20);
    const batched = await embedder.embed(texts);
    assert.equal(batched.length, texts.length);
    for (const [i, text] of texts.entries()) {
      assert.equal(batched[i].length, TINY_DIMS);
      assert.ok(Math.abs(norm(batched[i]) - 1) < 1e-5, `norm ${norm(batched[i])}`);
      const [alone] = await embedder.embed([text]);
      assertClose(batched[i], alone, 1e-6, `text ${i} batched vs alone`);
    }
  });

  it('is deterministic across calls and across embedders (two workers at once)', async () => {
    const texts = tinyTexts(12);
    const first = (await embedder.embed(texts)).map((v) => Array.from(v));
    assert.deepEqual((await embedder.embed(texts)).map((v) => Array.from(v)), first);
    const other = await createEmbedder(options({ batchSize: 5 }));
    try {
      assert.equal(other.fingerprint, embedder.fingerprint);
      const again = await other.embed(texts);
      again.forEach((v, i) => assertClose(v, first[i], 1e-6, `text ${i}`));
    } finally {
      await other.close();
    }
  });

  it('reports progress once per batch, adding up to the total', async () => {
    const progress: EmbeddingProgress[] = [];
    await embedder.embed(tinyTexts(10), (p) => progress.push(p));
    assert.deepEqual(progress, [3, 6, 9, 10].map((done) => ({ done, total: 10 })));
  });

  it('returns [] for no texts without running the model', async () => {
    let calls = 0;
    assert.deepEqual(await embedder.embed([], () => calls++), []);
    assert.equal(calls, 0);
  });

  it('rejects with the abort reason when aborted, and keeps working', async () => {
    const controller = new AbortController();
    const texts = tinyTexts(3000);
    const pending = embedder.embed(texts, () => controller.abort(new Error('stop here')), controller.signal);
    await assert.rejects(pending, /stop here/);
    await assert.rejects(embedder.embed(['cat'], undefined, AbortSignal.abort()), { name: 'AbortError' });
    const [v] = await embedder.embed(['cat']);
    assert.equal(v.length, TINY_DIMS);
  });

  it('rejects pending calls with a clear error when the worker crashes, and restarts it on the next call', async () => {
    const texts = tinyTexts(3000);
    const [before] = await embedder.embed(['the cat']);
    const expected = Array.from(before);
    const pending = embedder.embed(texts);
    crashWorker(embedder);
    await assert.rejects(pending, (e: unknown) => {
      assert.ok(e instanceof EmbeddingModelError);
      assert.match(e.message, /embedding worker for model "tiny" exited \(code 1\): Error: crash requested by the test hook; the next embed\(\) call starts a new one/);
      return true;
    });
    const [after] = await embedder.embed(['the cat']);
    assertClose(after, expected, 0, 'after restart');
    assert.equal((await embedder.embed(texts)).length, texts.length);
  });

  it('honours [embedding] max_tokens below the model window, and ignores it above', async () => {
    for (const [maxTokens, window] of [[100, 100], [5000, 510]]) {
      const e = await createEmbedder(options({ maxTokens }));
      try {
        assert.equal(e.tokens.window, window);
      } finally {
        await e.close();
      }
    }
  });

  it('uses the default batch size for a static model when batch_size is 0', async () => {
    const e = await createEmbedder(options());
    try {
      assert.equal(e.batchSize, 32);
    } finally {
      await e.close();
    }
  });

  it('rejects calls after close()', async () => {
    const e = await createEmbedder(options());
    await e.close();
    await assert.rejects(e.embed(['cat']), EmbeddingModelError);
  });
});

describe('embedder configuration errors', () => {
  it('names the available ONNX files when the dtype has none', async () => {
    await writeTinyModel(path.join(modelsDir, 'tiny-q8-only'), { variants: ['q8'] });
    await assert.rejects(createEmbedder(options({ model: 'tiny-q8-only', dtype: 'fp32' })), (e: unknown) => {
      assert.ok(e instanceof EmbeddingModelError);
      assert.match(e.message, /"tiny-q8-only" has no onnx\/model\.onnx for \[embedding\] dtype = "fp32" \(onnx\/ holds: model_quantized\.onnx\)/);
      return true;
    });
  });

  it('rejects unknown dtypes and model names that are paths', async () => {
    await assert.rejects(createEmbedder(options({ dtype: 'int3' })), /dtype = "int3" is not one of fp32, fp16/);
    for (const model of ['../tiny', 'a/b/c', '', 'x/..']) {
      await assert.rejects(createEmbedder(options({ model })), (e: unknown) => e instanceof EmbeddingModelError && /is not a model name/.test(e.message), model);
    }
  });

  it('fails fast with EmbeddingModelError naming an unknown hub model when offline', async () => {
    const started = performance.now();
    await assert.rejects(createEmbedder(options({ model: 'cairn-test/no-such-model' })), (e: unknown) => {
      assert.ok(e instanceof EmbeddingModelError);
      assert.match(e.message, /^embedding model "cairn-test\/no-such-model" is not in .*models and could not be downloaded from the Hugging Face hub \(.+\)\./);
      assert.match(e.message, /set \[embedding\] model = "cairn-retrieval-100d" \(bundled\)/);
      return true;
    });
    assert.ok(performance.now() - started < 35_000, `took ${performance.now() - started} ms`);
    assert.deepEqual((await readdir(path.join(dataRoot, 'models'))).filter((f) => f.startsWith('.download-')), [], 'no staging folder left');
  });
});

describe('hub models (a local server stands in for the hub)', () => {
  let server: Server;
  let hubUrl: string;
  const requests: string[] = [];
  const HUB_ID = 'cairn-test/tiny-hub';

  before(async () => {
    const hubRoot = path.join(root, 'hub');
    await writeTinyModel(path.join(hubRoot, HUB_ID), { variants: ['q8'] });
    server = createServer(async (req, res) => {
      requests.push(req.url ?? '');
      // <owner>/<name>/resolve/<revision>/<file>, as huggingface.co serves it
      const match = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
      const body = match ? await readFile(path.join(hubRoot, match[1], match[2])).catch(() => undefined) : undefined;
      res.writeHead(body ? 200 : 404, { 'content-length': body?.length ?? 0 }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hubUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => {
    server?.close();
  });

  it('downloads once into <dataRoot>/models, then loads offline', async () => {
    const first = await createEmbedder(options({ model: HUB_ID, hubUrl }));
    const expected = Array.from((await first.embed(['the cat sat']))[0]);
    await first.close();
    const downloaded = path.join(dataRoot, 'models', HUB_ID);
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']) assert.ok(existsSync(path.join(downloaded, f)), f);
    assert.deepEqual((await readdir(path.join(dataRoot, 'models'))).filter((f) => f.startsWith('.download-')), [], 'no staging folder left');

    const served = requests.length;
    const second = await createEmbedder(options({ model: HUB_ID, hubUrl: 'http://127.0.0.1:9/' }));
    try {
      assert.equal(requests.length, served, 'no request the second time');
      assert.equal(second.fingerprint, first.fingerprint);
      assertClose((await second.embed(['the cat sat']))[0], expected, 1e-6, 'offline copy');
    } finally {
      await second.close();
    }
  });

  it('says to check the model id when the hub has no such model', async () => {
    await assert.rejects(createEmbedder(options({ model: 'cairn-test/missing', hubUrl })), (e: unknown) => {
      assert.ok(e instanceof EmbeddingModelError);
      assert.match(e.message, /"cairn-test\/missing" is not in .* could not be downloaded .*Could not locate file.*Check that "cairn-test\/missing" is a Hugging Face model with ONNX weights/);
      return true;
    });
    assert.equal(existsSync(path.join(dataRoot, 'models', 'cairn-test', 'missing')), false);
  });
});

describe('token counting', () => {
  it('counts with the real tokenizer when the vocabulary has ## word pieces', async () => {
    // The tiny model with one vocabulary entry renamed to a continuation piece: "cats" becomes cat + ##s.
    const dir = path.join(modelsDir, 'tiny-wordpiece');
    await cp(path.join(modelsDir, 'tiny'), dir, { recursive: true });
    const tokenizerFile = path.join(dir, 'tokenizer.json');
    const tokenizer = JSON.parse(await readFile(tokenizerFile, 'utf8'));
    const { bad: id, ...rest } = tokenizer.model.vocab;
    tokenizer.model.vocab = { ...rest, '##s': id };
    await writeFile(tokenizerFile, JSON.stringify(tokenizer));
    const e = await createEmbedder(options({ model: 'tiny-wordpiece' }));
    try {
      assert.ok(!(e.tokens instanceof BasicTokenCounter));
      assert.equal(e.tokens.count('cats and dogs!'), 6); // cat ##s and dog ##s !
      assert.equal(new BasicTokenCounter(510).count('cats and dogs!'), 4);
      assert.equal(e.tokens.window, 510);
      assert.equal((await e.embed(['cats'])).length, 1);
      // The counter the chunk worker builds from the folder counts exactly as transformers.js's tokenizer does.
      useLocalModels(modelsDir);
      const reference = await AutoTokenizer.from_pretrained('tiny-wordpiece');
      const real = (text: string) => reference.encode(text, { add_special_tokens: false }).length;
      const piece = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.constantFrom('cats', 'dogs', ' ', '\n', '.', 'É', '猫', '🙂', '[CLS]', '##s', 'bad'));
      fc.assert(fc.property(fc.array(piece, { maxLength: 30 }).map((p) => p.join('')), (text) => e.tokens.count(text) === real(text)), { numRuns: 1000 });
    } finally {
      await e.close();
    }
  });

  it('counts with the real tokenizer when the words are not split as BERT splits them', async () => {
    // A whole-word vocabulary split at whitespace only: "dogs!" is one piece, unknown to the vocabulary, so one token.
    const dir = path.join(modelsDir, 'tiny-whitespace');
    await cp(path.join(modelsDir, 'tiny'), dir, { recursive: true });
    const tokenizerFile = path.join(dir, 'tokenizer.json');
    const tokenizer = JSON.parse(await readFile(tokenizerFile, 'utf8'));
    tokenizer.pre_tokenizer = { type: 'WhitespaceSplit' };
    await writeFile(tokenizerFile, JSON.stringify(tokenizer));
    const e = await createEmbedder(options({ model: 'tiny-whitespace' }));
    try {
      assert.ok(!(e.tokens instanceof BasicTokenCounter));
      assert.equal(e.tokens.count('cats and dogs!'), 3);
    } finally {
      await e.close();
    }
  });

  describe('bundled model', { skip: !HAS_BUNDLED }, () => {
    let embedder: Embedder;
    let tokenizer: PreTrainedTokenizer;
    const real = (text: string) => tokenizer.encode(text, { add_special_tokens: false }).length;

    before(async () => {
      embedder = await createEmbedder(options({ model: BUNDLED_MODEL, modelsDir: undefined }));
      useLocalModels(path.join(REPO, 'models'));
      tokenizer = await AutoTokenizer.from_pretrained(BUNDLED_MODEL);
    });
    after(async () => {
      await embedder?.close();
    });

    it('uses BasicTokenCounter with a window of 512 - [CLS] - [SEP]', () => {
      assert.ok(embedder.tokens instanceof BasicTokenCounter);
      assert.equal(embedder.tokens.window, 510);
      assert.equal(embedder.dims, 101);
      assert.equal(embedder.batchSize, 32);
    });

    it('counts exactly like the tokenizer on the sample vault and on code, CJK and accented text', async () => {
      const vault = path.join(REPO, 'sample-vault');
      const notes = (await readdir(vault, { recursive: true })).filter((f) => f.endsWith('.md'));
      assert.ok(notes.length >= 10);
      for (const note of notes) {
        const text = await readFile(path.join(vault, note), 'utf8');
        assert.equal(embedder.tokens.count(text), real(text), note);
      }
      const samples = [
        'const x = foo(bar, 42); // call it\nif (a <= b && c) { return [1, 2]; }',
        '```ts\nexport async function main(): Promise<void> {}\n```',
        '日本語のテキストと中文文本，混合 English words。',
        'Café déjà vu, naïve façade, Ångström, Straße, ÉCOLE',
        '## Heading\n- [ ] task 📅 2024-01-01 #tag [[Link|alias]]',
      ];
      for (const text of samples) assert.equal(embedder.tokens.count(text), real(text), text);
    });

    it('never counts fewer tokens than the tokenizer, on any text', () => {
      const piece = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 8 }),
        fc.string({ unit: 'grapheme', maxLength: 8 }),
        fc.constantFrom('the', 'Cat', ' ', '\n', '.', '-', 'é', 'e\u0301', '猫', '한국어', '🙂', '👍🏽', '\u200d', '\u00a0', '\ufeff', '\u0000', 'a€b', '[CLS]', '##', '〇'),
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 30 }).map((p) => p.join('')), (text) => embedder.tokens.count(text) >= real(text)),
        { numRuns: 2000 },
      );
    });

    it('keeps the caller’s event loop free while embedding 2,000 texts of ~1,000 characters', async () => {
      const vault = path.join(REPO, 'sample-vault');
      const corpus = (await Promise.all((await readdir(vault, { recursive: true })).filter((f) => f.endsWith('.md')).map((f) => readFile(path.join(vault, f), 'utf8')))).join('\n');
      const texts = Array.from({ length: 2000 }, (_, i) => {
        const start = (i * 997) % Math.max(1, corpus.length - 1000);
        return corpus.slice(start, start + 600 + (i % 800));
      });
      let last = performance.now();
      let maxLag = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        maxLag = Math.max(maxLag, now - last - 5);
        last = now;
      }, 5);
      const started = performance.now();
      try {
        const vectors = await embedder.embed(texts);
        assert.equal(vectors.length, texts.length);
      } finally {
        clearInterval(ticker);
      }
      const seconds = (performance.now() - started) / 1000;
      assert.ok(seconds > 0.2, `embedding took ${seconds} s: too short to show the loop kept ticking`);
      assert.ok(maxLag < 100, `event loop lag up to ${maxLag.toFixed(0)} ms while embedding for ${seconds.toFixed(1)} s`);
    });
  });
});
