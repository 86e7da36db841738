import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { QUERY_STOP_WORDS, scanTerms, tokenizeForSearch } from '../core/indices/searchTokenizer.js';

const tokens = tokenizeForSearch;

describe('code-ish terms are kept whole and split into parts', () => {
  const cases: Array<[string, string[]]> = [
    ['C++', ['c++']],
    ['C#', ['c#']],
    ['F# and C++', ['f#', 'and', 'c++']],
    ['notepad++', ['notepad++', 'notepad']],
    ['Node.js', ['node.js', 'node', 'js']],
    ['snake_case', ['snake_case', 'snake', 'case']],
    ['camelCase', ['camelcase', 'camel', 'case']],
    ['PascalCase', ['pascalcase', 'pascal', 'case']],
    ['getHTTPResponse', ['gethttpresponse', 'get', 'http', 'response']],
    ['Get-ChildItem', ['get-childitem', 'get', 'childitem', 'child', 'item']],
    ['$PSVersionTable', ['$psversiontable', 'psversiontable', 'ps', 'version', 'table']],
    ['.NET', ['.net', 'net']],
    ['v1.2.3', ['v1.2.3', 'v1', '2', '3']],
    ['config.toml', ['config.toml', 'config', 'toml']],
    ['__init__', ['__init__', 'init']],
    ['URLs and IDs', ['urls', 'and', 'ids']],
    ['Win32API HTTP2Server', ['win32api', 'win32', 'api', 'http2server', 'http2', 'server']],
  ];
  for (const [input, expected] of cases) {
    test(input, () => assert.deepEqual(tokens(input), expected));
  }

  test('URLs split into words', () => {
    assert.deepEqual(tokens('https://example.com/docs/getting-started?page=2'), [
      'https', 'example.com', 'example', 'com', 'docs', 'getting-started', 'getting', 'started', 'page', '2',
    ]);
  });

  test('sentence punctuation is not part of a term', () => {
    assert.deepEqual(tokens('It works. (Really!) "Yes", she said; done.'), ['it', 'works', 'really', 'yes', 'she', 'said', 'done']);
  });

  test('a leading hyphen (PowerShell parameter) is not part of the term', () => {
    assert.deepEqual(tokens('Get-Item -Path C:\\Temp --force'), ['get-item', 'get', 'item', 'path', 'c', 'temp', 'force']);
  });
});

describe('Unicode', () => {
  test('accents are folded', () => {
    assert.deepEqual(tokens('Café NAÏVE façade Ångström'), ['cafe', 'naive', 'facade', 'angstrom']);
    assert.deepEqual(tokens('café'), tokens('cafe'));
    // Decomposed input (as macOS file names arrive) folds the same way.
    assert.deepEqual(tokens('cafe\u0301'), ['cafe']);
  });

  test('letters and digits of any script; width variants unified', () => {
    assert.deepEqual(tokens('Ελληνικά русский हिन्दी ＡＢＣ１２３'), ['ελληνικα', 'русскии', 'हिन्दी', 'abc123']);
  });

  test('kana voicing marks survive accent folding', () => {
    assert.deepEqual(tokens('ガ'), ['ガ']);
    assert.deepEqual(tokens('ｶﾞ'), ['ガ']);
  });

  test('CJK: dictionary words plus overlapping bigrams', () => {
    const terms = tokens('全文検索の仕組み');
    for (const bigram of ['全文', '文検', '検索', '索の', 'の仕', '仕組', '組み']) assert.ok(terms.includes(bigram), bigram);
    assert.ok(terms.includes('仕組み'), 'three-character dictionary word');
    assert.ok(tokens('検索').every((term) => terms.includes(term)), 'the query terms of 検索 are all in the text');
  });

  test('CJK runs next to Latin text are separate tokens', () => {
    assert.deepEqual(tokens('Node.js入門'), ['node.js', 'node', 'js', '入門']);
  });

  test('Hangul words with particles still match their stem by bigram', () => {
    const terms = tokens('검색은 빠르다');
    assert.ok(terms.includes('검색은'));
    assert.ok(terms.includes('검색'));
  });

  test('characters outside the BMP are not cut in half', () => {
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const term of tokens('𠀀𠀁𠀂 😀 x')) assert.ok(!loneSurrogate.test(term), JSON.stringify(term));
  });
});

describe('stop words', () => {
  test('kept in the index', () => {
    assert.deepEqual(tokens('The art of war'), ['the', 'art', 'of', 'war']);
  });

  test('the query list holds common English function words only', () => {
    for (const word of ['the', 'a', 'an', 'of', 'to', 'in', 'is', 'how', 'do', 'i', 'what']) assert.ok(QUERY_STOP_WORDS.has(word), word);
    for (const word of ['search', 'powershell', 'note', 'item']) assert.ok(!QUERY_STOP_WORDS.has(word), word);
  });
});

describe('token ordinals', () => {
  test('every term of a token carries its ordinal; the whole token comes first', () => {
    const terms: string[] = [];
    const ordinals: number[] = [];
    scanTerms('use Get-ChildItem now', terms, ordinals);
    assert.deepEqual(terms, ['use', 'get-childitem', 'get', 'childitem', 'child', 'item', 'now']);
    assert.deepEqual(ordinals, [0, 1, 1, 1, 1, 1, 2]);
  });
});

describe('properties', () => {
  test('terms are lowercase, non-empty, without whitespace; tokenizing is deterministic', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        const terms = tokens(text);
        for (const term of terms) {
          assert.ok(term.length > 0);
          assert.ok(!/\s/u.test(term), JSON.stringify(term));
          assert.equal(term, term.toLowerCase());
        }
        assert.deepEqual(tokens(text), terms);
      }),
      { numRuns: 400 },
    );
  });

  test('a term of the text is found again when the term itself is tokenized', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 60 }), (text) => {
        for (const term of tokens(text)) assert.ok(tokens(term).includes(term), JSON.stringify({ text, term }));
      }),
      { numRuns: 400 },
    );
  });
});
