import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { mergeFilters, parseDay, parseQuery } from '../core/contract/filters.js';

const local = (y: number, m: number, d: number) => new Date(y, m - 1, d).getTime();

describe('filter operators in the query', () => {
  it('takes path:, tag:, after: and before: out of the words searched for', () => {
    const parsed = parseQuery('path:Projects/ tag:#idea pricing model after:2026-01-15 before:2026-02 TAG:q1');
    assert.equal(parsed.text, 'pricing model');
    assert.deepEqual(parsed.filters, { pathPrefix: 'Projects/', tags: ['idea', 'q1'], modifiedAfter: local(2026, 1, 15), modifiedBefore: local(2026, 2, 1) });
    assert.deepEqual(parsed.problems, []);
  });

  it('lists the operators used, exactly as typed and in words, so each can be taken out of the query again', () => {
    const query = 'standup path:"Daily notes/" -tag:#draft AFTER:2026-11 -path:Archive/ after:soon';
    const { operators } = parseQuery(query);
    assert.deepEqual(operators, [
      { text: 'path:"Daily notes/"', label: 'in Daily notes/' },
      { text: '-tag:#draft', label: 'not #draft' },
      { text: 'AFTER:2026-11', label: 'modified on or after 2026-11' },
      { text: '-path:Archive/', label: 'not in Archive/' },
    ]);
    for (const { text } of operators) assert.ok(query.includes(text), text);
  });

  it('-path: and -tag: leave out; dates cannot be negated', () => {
    const parsed = parseQuery('meeting notes -path:Archive/ -path:"Old stuff/" -tag:#draft tag:work -after:2026');
    assert.equal(parsed.text, 'meeting notes');
    assert.deepEqual(parsed.filters, { excludePaths: ['Archive/', 'Old stuff/'], excludeTags: ['draft'], tags: ['work'] });
    assert.deepEqual(parsed.problems, ['-after: cannot be negated; use before: instead']);
    assert.equal(parseQuery('well-known -tag').text, 'well-known -tag', 'a minus before a word is no operator');
  });

  it('reads quoted values with spaces, and ./ or \\ in paths', () => {
    assert.deepEqual(parseQuery('path:"Daily notes/2026" standup').filters, { pathPrefix: 'Daily notes/2026' });
    assert.equal(parseQuery('path:"Daily notes/2026" standup').text, 'standup');
    assert.deepEqual(parseQuery('path:./Work\\Specs x').filters, { pathPrefix: 'Work/Specs' });
    assert.deepEqual(parseQuery('tag:"unclosed quote').filters, { tags: ['unclosed quote'] });
  });

  it('leaves words that only look like operators: other keys, a key inside a word, URLs', () => {
    for (const query of ['C++: templates', 'see https://example.com/path:x', 'subpath:a', 'note:taking', 'mytag:x']) {
      const parsed = parseQuery(query);
      assert.equal(parsed.text, query, query);
      assert.deepEqual(parsed.filters, {}, query);
    }
  });

  it('a key still being typed filters nothing; a bad value is reported and not applied', () => {
    assert.deepEqual(parseQuery('budget tag:'), { text: 'budget', filters: {}, operators: [], problems: [] });
    const bad = parseQuery('after:yesterday before:2026-02-30 path:../secrets budget');
    assert.equal(bad.text, 'budget');
    assert.deepEqual(bad.filters, {});
    assert.deepEqual(bad.problems, [
      'after:yesterday is not a date like 2026-11-25, 2026-11 or 2026',
      'before:2026-02-30 is not a date like 2026-11-25, 2026-11 or 2026',
      'path:../secrets must be a folder or note inside the vault',
    ]);
    assert.deepEqual(parseQuery('path:a/ path:b/ x').problems, ['only one path: per query; using path:b/']);
  });

  it('days, months and years are local midnights; ISO times are taken as written', () => {
    assert.equal(parseDay('2026-11-25'), local(2026, 11, 25));
    assert.equal(parseDay('2026-3'), local(2026, 3, 1));
    assert.equal(parseDay('2026'), local(2026, 1, 1));
    assert.equal(parseDay('2026-11-25T14:00:00Z'), Date.UTC(2026, 10, 25, 14));
    for (const bad of ['2026-13', '2026-02-29', '26-01-01', 'soon', '']) assert.equal(parseDay(bad), undefined, bad);
    assert.equal(parseDay('2028-02-29'), local(2028, 2, 29), 'a leap day');
  });

  it('filters given beside the query are narrowed by those in it; tags add up', () => {
    assert.deepEqual(mergeFilters({ pathPrefix: 'A/', tags: ['x'], modifiedAfter: 5 }, { pathPrefix: 'A/B/', tags: ['y', 'x'] }), {
      pathPrefix: 'A/B/',
      tags: ['x', 'y'],
      modifiedAfter: 5,
    });
    assert.deepEqual(mergeFilters(undefined, {}), {});
    assert.deepEqual(mergeFilters({ pathPrefix: undefined, tags: [] }, {}), {});
    assert.deepEqual(mergeFilters({ excludePaths: ['A/'], excludeTags: ['x'] }, { excludePaths: ['B/', 'A/'] }), { excludePaths: ['A/', 'B/'], excludeTags: ['x'] });
  });

  it('property: operators placed anywhere among plain words are found, and the words kept in order', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9.+-]{0,8}$/).filter((w) => !/^(path|tag|after|before)$/.test(w));
    const operator = fc.oneof(
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9_/-]{0,10}$/).map((t) => `tag:${t}`),
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,10}\/$/).map((p) => `path:"${p}"`),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), fc.array(fc.tuple(operator, fc.nat()), { maxLength: 4 }), (words, operators) => {
        const tokens: string[] = [...words];
        for (const [op, at] of operators) tokens.splice(at % (tokens.length + 1), 0, op);
        const parsed = parseQuery(tokens.join(' '));
        assert.equal(parsed.text, words.join(' '));
        assert.deepEqual(parsed.filters.tags ?? [], tokens.filter((t) => t.startsWith('tag:')).map((t) => t.slice(4)));
        const paths = tokens.filter((t) => t.startsWith('path:')).map((t) => t.slice(6, -1).trim());
        assert.equal(parsed.filters.pathPrefix, paths.at(-1));
      }),
      { numRuns: 500 },
    );
  });
});
