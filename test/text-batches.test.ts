import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { batchesOf } from '../core/embedding/textBatches.js';

describe('texts are grouped into model runs by count and length', () => {
  it('every text once, in order; no batch over the count, nor over the characters unless it holds one text; each as full as allowed', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 200 }), fc.integer({ min: 1, max: 40 }), fc.constantFrom(0, 500, 8000), (lengths, size, chars) => {
        const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]!);
        const batches = [...batchesOf(order, (i) => lengths[i]!, size, chars)];
        assert.deepEqual(batches.flat(), order);
        batches.forEach((batch, b) => {
          assert.ok(batch.length >= 1 && batch.length <= size);
          const padded = batch.length * Math.max(...batch.map((i) => lengths[i]!));
          if (chars > 0 && batch.length > 1) assert.ok(padded <= chars, `${batch.length} texts, ${padded} characters`);
          // A batch ends only when the next text would not fit in it.
          const next = batches[b + 1]?.[0];
          if (next !== undefined) assert.ok(batch.length === size || (chars > 0 && (batch.length + 1) * lengths[next]! > chars));
        });
      }),
    );
  });

  it('sentences share a batch of the full count; long passages a few at a time', () => {
    const sentences = Array.from({ length: 100 }, () => 80);
    assert.deepEqual([...batchesOf(sentences.map((_, i) => i), (i) => sentences[i]!, 32, 8000)].map((b) => b.length), [32, 32, 32, 4]);
    const passages = Array.from({ length: 10 }, () => 2000);
    assert.deepEqual([...batchesOf(passages.map((_, i) => i), (i) => passages[i]!, 32, 8000)].map((b) => b.length), [4, 4, 2]);
  });
});
