import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { extractInlineRefs, reduceWikilinks, type NoteLink } from '../core/parse/links.js';

function refs(text: string, codeRanges: Array<[number, number]> = []) {
  return extractInlineRefs(text, 0, text.length, codeRanges);
}

/** Links without offsets, plus the raw text each one covers. */
function described(text: string, links: NoteLink[]) {
  return links.map(({ start, end, ...rest }) => ({ ...rest, raw: text.slice(start, end) }));
}

describe('wikilinks', () => {
  test('every wikilink form', () => {
    const text =
      'A [[Note]], [[Note#Heading]], [[Note|Alias]], [[Note#Heading|Alias]], [[Note#^block-1]], [[#Local heading]], [[ spaced | shown ]] and [[Note#H1#^b]].';
    assert.deepEqual(described(text, refs(text).links), [
      { kind: 'wikilink', target: 'Note', raw: '[[Note]]' },
      { kind: 'wikilink', target: 'Note', heading: 'Heading', raw: '[[Note#Heading]]' },
      { kind: 'wikilink', target: 'Note', alias: 'Alias', raw: '[[Note|Alias]]' },
      { kind: 'wikilink', target: 'Note', heading: 'Heading', alias: 'Alias', raw: '[[Note#Heading|Alias]]' },
      { kind: 'wikilink', target: 'Note', blockId: 'block-1', raw: '[[Note#^block-1]]' },
      { kind: 'wikilink', target: '', heading: 'Local heading', raw: '[[#Local heading]]' },
      { kind: 'wikilink', target: 'spaced', alias: 'shown', raw: '[[ spaced | shown ]]' },
      { kind: 'wikilink', target: 'Note', heading: 'H1', blockId: 'b', raw: '[[Note#H1#^b]]' },
    ]);
  });

  test('embeds', () => {
    const text = '![[diagram.png]] and ![[Other note#Section|shown]] and ![[#^local]]';
    assert.deepEqual(described(text, refs(text).links), [
      { kind: 'embed', target: 'diagram.png', raw: '![[diagram.png]]' },
      { kind: 'embed', target: 'Other note', heading: 'Section', alias: 'shown', raw: '![[Other note#Section|shown]]' },
      { kind: 'embed', target: '', blockId: 'local', raw: '![[#^local]]' },
    ]);
  });

  test('escaped pipe inside a table row is the alias separator', () => {
    const text = '| Link | Note |\n| --- | --- |\n| [[Hybrid ranking\\|hybrid]] | x |\n';
    assert.deepEqual(described(text, refs(text).links), [
      { kind: 'wikilink', target: 'Hybrid ranking', alias: 'hybrid', raw: '[[Hybrid ranking\\|hybrid]]' },
    ]);
  });

  test('not links: escaped brackets, empty, unclosed, across lines', () => {
    assert.deepEqual(refs('\\[[Not a link]] and \\![[nor]] this').links.map((l) => l.kind), ['wikilink']);
    assert.deepEqual(refs('\\[[Not a link]]').links, []);
    assert.deepEqual(refs('[[]] [[ ]] [[|x]] [[#]]').links, []);
    assert.deepEqual(refs('[[open\nclosed]]').links, []);
    assert.deepEqual(refs('[[unclosed').links, []);
  });

  test('a nested opener restarts the link', () => {
    const text = '[[outer [[Inner]]';
    assert.deepEqual(described(text, refs(text).links), [{ kind: 'wikilink', target: 'Inner', raw: '[[Inner]]' }]);
  });

  test('offsets are UTF-16 offsets, also after emoji and CJK', () => {
    const text = '😀👩‍👩‍👧 [[Ünïcödé]] 日本語 ![[画像.png]] 😀[t](a.md)';
    const { links } = refs(text);
    assert.deepEqual(
      links.map((link) => text.slice(link.start, link.end)),
      ['[[Ünïcödé]]', '![[画像.png]]', '[t](a.md)'],
    );
  });
});

