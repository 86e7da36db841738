import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { citeOpeningPart, citeQueriedPart, headerPathAt } from '../core/search/citedPart.js';
import type { ChunkSummary } from '../core/contract/search.js';
import { questionTerms } from '../core/search/termOverlap.js';

/** A chunk of merged sections: its own citation is `headerPath` (the longest part's), its lines from `startLine`. */
function mergedChunk(path: string, headerPath: string[], startLine: number, lines: string[], parts: ChunkSummary['parts']): ChunkSummary {
  const anchor = headerPath.at(-1)!.toLowerCase();
  return { chunkId: `${path}#0@x`, path, title: headerPath[0], headerPath, anchor, startLine, endLine: startLine + lines.length - 1, text: lines.join('\n'), parts };
}

// Lines 10-18 of a note: three small sections merged, cited by the longest ("Pans").
const merged = mergedChunk('Kitchen.md', ['Kitchen', 'Pans'], 10, ['## Knives', '', 'Hone the knife on a whetstone.', '', '## Pans', '', 'Season the cast iron pan with oil after each wash.', '', '## Examples'], [
  { startLine: 10, headerPath: ['Kitchen', 'Knives'], anchor: 'knives' },
  { startLine: 14, headerPath: ['Kitchen', 'Pans'], anchor: 'pans' },
  { startLine: 18, headerPath: ['Kitchen', 'Examples'], anchor: 'examples' },
]);
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

  it('a subsection is under its parents\' headings too: the parent is cited only for words of its own text', () => {
    // A short intro merged with its longer subsection, cited by the subsection (the longest part).
    const nested = mergedChunk('Grinder.md', ['Grinder', 'Synopsis'], 1, ['## Grinder', '', 'Grinds coffee into an espresso powder.', '', '### Synopsis', '', 'The grinder turns whole coffee beans into grounds of an even size.'], [
      { startLine: 1, headerPath: ['Grinder'], anchor: 'grinder' },
      { startLine: 5, headerPath: ['Grinder', 'Synopsis'], anchor: 'synopsis' },
    ]);
    const citeNested = (query: string) => citeQueriedPart(nested, questionTerms(query)).headerPath.at(-1);
    assert.equal(citeNested('what does the grinder do with coffee'), 'Synopsis', "the parent's heading is the subsection's as well");
    assert.equal(citeNested('grinder espresso powder'), 'Grinder');
    assert.equal(citeNested('whole beans'), 'Synopsis');
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
