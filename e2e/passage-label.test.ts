import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sourceLabel } from '../core/answer/retrieveSources.ts';
import { shownHeadings } from '../core/contract/inlineText.ts';
import { passageLabel } from '../renderer/src/answer/answerText.ts';

describe('the app names a cited passage as the answer does', () => {
  it('rendered headings, the title not repeated', () => {
    const passage = { title: 'collections.After', path: 'functions/collections/After.md', headerPath: ['collections.After', 'Example of `after`: 2nd&ndash;4th'] };
    assert.equal(passageLabel(passage), 'collections.After § Example of after: 2nd\u20134th');
  });

  it('for any title and header path, with no blank step', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'B', ' ', '`', '*', '_', '&', 'amp;', '[[', ']]', '|', '#', '\u00e9'), maxLength: 20 });
    fc.assert(
      fc.property(text, fc.array(text, { maxLength: 4 }), (title, headerPath) => {
        const source = { title: title || 'note', path: 'dir/note.md', headerPath };
        assert.equal(sourceLabel(source, 1, 2), `${passageLabel(source)} (lines 1-2)`);
        for (const heading of shownHeadings(source.title, headerPath)) assert.ok(heading.trim().length > 0, JSON.stringify(heading));
      }),
    );
  });
});