describe('markdown links', () => {
  test('local destinations', () => {
    const text =
      '[plain](note.md) [enc](my%20note.md#Some%20Heading) [angle](<with spaces.md#Sub part>) [titled](../rel/x.md "A title") [block](n.md#^abc) [parens](a_(b).md) [](empty-text.md)';
    assert.deepEqual(described(text, refs(text).links), [
      { kind: 'markdown', target: 'note.md', alias: 'plain', raw: '[plain](note.md)' },
      { kind: 'markdown', target: 'my note.md', heading: 'Some Heading', alias: 'enc', raw: '[enc](my%20note.md#Some%20Heading)' },
      { kind: 'markdown', target: 'with spaces.md', heading: 'Sub part', alias: 'angle', raw: '[angle](<with spaces.md#Sub part>)' },
      { kind: 'markdown', target: '../rel/x.md', alias: 'titled', raw: '[titled](../rel/x.md "A title")' },
      { kind: 'markdown', target: 'n.md', blockId: 'abc', alias: 'block', raw: '[block](n.md#^abc)' },
      { kind: 'markdown', target: 'a_(b).md', alias: 'parens', raw: '[parens](a_(b).md)' },
      { kind: 'markdown', target: 'empty-text.md', raw: '[](empty-text.md)' },
    ]);
  });

  test('URLs and same-page fragments are not note links', () => {
    const text =
      '[w](https://example.com/a#b) [h](http://x.y) [m](mailto:a@b.c) [o](obsidian://open?vault=v) [f](file:///tmp/x.md) [p](//cdn.example.com/x) [frag](#Heading) [e]()';
    assert.deepEqual(refs(text).links, []);
  });

  test('images are embeds only when local', () => {
    const text = '![alt](images/pic%201.png) ![remote](https://x.y/pic.png) ![](diagram.svg)';
    assert.deepEqual(described(text, refs(text).links), [
      { kind: 'embed', target: 'images/pic 1.png', alias: 'alt', raw: '![alt](images/pic%201.png)' },
      { kind: 'embed', target: 'diagram.svg', raw: '![](diagram.svg)' },
    ]);
  });

  test('a bad percent escape keeps the text as written', () => {
    assert.equal(refs('[x](100%.md)').links[0]?.target, '100%.md');
  });

  test('not links: escaped bracket, no destination, space in a bare destination', () => {
    assert.deepEqual(refs('\\[x](a.md) [x] (a.md) [x][ref] [x](a b.md)').links, []);
  });
});

describe('code', () => {
  test('single and double backtick code spans hide links and tags', () => {
    const text = 'Use `[[NotALink]] #nottag` and ``a ` [[Still code]]`` then [[Real]] #real';
    const result = refs(text);
    assert.deepEqual(described(text, result.links), [{ kind: 'wikilink', target: 'Real', raw: '[[Real]]' }]);
    assert.deepEqual(result.tags, ['real']);
  });

  test('an unclosed backtick run is literal', () => {
    const text = 'A lone `` pair then [[Link]] and ``` not closed by ` #tag';
    const result = refs(text);
    assert.deepEqual(described(text, result.links), [{ kind: 'wikilink', target: 'Link', raw: '[[Link]]' }]);
    assert.deepEqual(result.tags, ['tag']);
  });

  test('a code span does not reach across a blank line', () => {
    const text = 'Para `one\n\n[[Visible]] and ` later';
    assert.deepEqual(refs(text).links.map((link) => link.target), ['Visible']);
  });

  test('an escaped backtick does not open a span', () => {
    assert.deepEqual(refs('\\`[[A]]` b').links.map((link) => link.target), ['A']);
  });

  test('caller-provided code ranges are skipped, and links do not cross them', () => {
    const fence = '```\n[[InFence]] #fencetag\n```\n';
    const text = `Before [[One]]\n${fence}After [[Two]] #after`;
    const fenceStart = text.indexOf('```');
    const result = refs(text, [[fenceStart, fenceStart + fence.length]]);
    assert.deepEqual(result.links.map((link) => link.target), ['One', 'Two']);
    assert.deepEqual(result.tags, ['after']);

    const split = '[[Across]]';
    assert.deepEqual(extractInlineRefs(split, 0, split.length, [[4, 6]]).links, []);
  });

  test('from/to window: offsets stay absolute', () => {
    const text = '[[Outside]] middle [[Inside]] #in end [[Outside2]] #out';
    const from = text.indexOf('middle');
    const to = text.indexOf(' end');
    const result = extractInlineRefs(text, from, to, []);
    assert.deepEqual(described(text, result.links), [{ kind: 'wikilink', target: 'Inside', raw: '[[Inside]]' }]);
    assert.equal(result.links[0]!.start, text.indexOf('[[Inside]]'));
    assert.deepEqual(result.tags, ['in']);
  });
});

