/**
 * Cairn's mean pooling (core/embedding/meanPooling.ts) must give exactly what transformers.js's pipeline gives for
 * { pooling: 'mean', normalize: true }: the embedding cache keeps vectors computed either way. Checked bit for bit
 * against the library's own functions on generated batches, and on the bundled model's real token vectors.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mean_pooling, pipeline, Tensor, type FeatureExtractionPipeline } from '@huggingface/transformers';
import fc from 'fast-check';
import { meanPooledUnitVectors } from '../core/embedding/meanPooling.js';
import { BUNDLED_MODEL } from '../core/embedding/modelFolder.js';
import { useLocalModels } from './support/localModels.js';

const MODELS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'models');

/** The library's pooling and normalisation, as its feature-extraction pipeline applies them. */
function libraryPooled(hidden: Float32Array, mask: BigInt64Array, dims: [number, number, number]): Float32Array {
  const pooled = mean_pooling(new Tensor('float32', hidden, dims), new Tensor('int64', mask, dims.slice(0, 2)));
  return pooled.normalize(2, -1).data as Float32Array;
}

/** Batches of 1-4 texts, 1-12 tokens, 1-9 dimensions; each text keeps its first token (as [CLS] always is). */
const batches = fc
  .record({ batch: fc.integer({ min: 1, max: 4 }), tokens: fc.integer({ min: 1, max: 12 }), dims: fc.integer({ min: 1, max: 9 }) })
  .chain(({ batch, tokens, dims }) =>
    fc.record({
      shape: fc.constant([batch, tokens, dims] as [number, number, number]),
      hidden: fc.array(fc.float({ min: -4, max: 4, noNaN: true }), { minLength: batch * tokens * dims, maxLength: batch * tokens * dims }),
      lengths: fc.array(fc.integer({ min: 1, max: tokens }), { minLength: batch, maxLength: batch }),
    }),
  );

describe('mean pooling', () => {
  it('equals the library bit for bit on generated batches with padding', () => {
    fc.assert(
      fc.property(batches, ({ shape, hidden, lengths }) => {
        const [batch, tokens, dims] = shape;
        const data = Float32Array.from(hidden);
        // Not all zero, or the library and this both divide by a zero norm (NaN either way, but NaN !== NaN).
        data[0] = 1;
        const mask = new BigInt64Array(batch * tokens);
        lengths.forEach((length, b) => mask.fill(1n, b * tokens, b * tokens + length));
        assert.deepEqual(Array.from(meanPooledUnitVectors(data, mask, batch, tokens, dims)), Array.from(libraryPooled(data, mask, shape)));
      }),
      { numRuns: 300 },
    );
  });

  it('rejects arrays that do not fit the shape', () => {
    assert.throws(() => meanPooledUnitVectors(new Float32Array(6), new BigInt64Array(2), 1, 2, 4), /do not fit \[1, 2, 4\]/);
  });

  it('equals the pipeline bit for bit on the bundled model', { skip: !existsSync(path.join(MODELS, BUNDLED_MODEL, 'config.json')) }, async () => {
    useLocalModels(MODELS);
    const extractor = (await pipeline('feature-extraction', BUNDLED_MODEL, { dtype: 'q8' })) as FeatureExtractionPipeline;
    // Different lengths (padding), an empty text, unknown words and punctuation, and one past the 512-token window.
    const texts = [
      'How do I make one tasks block ignore the global query?',
      '',
      'zzqx flibbertigibbet!!! — ünïcödé 東京',
      'short',
      Array.from({ length: 700 }, (_, i) => `word${i % 50} recurrence`).join(' '),
    ];
    const expected = await extractor(texts, { pooling: 'mean', normalize: true });
    const inputs = extractor.tokenizer(texts, { padding: true, truncation: true }) as { attention_mask: Tensor };
    const { last_hidden_state: hidden } = (await extractor.model(inputs)) as { last_hidden_state: Tensor };
    const [batch, tokens, dims] = hidden.dims as [number, number, number];
    assert.equal(batch, texts.length);
    assert.ok(tokens > 500, 'the long text fills the window: the batch is padded');
    const pooled = meanPooledUnitVectors(hidden.data as Float32Array, inputs.attention_mask.data as BigInt64Array, batch, tokens, dims);
    assert.deepEqual(Array.from(pooled), Array.from(expected.data as Float32Array));
    await extractor.dispose();
  });
});
