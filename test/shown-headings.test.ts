import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sourceLabel } from '../core/answer/index.js';
import { shownHeading, shownHeadings } from '../core/contract/inlineText.js';
import { passagePlace } from '../cli/commands/vaultCommands.js';

describe('headings as a citation names them', () => {
  it('are rendered: code ticks and emphasis go, character references are decoded, a heading rendering to nothing stays', () => {
    assert.equal(shownHeading('Example of `after` with `first`: 2nd&ndash;4th most recent articles'), 'Example of after with first: 2nd\u20134th most recent articles');
    assert.equal(shownHeading('The **only** [[Filters#Due|due]] filter'), 'The only due filter');
    assert.equal(shownHeading('{{< gallery >}}'), '{{< gallery >}}');
  });

  it('leave out a first heading that repeats the title, as written or as shown, and only the first', () => {
    assert.deepEqual(shownHeadings('Sorting', ['Sorting', 'Random sorting']), ['Random sorting']);
    assert.deepEqual(shownHeadings('after', ['`after`', 'Usage']), ['Usage']);
    assert.deepEqual(shownHeadings('Sorting', ['Usage', 'Sorting']), ['Usage', 'Sorting']);
    assert.deepEqual(shownHeadings('Sorting', []), []);
    assert.deepEqual(shownHeadings('Sorting', ['', 'Sorting', '  ', 'Usage']), ['Usage']);
  });

  it('name a passage in answers and in the CLI', () => {
    const passage = { title: 'collections.After', path: 'functions/collections/After.md', headerPath: ['collections.After', 'Example of `after`: 2nd&ndash;4th'], startLine: 3, endLine: 9 };
    assert.equal(sourceLabel(passage, 3, 9), 'collections.After § Example of after: 2nd\u20134th (lines 3-9)');
    // The CLI names the file and keeps the whole path: the title is not on its line.
    assert.equal(passagePlace(passage), 'functions/collections/After.md § collections.After › Example of after: 2nd\u20134th (lines 3-9)');
    assert.equal(passagePlace({ ...passage, headerPath: [] }), 'functions/collections/After.md § collections.After (lines 3-9)');
  });
});
