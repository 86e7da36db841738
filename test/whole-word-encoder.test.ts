// The whole-word encoder stands in for transformers.js's tokenizer in the embedding worker: for the tokenizers it
// takes, its batches must be the library's, id for id, on any text; the rest it must refuse. And the worker's vectors,
// tokenised by it, must be the pipeline's.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AutoTokenizer, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import fc from 'fast-check';
import { createEmbedder } from '../core/embedding/embedder.js';
import { BUNDLED_MODEL } from '../core/embedding/modelFolder.js';
import { Tokenizer } from '@huggingface/tokenizers';
import { fromTokenizersJs, WholeWordEncoder, type LibraryBatch, type LibraryTokenizer } from '../core/embedding/wholeWordEncoder.js';
import { writeTinyModel } from '../scripts/models/make-tiny-model.js';
import { useLocalModels } from './support/localModels.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODELS = path.join(REPO, 'models');
const HAS_BUNDLED = existsSync(path.join(MODELS, BUNDLED_MODEL, 'config.json'));

type TransformersTokenizer = LibraryTokenizer & LibraryBatch;

async function libraryTokenizer(modelsDir: string, id: string): Promise<TransformersTokenizer> {
  useLocalModels(modelsDir);
  return (await AutoTokenizer.from_pretrained(id)) as unknown as TransformersTokenizer;
}

const piece = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.stringMatching(/^[ -~\t\n\r\v\f\x00\x01\x7f]{0,12}$/),
  fc.constantFrom(
    'the', 'Recurring', 'TASKS', 'don’t', 'e.g.', ' ', '\n', '\t', '.', '-', '_', '`', '[[', ']]', '#tag', '📅', '🔁', '👍🏽',
    'é', 'e\u0301', 'Ångström', 'Straße', 'İstanbul', 'ΟΔΟΣ', 'ΣΑΣ.', '猫', '한국어', '日本語', '\u{20000}', '\u00a0', '\u2003', '\u3000',
    '\u200b', '\u200d', '\ufeff', '\u0085', '\ud800', '\ufffd', '\u0000', 'a\u0301\u0323', '[CLS]', '[SEP]', '[UNK]', '[unk]', '##s', 'x'.repeat(101), 'ü'.repeat(101),
  ),
);
/** Texts of up to 24 pieces: what a note can hold and what a tokenizer can trip on. */
const anyText = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(''));

/** The encoder's batch against the library's, key by key (ids, mask, type ids) and shape. */
function assertSameBatch(encoder: WholeWordEncoder, tokenizer: TransformersTokenizer, texts: string[]): void {
  const expected = tokenizer(texts, { padding: true, truncation: true });
  const actual = encoder.encode(texts);
  assert.deepEqual(Object.keys(actual).filter((k) => k !== 'dims').sort(), Object.keys(expected).sort());
  for (const [key, tensor] of Object.entries(expected)) {
    assert.deepEqual(actual.dims, [...tensor.dims], `${key}: shape`);
    assert.deepEqual(Array.from(actual[key as 'input_ids']!), Array.from(tensor.data), `${key} of ${JSON.stringify(texts).slice(0, 300)}`);
  }
}

