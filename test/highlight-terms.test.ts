import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QUERY_STOP_WORDS } from '../core/indices/searchTokenizer.js';
import { highlightTerms } from '../core/search/highlightTerms.js';

describe('highlight terms', () => {
  it('leave out question and stop words, as the keyword search does', () => {
    assert.deepEqual(highlightTerms('How do I sort tasks like this, what is the due date?'), ['tasks', 'date', 'sort', 'due']);
    for (const term of highlightTerms('what is it like when you would rather have a me of them')) assert.ok(!QUERY_STOP_WORDS.has(term), term);
  });

  it('keep words in any script, CJK included, longest first', () => {
    assert.deepEqual(highlightTerms('Über Köln 東京'), ['köln', 'über', '東京']);
    assert.deepEqual(highlightTerms('chunk chunking'), ['chunking', 'chunk']);
  });

  it('are empty for a query of stop words alone', () => {
    assert.deepEqual(highlightTerms('how do I do it like that'), []);
  });
});
