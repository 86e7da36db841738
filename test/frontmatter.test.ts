import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { noteMetadata, parseFrontmatter } from '../core/parse/frontmatter.js';

function metadataOf(path: string, text: string) {
  const frontmatter = parseFrontmatter(text);
  return { frontmatter, metadata: noteMetadata(path, frontmatter, text.slice(frontmatter.end)) };
}

describe('parseFrontmatter', () => {
  test('no front matter', () => {
    assert.deepEqual(parseFrontmatter('# Title\n\nbody'), { data: {}, end: 0 });
    assert.deepEqual(parseFrontmatter(''), { data: {}, end: 0 });
    // A thematic break later in the note is not front matter.
    assert.deepEqual(parseFrontmatter('text\n---\na: 1\n---\n'), { data: {}, end: 0 });
    assert.deepEqual(parseFrontmatter('---'), { data: {}, end: 0 });
  });

  test('Obsidian front matter, end just past the closing fence line', () => {
    const head = '---\ntitle: Hybrid ranking\naliases: [hybrid, "mixed search"]\ntags:\n  - search\n  - "#ranking"\ncreated: 2024-01-05\nupdated: 2024-02-01T10:30:00Z\n---\n';
    const text = `${head}# Body\n`;
    const fm = parseFrontmatter(text);
    assert.equal(fm.end, head.length);
    assert.equal(text.slice(fm.end), '# Body\n');
    assert.equal(fm.error, undefined);
    assert.deepEqual(fm.data, {
      title: 'Hybrid ranking',
      aliases: ['hybrid', 'mixed search'],
      tags: ['search', '#ranking'],
      created: '2024-01-05',
      updated: '2024-02-01T10:30:00Z',
    });
  });

  test('dates are JSON-safe strings, even with explicit YAML tags', () => {
    const fm = parseFrontmatter('---\nd: 2024-01-05\nts: !!timestamp 2024-01-05T10:00:00Z\nbin: !!binary aGk=\ninf: .inf\n---\n');
    assert.deepEqual(fm.data, { d: '2024-01-05', ts: '2024-01-05T10:00:00.000Z', bin: 'aGk=', inf: 'Infinity' });
    assert.deepEqual(JSON.parse(JSON.stringify(fm.data)), fm.data);
  });

  test('"..." closes the block, and a closing fence at end of text', () => {
    assert.deepEqual(parseFrontmatter('---\na: 1\n...\nbody'), { data: { a: 1 }, end: 13 });
    assert.deepEqual(parseFrontmatter('---\na: 1\n---'), { data: { a: 1 }, end: 12 });
  });

  test('CRLF front matter', () => {
    const text = '---\r\ntitle: Windows\r\ntags: [a, b]\r\n---\r\nBody\r\n';
    const fm = parseFrontmatter(text);
    assert.deepEqual(fm.data, { title: 'Windows', tags: ['a', 'b'] });
    assert.equal(text.slice(fm.end), 'Body\r\n');
  });

  test('empty front matter', () => {
    assert.deepEqual(parseFrontmatter('---\n---'), { data: {}, end: 7 });
    assert.deepEqual(parseFrontmatter('---\n---\nbody'), { data: {}, end: 8 });
    assert.deepEqual(parseFrontmatter('---\n# just a comment\n\n---\nbody'), { data: {}, end: 26 });
  });

  test('unclosed front matter is body text', () => {
    assert.deepEqual(parseFrontmatter('---\ntitle: x\n\n# Heading\n'), { data: {}, end: 0 });
  });

  test('malformed YAML keeps the block as metadata and reports the note line', () => {
    const text = '---\ntitle: ok\ntags: [a, b\nother: 1\n---\nbody';
    const fm = parseFrontmatter(text);
    assert.deepEqual(fm.data, {});
    assert.equal(text.slice(fm.end), 'body');
    assert.ok(fm.error);
    assert.equal(fm.error.line, 4);
    assert.match(fm.error.message, /\S/);

    const badIndent = '---\r\ntitle: ok\r\nkey: value\r\n  bad: indent\r\n---\r\n';
    const bad = parseFrontmatter(badIndent);
    assert.deepEqual(bad.data, {});
    assert.equal(bad.end, badIndent.length);
    // yaml reports this at the key whose value is wrongly indented.
    assert.equal(bad.error?.line, 3);

    const duplicate = parseFrontmatter('---\na: 1\na: 2\n---\n');
    assert.equal(duplicate.error?.line, 3);
    const unclosedQuote = parseFrontmatter('---\ntitle: "unclosed\n\n---\n');
    assert.equal(unclosedQuote.error?.line, 2);
    assert.match(unclosedQuote.error?.message ?? '', /quote/);
  });

  test('non-mapping YAML is an error with empty data', () => {
    const scalar = parseFrontmatter('---\njust text\n---\nbody');
    assert.deepEqual(scalar.data, {});
    assert.equal(scalar.end, 18);
    assert.equal(scalar.error?.line, 2);
    const list = parseFrontmatter('---\n\n- a\n- b\n---\n');
    assert.deepEqual(list.data, {});
    assert.match(list.error?.message ?? '', /list/);
    assert.equal(list.error?.line, 3);
  });

  test('TOML front matter between +++ lines (Hugo, Zola): title, tags, aliases and dates as YAML gives them', () => {
    const head = '+++\r\ntitle = "Hugo Page"\r\ntags = ["toml", "hugo"]\r\naliases = ["/old/"]\r\ndate = 2024-01-05\r\ndraft = false\r\n\r\n[params]\r\nauthor = "Ann"\r\n+++\r\n';
    const text = `${head}# Body\r\n`;
    const { frontmatter, metadata } = metadataOf('content/page.md', text);
    assert.equal(frontmatter.error, undefined);
    assert.equal(text.slice(frontmatter.end), '# Body\r\n');
    assert.deepEqual(frontmatter.data, { title: 'Hugo Page', tags: ['toml', 'hugo'], aliases: ['/old/'], date: '2024-01-05', draft: false, params: { author: 'Ann' } });
    assert.deepEqual(JSON.parse(JSON.stringify(frontmatter.data)), frontmatter.data);
    assert.equal(metadata.title, 'Hugo Page');
    assert.deepEqual(metadata.tags, ['toml', 'hugo']);
    assert.equal(metadata.created, '2024-01-05');
    // A YAML fence does not close TOML, nor the other way round: unclosed, it is body text.
    assert.deepEqual(parseFrontmatter('+++\ntitle = "x"\n---\nbody'), { data: {}, end: 0 });
    assert.deepEqual(parseFrontmatter('+++\n+++\nbody'), { data: {}, end: 8 });
  });

  test('malformed TOML keeps the block as metadata and reports the note line', () => {
    const text = '+++\ntitle = "ok"\ntags = ["a", "b"\n+++\nbody';
    const fm = parseFrontmatter(text);
    assert.deepEqual(fm.data, {});
    assert.equal(text.slice(fm.end), 'body');
    assert.equal(fm.error?.line, 3);
    assert.match(fm.error?.message ?? '', /\S/);
    assert.doesNotMatch(fm.error?.message ?? '', /\n/);
  });

  test('a __proto__ key stays data', () => {
    const fm = parseFrontmatter('---\n__proto__: {polluted: true}\n---\n');
    assert.equal(Object.getPrototypeOf(fm.data), Object.prototype);
    assert.deepEqual(Object.keys(fm.data), ['__proto__']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});

describe('noteMetadata', () => {
  test('Obsidian: title, aliases and tags as lists, dates kept as written', () => {
    const { metadata } = metadataOf(
      'notes/ranking.md',
      '---\ntitle: Hybrid ranking\naliases: [hybrid, Hybrid, "[[mixed]]"]\ntags: [search, "#ranking", Search, nested/tag/]\ncreated: 2024-01-05\nmodified: 2024-02-01T10:30:00Z\n---\nbody',
    );
    assert.deepEqual(metadata, {
      title: 'Hybrid ranking',
      aliases: ['hybrid', 'mixed'],
      tags: ['search', 'ranking', 'nested/tag'],
      created: '2024-01-05',
      updated: '2024-02-01T10:30:00Z',
      frontmatter: {
        title: 'Hybrid ranking',
        aliases: ['hybrid', 'Hybrid', '[[mixed]]'],
        tags: ['search', '#ranking', 'Search', 'nested/tag/'],
        created: '2024-01-05',
        modified: '2024-02-01T10:30:00Z',
      },
    });
  });

  test('Obsidian: singular keys and strings', () => {
    const { metadata } = metadataOf('a/b/My Note.md', '---\nalias: one, two\ntag: "#x y, z #x"\ndate: 2023-12-31\n---\n');
    assert.equal(metadata.title, 'My Note');
    assert.deepEqual(metadata.aliases, ['one', 'two']);
    assert.deepEqual(metadata.tags, ['x', 'y', 'z']);
    assert.equal(metadata.created, '2023-12-31');
    assert.equal(metadata.updated, undefined);
  });

  test('plural keys win over singular ones', () => {
    const { metadata } = metadataOf('n.md', '---\naliases: [a]\nalias: b\ntags: t1\ntag: t2\n---\n');
    assert.deepEqual(metadata.aliases, ['a']);
    assert.deepEqual(metadata.tags, ['t1']);
  });

  test('Dendron: dotted file names and epoch-millisecond dates', () => {
    const text = '---\nid: 4f0a9c1b2d\ntitle: Chunking\ndesc: How notes are split\nupdated: 1700000000000\ncreated: 1690000000000\n---\n\n# Chunking\n';
    const { metadata } = metadataOf('cairn.design.chunking.md', text);
    assert.equal(metadata.title, 'Chunking');
    assert.equal(metadata.created, new Date(1690000000000).toISOString());
    assert.equal(metadata.updated, '2023-11-14T22:13:20.000Z');
    assert.equal(metadata.frontmatter['desc'], 'How notes are split');
    assert.equal(metadata.frontmatter['id'], '4f0a9c1b2d');

    const untitled = metadataOf('cairn.design.chunking.md', '---\nid: x\n---\n').metadata;
    assert.equal(untitled.title, 'cairn.design.chunking');
  });

  test('title falls back to the file base name', () => {
    assert.equal(metadataOf('Note.markdown', 'body').metadata.title, 'Note');
    assert.equal(metadataOf('dir/.hidden', 'body').metadata.title, '.hidden');
    assert.equal(metadataOf('x.md', '---\ntitle: ""\n---\n').metadata.title, 'x');
    assert.equal(metadataOf('x.md', '---\ntitle: 2024\n---\n').metadata.title, '2024');
  });

  test('Logseq page properties', () => {
    const body = 'title:: My page\nalias:: first, [[Second one]]\ntags:: x, [[y z]], #w\ncollapsed:: true\n\n- first block\n- tags:: not-a-page-prop\n';
    const { frontmatter, metadata } = metadataOf('pages/my_page.md', body);
    assert.equal(frontmatter.end, 0);
    assert.equal(metadata.title, 'My page');
    assert.deepEqual(metadata.aliases, ['first', 'Second one']);
    assert.deepEqual(metadata.tags, ['x', 'y z', 'w']);
    assert.equal(metadata.frontmatter['collapsed'], 'true');
  });

  test('Logseq properties as the first bullet block', () => {
    const body = '- Title:: Bulleted\n  alias:: b\n- content\n';
    const { metadata } = metadataOf('pages/p.md', body);
    assert.equal(metadata.title, 'Bulleted');
    assert.deepEqual(metadata.aliases, ['b']);
  });

  test('only the initial run of property lines counts', () => {
    const { metadata } = metadataOf('p.md', 'Some text\ntags:: late\n');
    assert.deepEqual(metadata.tags, []);
    assert.equal(metadata.title, 'p');
  });

  test('YAML front matter wins over Logseq properties, which fill the gaps', () => {
    const { metadata } = metadataOf('p.md', '---\ntitle: From YAML\n---\ntitle:: From Logseq\ntags:: extra\n');
    assert.equal(metadata.title, 'From YAML');
    assert.deepEqual(metadata.tags, ['extra']);
    assert.equal(metadata.frontmatter['title'], 'From YAML');
  });

  test('malformed front matter still gives a usable title', () => {
    const { frontmatter, metadata } = metadataOf('folder/Broken.md', '---\ntitle: [oops\n---\nbody');
    assert.ok(frontmatter.error);
    assert.equal(metadata.title, 'Broken');
    assert.deepEqual(metadata.frontmatter, {});
  });

  test('epoch seconds and unusable dates', () => {
    assert.equal(metadataOf('a.md', '---\ncreated: 1700000000\n---\n').metadata.created, '2023-11-14T22:13:20.000Z');
    assert.equal(metadataOf('a.md', '---\ncreated: 42\n---\n').metadata.created, undefined);
    assert.equal(metadataOf('a.md', '---\ncreated: [1, 2]\n---\n').metadata.created, undefined);
  });
});
