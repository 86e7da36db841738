// BasicTokenCounter counts ASCII text by a scan over character classes and hands the rest to BERT's basic-token
// expression: the two must agree with the expression alone on any text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';

const EXPRESSION = /\p{Ideographic}|[[\p{L}\p{M}\p{N}]--\p{Ideographic}]+|[^\s\p{L}\p{M}\p{N}]/gv;
const byExpression = (text: string) => [...text.matchAll(EXPRESSION)].length;
const counter = new BasicTokenCounter(512);

describe('BasicTokenCounter', () => {
  it('counts words, punctuation and ideographs as the basic-token expression does', () => {
    const cases: Array<[string, number]> = [
      ['', 0],
      ['Hello, world!', 4],
      ['snake_case and kebab-case', 7],
      ['  tabs\tand\nnewlines  ', 3],
      ['café au lait', 3],
      ['cafe\u0301 crème', 2],
      ['猫が好き', 4],
      ['naïve-ish [[Link|alias]] 📅 2024-01-01', 16],
    ];
    for (const [text, expected] of cases) {
      assert.equal(byExpression(text), expected, `the expression on ${JSON.stringify(text)}`);
      assert.equal(counter.count(text), expected, JSON.stringify(text));
    }
  });

  it('agrees with the expression on any text, ASCII or not', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom('word', 'x1', '_', '-', ' ', '\n', '\t', 'é', 'e\u0301', 'ü', '猫', '한국어', '🙂', '👍🏽', '\u00a0', '\u200d', '\ufeff', '〇', 'Ⅻ', '١٢', '\ud800'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }).map((p) => p.join('')), (text) => counter.count(text) === byExpression(text)),
      { numRuns: 5000 },
    );
  });
});