describe('tags', () => {
  test('Obsidian tag rules', () => {
    const text = '#start and #nested/tag/ plus #1st but not #123, (#paren),#comma a#b \\#escaped #with-dash_under #日本語 #한국어 #Start';
    assert.deepEqual(refs(text).tags, ['start', 'nested/tag', '1st', 'paren', 'comma', 'with-dash_under', '日本語', '한국어']);
  });

  test('headings, URLs and link targets are not tags', () => {
    const text =
      '# Heading\n## Sub #real\nSee https://example.com/page#section and [x](https://e.com/#frag) and [y](note.md#Head) and [[Note#Heading]] and <https://a.b/#c>';
    assert.deepEqual(refs(text).tags, ['real']);
  });

  test('a tag ends at punctuation and keeps the first spelling', () => {
    assert.deepEqual(refs('#Project. #project! #tag:x').tags, ['Project', 'tag']);
  });
});

describe('reduceWikilinks', () => {
  test('display text for header paths', () => {
    assert.equal(reduceWikilinks('Using [[Hybrid ranking|hybrid search]]'), 'Using hybrid search');
    assert.equal(reduceWikilinks('See [[A#B]] and [[C]]'), 'See A > B and C');
    assert.equal(reduceWikilinks('[[#Local]] and ![[pic.png]] and [[N#^blk]]'), 'Local and pic.png and N');
    assert.equal(reduceWikilinks('[[T\\|alias]] \\[[kept]] [[]]'), 'alias \\[[kept]] [[]]');
  });
});

describe('extractInlineRefs property', () => {
  const tokens = ['[[', ']]', '|', '#', '`', '``', 'a', 'b', 'Z', '1', ' ', '\n', '(', ')', '!', '[', ']', '\\', '.md', '😀'];
  const markdownish = fc.array(fc.constantFrom(...tokens), { maxLength: 60 }).map((parts) => parts.join(''));
  const withWindow = markdownish.chain((text) =>
    fc
      .record({
        from: fc.nat({ max: text.length }),
        to: fc.nat({ max: text.length }),
        ranges: fc.array(fc.tuple(fc.nat({ max: text.length }), fc.nat({ max: 8 })), { maxLength: 3 }),
      })
      .map(({ from, to, ranges }) => ({
        text,
        from: Math.min(from, to),
        to: Math.max(from, to),
        codeRanges: ranges.map(([start, length]) => [start, Math.min(text.length, start + length)] as [number, number]),
      })),
  );

  test('never throws; links stay inside the window and outside code', () => {
    fc.assert(
      fc.property(withWindow, ({ text, from, to, codeRanges }) => {
        const { links, tags } = extractInlineRefs(text, from, to, codeRanges);
        for (const link of links) {
          assert.ok(link.start >= from && link.end <= to && link.start < link.end, `link ${link.start}-${link.end} outside ${from}-${to}`);
          for (const [start, end] of codeRanges) {
            // Half-open ranges: an empty code range holds no character to overlap.
            assert.ok(Math.max(link.start, start) >= Math.min(link.end, end), `link ${link.start}-${link.end} overlaps code ${start}-${end}`);
          }
          const raw = text.slice(link.start, link.end);
          if (link.kind === 'wikilink') assert.ok(raw.startsWith('[['), raw);
          if (link.kind === 'embed') assert.ok(raw.startsWith('![[') || raw.startsWith('!['), raw);
          assert.equal(link.target, link.target.trim());
        }
        for (let i = 1; i < links.length; i++) assert.ok(links[i]!.start >= links[i - 1]!.end, 'links overlap');
        for (const tag of tags) assert.ok(tag.length > 0 && !tag.endsWith('/'), tag);
      }),
      { numRuns: 2000 },
    );
  });

  test('wikilinks in plain text round-trip', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,15}$/).map((s) => s.trim()).filter((s) => s !== '');
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }).map((s) => s.replace(/[[\]`\\!#]/g, '')), name, (prefix, target) => {
        const text = `${prefix}[[${target}]]`;
        const { links } = refs(text);
        assert.equal(links.length, 1);
        assert.equal(links[0]!.target, target);
        assert.equal(text.slice(links[0]!.start, links[0]!.end), `[[${target}]]`);
      }),
    );
  });
});
