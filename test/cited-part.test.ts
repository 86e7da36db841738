import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { citeOpeningPart, citeQueriedPart, headerPathAt } from '../core/search/citedPart.js';
import type { ChunkSummary } from '../core/contract/search.js';
import { questionTerms } from '../core/search/termOverlap.js';

// Lines 10-18 of a note: three small sections merged, cited by the longest ("Pans").
const merged: ChunkSummary = {
  chunkId: 'Kitchen.md#0@x',
  path: 'Kitchen.md',
  title: 'Kitchen',
  headerPath: ['Kitchen', 'Pans'],
  anchor: 'pans',
  startLine: 10,
  endLine: 18,
  text: ['## Knives', '', 'Hone the knife on a whetstone.', '', '## Pans', '', 'Season the cast iron pan with oil after each wash.', '', '## Examples'].join('\n'),
  parts: [
    { startLine: 10, headerPath: ['Kitchen', 'Knives'], anchor: 'knives' },
    { startLine: 14, headerPath: ['Kitchen', 'Pans'], anchor: 'pans' },
    { startLine: 18, headerPath: ['Kitchen', 'Examples'], anchor: 'examples' },
  ],
};
const cite = (query: string) => citeQueriedPart(merged, questionTerms(query)).headerPath.at(-1);

describe('citing the matched part of a chunk of merged sections', () => {
  it('names the part holding the query words, its heading weighing more than its text', () => {
    assert.equal(cite('how do I use a whetstone'), 'Knives');
    assert.equal(cite('oil the pan'), 'Pans');
    assert.equal(cite('examples'), 'Examples');
    assert.equal(citeQueriedPart(merged, questionTerms('whetstone')).anchor, 'knives');
  });

  it('keeps the chunk\'s own citation when no other part matches better, and leaves other chunks alone', () => {
    assert.equal(cite('gardening tomatoes'), 'Pans');
    assert.equal(cite(''), 'Pans');
    assert.equal(cite('kitchen'), 'Pans', 'a word every part shares (the parent heading) decides nothing');
    const single = { ...merged, parts: undefined };
    assert.equal(citeQueriedPart(single, questionTerms('whetstone')), single);
  });

  it('listed without words, a passage is cited by the part it opens with', () => {
    assert.deepEqual(citeOpeningPart(merged).headerPath, ['Kitchen', 'Knives']);
    assert.equal(citeOpeningPart(merged).anchor, 'knives');
    const single = { ...merged, parts: undefined };
    assert.equal(citeOpeningPart(single), single);
  });

  it('a line is cited by the part that holds it', () => {
    assert.deepEqual(headerPathAt(merged, 10), ['Kitchen', 'Knives']);
    assert.deepEqual(headerPathAt(merged, 13), ['Kitchen', 'Knives']);
    assert.deepEqual(headerPathAt(merged, 16), ['Kitchen', 'Pans']);
    assert.deepEqual(headerPathAt(merged, 18), ['Kitchen', 'Examples']);
    assert.deepEqual(headerPathAt({ ...merged, parts: undefined }, 12), ['Kitchen', 'Pans']);
  });
});