describe('WholeWordEncoder', { skip: !HAS_BUNDLED }, () => {
  let tokenizer: TransformersTokenizer;
  let encoder: WholeWordEncoder;

  before(async () => {
    tokenizer = await libraryTokenizer(MODELS, BUNDLED_MODEL);
    encoder = WholeWordEncoder.of(tokenizer)!;
  });

  it('takes the bundled model’s tokenizer', () => {
    assert.ok(encoder instanceof WholeWordEncoder);
  });

  it('gives the library’s batches for the sample vault’s notes, each cut at 512 tokens, and for mixed batches', async () => {
    const vault = path.join(REPO, 'sample-vault');
    const notes = (await readdir(vault, { recursive: true })).filter((f) => f.endsWith('.md'));
    const texts = await Promise.all(notes.map((note) => readFile(path.join(vault, note), 'utf8')));
    assert.ok(texts.some((text) => text.length > 4000), 'a note long enough to be cut');
    for (const text of texts) assertSameBatch(encoder, tokenizer, [text]);
    assertSameBatch(encoder, tokenizer, texts);
    assertSameBatch(encoder, tokenizer, ['', 'One short line.', texts[0]!.slice(0, 300)]);
  });

  it('gives the library’s batches on any text: ASCII, accents, CJK, emoji, controls, odd spaces, added tokens, long words', () => {
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 4 }), (texts) => {
        assertSameBatch(encoder, tokenizer, texts);
      }),
      { numRuns: 1500 },
    );
  });

  it('gives tokenizers.js’s ids on any text (vault adaptation tokenises with it)', async () => {
    const read = async (name: string) => JSON.parse(await readFile(path.join(MODELS, BUNDLED_MODEL, name), 'utf8')) as object;
    const tokenizersJs = new Tokenizer(await read('tokenizer.json'), await read('tokenizer_config.json'));
    const fromThat = WholeWordEncoder.of(fromTokenizersJs(tokenizersJs));
    assert.ok(fromThat);
    fc.assert(
      fc.property(anyText, (text) => {
        assert.deepEqual(fromThat.ids(text), tokenizersJs.encode(text, { add_special_tokens: false }).ids, JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('cuts a text past the window as the library does: the first 512 ids, [CLS] counted', () => {
    const long = Array.from({ length: 700 }, (_, i) => `word${i % 50} recurrence`).join(' ');
    const batch = encoder.encode([long, 'short']);
    assert.deepEqual(batch.dims, [2, 512]);
    assertSameBatch(encoder, tokenizer, [long, 'short']);
  });
});

describe('WholeWordEncoder refuses', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-encoder-'));
    await writeTinyModel(path.join(root, 'tiny'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** The tiny model with its tokenizer.json changed by `edit`. */
  async function variant(name: string, edit: (tokenizer: Record<string, any>) => void): Promise<TransformersTokenizer> {
    await cp(path.join(root, 'tiny'), path.join(root, name), { recursive: true });
    const file = path.join(root, name, 'tokenizer.json');
    const json = JSON.parse(await readFile(file, 'utf8'));
    edit(json);
    await writeFile(file, JSON.stringify(json));
    return libraryTokenizer(root, name);
  }

  it('takes the tiny whole-word model, as a control', async () => {
    assert.ok(WholeWordEncoder.of(await libraryTokenizer(root, 'tiny')));
  });

  it('a vocabulary with ## word pieces', async () => {
    const tokenizer = await variant('pieces', (json) => {
      const { bad: id, ...rest } = json.model.vocab;
      json.model.vocab = { ...rest, '##s': id };
    });
    assert.equal(WholeWordEncoder.of(tokenizer), undefined);
  });

  it('words split otherwise than BERT splits them', async () => {
    assert.equal(WholeWordEncoder.of(await variant('whitespace', (json) => (json.pre_tokenizer = { type: 'WhitespaceSplit' }))), undefined);
  });

  it('a normaliser that keeps case', async () => {
    assert.equal(WholeWordEncoder.of(await variant('cased', (json) => (json.normalizer = { ...json.normalizer, lowercase: false }))), undefined);
  });
});

describe('the embedding worker with the whole-word encoder', { skip: !HAS_BUNDLED }, () => {
  it('gives the pipeline’s vectors bit for bit', async () => {
    const dataRoot = await mkdtemp(path.join(os.tmpdir(), 'cairn-encoder-data-'));
    const embedder = await createEmbedder({ model: BUNDLED_MODEL, dtype: 'q8', batchSize: 0, maxTokens: 0, dataRoot });
    try {
      useLocalModels(MODELS);
      const extractor = (await pipeline('feature-extraction', BUNDLED_MODEL, { dtype: 'q8' })) as FeatureExtractionPipeline;
      const texts = [
        'How do I make one tasks block ignore the global query?',
        '',
        'zzqx flibbertigibbet!!! — ünïcödé 東京 📅 2024-01-01',
        '- [ ] Recurring task 🔁 every week when done [[Link|alias]] #tag',
        Array.from({ length: 700 }, (_, i) => `word${i % 50} recurrence`).join(' '),
      ];
      const expected = await extractor(texts, { pooling: 'mean', normalize: true });
      const actual = await embedder.embed(texts);
      const dims = expected.dims[1]!;
      texts.forEach((text, i) => assert.deepEqual(Array.from(actual[i]!), Array.from((expected.data as Float32Array).subarray(i * dims, (i + 1) * dims)), text.slice(0, 60)));
      await extractor.dispose();
    } finally {
      await embedder.close();
      await rm(dataRoot, { recursive: true, force: true });
    }
  });
});
