import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkInvariantViolations } from '../core/chunking/chunkInvariants.js';
import { hasShownText } from '../core/chunking/shownText.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import type { Chunk } from '../core/chunking/types.js';
import { chunkingConfig, chunkText, paragraph, words } from './support/chunking.js';

const paths = (chunks: Chunk[]) => chunks.map((c) => c.headerPath.join(' > '));

async function checked(text: string, overrides = {}, window = 510): Promise<Chunk[]> {
  const chunks = await chunkText(text, overrides, window);
  assert.deepEqual(chunkInvariantViolations(text, chunks, chunkingConfig(overrides), new BasicTokenCounter(window)), []);
  return chunks;
}

// min_chunk_chars 0 keeps every heading's section separate, so boundaries are easy to see.
const noMerge = { min_chunk_chars: 0 };

describe('headings that bound chunks', () => {
  it('ATX h1-h6 and setext h1/h2 start sections with the right header path', async () => {
    const text = '# One\n\nbody one\n\nTwo\n===\n\nbody two\n\nSub\n---\n\nbody sub\n\n### Three ###\n\nbody three\n\n###### Six\n\nbody six\n';
    const chunks = await checked(text, noMerge);
    assert.deepEqual(paths(chunks), ['One', 'Two', 'Two > Sub', 'Two > Sub > Three', 'Two > Sub > Three > Six']);
    assert.deepEqual(chunks.map((c) => c.level), [1, 1, 2, 3, 6]);
    assert.equal(chunks[1].text, 'Two\n===\n\nbody two');
  });

  it('# lines in ``` and ~~~ fences, unclosed fences, indented code, HTML blocks and front matter are not headings', async () => {
    const text = [
      '---', '# yaml comment', 'title: T', '---', '# Real', '', '```bash', '# comment', '```', '', '~~~', '# inside tilde', '~~~', '',
      '    # indented code', '', '<div>', '# in html', '</div>', '', '```', '# unclosed fence', '## still code',
    ].join('\n');
    const chunks = await checked(text, noMerge);
    assert.equal(chunks.length, 1);
    assert.deepEqual(chunks[0].headerPath, ['Real']);
    assert.ok(chunks[0].text.endsWith('## still code'));
    assert.ok(!chunks[0].text.includes('yaml comment'), 'front matter is metadata, not chunk text');
  });

  it('headings inside block quotes and callouts do not bound chunks', async () => {
    const text = '# Top\n\n> [!tip] A callout\n> # Quoted heading\n> text in the callout\n\n> ## Plain quote heading\n\n- item\n  # heading in a list item\n';
    const chunks = await checked(text, noMerge);
    assert.equal(chunks.length, 1);
    assert.deepEqual(chunks[0].headerPath, ['Top']);
  });

  it('empty headings bound sections but name no step of a header path; closing #s are dropped; wikilinks reduce to their display text', async () => {
    const text = '#\n\nunder empty h1\n\n## Using [[Hybrid ranking|hybrid search]] ##\n\nx\n\n### See [[Other note]] and [[A#B]]\n\ny\n\n##   \n\nz\n';
    const chunks = await checked(text, noMerge);
    assert.deepEqual(chunks.map((c) => c.headerPath), [[], ['Using hybrid search'], ['Using hybrid search', 'See Other note and A > B'], []]);
    assert.deepEqual(chunks.map((c) => c.level), [1, 2, 3, 2]);
    assert.deepEqual(chunks.map((c) => c.anchor), ['', 'using-hybrid-search', 'see-other-note-and-a--b', '']);
    assert.equal(chunks[3].text, '##   \n\nz');
  });

  it('anchors are GitHub-style slugs, repeated headings numbered in document order', async () => {
    const text = '# Notes\n\na\n\n## Examples\n\nb\n\n## Examples\n\nc\n\n## C++ & Node.js: tips!\n\nd\n';
    const chunks = await checked(text, noMerge);
    assert.deepEqual(chunks.map((c) => c.anchor), ['notes', 'examples', 'examples-1', 'c--nodejs-tips']);
  });
});

describe('merging small sections', () => {
  it('a short section joins the following sibling or child; the citation is the longest part', async () => {
    const text = `# Title\n\n## Intro\n\n${paragraph(6)}\n\n## Next\n\n${paragraph(6, 1)}\n`;
    const chunks = await checked(text);
    assert.equal(chunks.length, 2);
    assert.ok(chunks[0].text.startsWith('# Title'));
    assert.deepEqual(chunks[0].headerPath, ['Title', 'Intro']);
  });

  it('never climbs the hierarchy: "## A" does not swallow the next "# B"', async () => {
    const text = `# T\n\n${paragraph(6)}\n\n## A\n\nshort\n\n# B\n\n${paragraph(6, 1)}\n`;
    const chunks = await checked(text);
    assert.deepEqual(paths(chunks), ['T', 'B']);
    assert.ok(chunks[0].text.endsWith('## A\n\nshort'));
  });

  it('a short trailing section joins the section before it', async () => {
    const text = `# T\n\n## Long\n\n${paragraph(6)}\n\n## See also\n\n[[x]]\n`;
    const chunks = await checked(text);
    assert.equal(chunks.length, 1);
    assert.ok(chunks[0].text.endsWith('[[x]]'));
  });

  it('runs of short sections are merged until they reach min_chunk_chars, never beyond max', async () => {
    const entries = Array.from({ length: 12 }, (_, i) => `### Term ${i}\n\n${paragraph(1, i)}`).join('\n\n');
    const chunks = await checked(`# Glossary\n\n${entries}\n`, { min_chunk_chars: 200, max_chunk_chars: 400 });
    assert.ok(chunks.length >= 4 && chunks.length <= 6, `got ${chunks.length} chunks`);
    for (const chunk of chunks.slice(0, -1)) assert.ok(chunk.text.length >= 200 && chunk.text.length <= 400);
  });
});

describe('parts of merged sections', () => {
  it('a merged chunk lists each part\'s heading and first line; an unmerged one lists none', async () => {
    const text = `# Title\n\n## Global Filter\n\nOnly tasks with the tag.\n\n## Dates\n\n${paragraph(6)}\n\n# Alone\n\n${paragraph(6, 1)}\n`;
    const chunks = await checked(text);
    assert.equal(chunks.length, 2);
    assert.deepEqual(chunks[0].parts, [
      { startLine: 1, headerPath: ['Title'], anchor: 'title' },
      { startLine: 3, headerPath: ['Title', 'Global Filter'], anchor: 'global-filter' },
      { startLine: 7, headerPath: ['Title', 'Dates'], anchor: 'dates' },
    ]);
    assert.deepEqual(chunks[0].headerPath, ['Title', 'Dates'], 'cited by its longest part');
    assert.equal(chunks[1].parts, undefined);
  });

  it('a merged run cut by the token window: each piece is cited by the part it holds most of, with that header prefix', async () => {
    const text = `# Guide\n\n## Short one\n\n${paragraph(1)}\n\n## Long two\n\n${paragraph(3, 1)}\n\n${paragraph(3, 2)}\n`;
    const whole = await checked(text, { min_chunk_chars: 2000 });
    assert.equal(whole.length, 1);
    assert.deepEqual(whole[0].headerPath, ['Guide', 'Long two']);
    // A window of 60 tokens cannot hold the merged section: its pieces are cited by what they hold.
    const pieces = await checked(text, { min_chunk_chars: 2000, overlap_chars: 0 }, 60);
    assert.ok(pieces.length >= 2, `got ${pieces.length} pieces`);
    assert.deepEqual(pieces[0].headerPath.at(-1), 'Short one');
    assert.ok(pieces[0].content.startsWith('Guide > Short one\n\n'));
    assert.deepEqual(pieces.at(-1)!.headerPath, ['Guide', 'Long two']);
    assert.ok(pieces.at(-1)!.content.startsWith('Guide > Long two\n\n'));
    for (const piece of pieces) if (piece.parts) assert.ok(piece.parts.length >= 2);
  });
});

describe('splitting large sections', () => {
  it('splits at paragraph boundaries and tags sub-chunks _sub_N', async () => {
    const paras = [paragraph(10, 1), paragraph(10, 2), paragraph(10, 3)];
    const chunks = await checked(`## Long\n\n${paras.join('\n\n')}\n`, { max_chunk_chars: 1400 });
    assert.ok(chunks.length >= 2);
    assert.deepEqual(chunks.map((c) => c.sub), chunks.map((_, i) => i));
    for (const chunk of chunks) {
      assert.ok(chunk.id.includes(`_sub_${chunk.sub}@`));
      assert.deepEqual(chunk.headerPath, ['Long']);
      // Every piece ends where a paragraph ends.
      assert.ok(paras.some((p) => chunk.text.endsWith(p)), 'piece does not end at a paragraph boundary');
    }
  });

  it('keeps a fenced code block, a table and a list whole when they fit', async () => {
    const code = '```js\n' + Array.from({ length: 20 }, (_, i) => `const line${i} = ${i}; // # not a heading`).join('\n') + '\n```';
    const table = '| a | b |\n|---|---|\n' + Array.from({ length: 15 }, (_, i) => `| row ${i} | value ${i} |`).join('\n');
    const list = Array.from({ length: 15 }, (_, i) => `- item ${i} ${paragraph(1, i)}`).join('\n');
    const text = `# S\n\n${paragraph(6)}\n\n${code}\n\n${paragraph(6, 1)}\n\n${table}\n\n${list}\n`;
    const chunks = await checked(text, { max_chunk_chars: 1200 });
    for (const block of [code, table, list]) assert.ok(chunks.some((c) => c.text.includes(block)), 'a block that fits was cut');
  });

  it('splits an oversized code block at line boundaries, a list at items, a paragraph at sentences, a sentence at words', async () => {
    const codeLines = Array.from({ length: 60 }, (_, i) => `echo "line ${i} of a long script"`);
    const code = '```bash\n' + codeLines.join('\n') + '\n```';
    const items = Array.from({ length: 30 }, (_, i) => `- item ${i}: ${paragraph(1, i)}`);
    const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`);
    const longSentence = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ') + '.';
    const text = `# Code\n\n${code}\n\n# List\n\n${items.join('\n')}\n\n# Prose\n\n${sentences.join(' ')}\n\n# Run-on\n\n${longSentence}\n`;
    const chunks = await checked(text, { max_chunk_chars: 500, overlap_chars: 0 });
    const of = (heading: string) => chunks.filter((c) => c.headerPath[0] === heading);
    for (const c of of('Code')) assert.ok(c.text.split('\n').every((line) => codeLines.includes(line) || line.startsWith('```') || line === '# Code' || line === ''), 'code split inside a line');
    for (const c of of('List').slice(1)) assert.match(c.text, /^- item \d+:/);
    for (const c of of('Prose').slice(1)) assert.match(c.text, /^Sentence number \d+ is here\./);
    for (const c of of('Run-on')) assert.match(c.text, /(^|\s)word\d+(\.|$)/);
    assert.ok(of('Run-on').length >= 3);
    for (const c of of('Run-on').slice(0, -1)) assert.match(c.text, /word\d+$/, 'a sentence split inside a word');
  });

  it('keeps $$ display math whole and with its paragraph', async () => {
    const math = '$$\n\\text{score}(d) = \\sum_i \\frac{w_i}{k + r_i(d)}\n\n\\quad k = 60\n$$';
    const text = `# RRF\n\n${paragraph(8)}\n\nThe fused score is:\n\n${math}\n\n${paragraph(8, 2)}\n`;
    const chunks = await checked(text, { max_chunk_chars: 600 });
    assert.ok(chunks.some((c) => c.text.includes(`The fused score is:\n\n${math}`)));
  });

  it('prepends overlap only between sub-chunks of one section, cut at a word boundary', async () => {
    const text = `# A\n\n${paragraph(10)}\n\n${paragraph(10, 1)}\n\n# B\n\n${paragraph(10, 2)}\n\n${paragraph(10, 3)}\n`;
    const chunks = await checked(text, { max_chunk_chars: 700, overlap_chars: 40 });
    for (const [i, chunk] of chunks.entries()) {
      if (chunk.sub === null || chunk.sub === 0) assert.equal(chunk.overlap, '', `chunk ${i} has overlap across a heading`);
      else {
        assert.ok(chunk.overlap.length > 0 && chunk.overlap.length <= 40);
        assert.ok(chunks[i - 1].text.endsWith(chunk.overlap));
        assert.ok(/\s/.test(chunks[i - 1].text[chunks[i - 1].text.length - chunk.overlap.length - 1]), 'overlap not at a word boundary');
        assert.ok(chunk.content.includes(`${chunk.overlap}\n${chunk.text}`));
      }
    }
    assert.ok(chunks.some((c) => c.overlap));
  });
});

describe('documents without headings, and strategy "none"', () => {
  it('a single-paragraph document is one chunk; longer ones split at paragraphs', async () => {
    assert.equal((await checked(paragraph(5))).length, 1);
    const chunks = await checked([paragraph(8), paragraph(8, 1), paragraph(8, 2)].join('\n\n'), { max_chunk_chars: 1000 });
    assert.ok(chunks.length >= 2);
    assert.ok(chunks.every((c) => c.headerPath.length === 0 && c.level === 0));
  });

  it('"none" keeps whole notes, and still splits one that exceeds the token window', async () => {
    const text = `# A\n\n${paragraph(4)}\n\n# B\n\n${paragraph(4, 1)}\n`;
    const whole = await checked(text, { strategy: 'none' });
    assert.equal(whole.length, 1);
    assert.equal(whole[0].text, text.trim());
    const split = await checked(text, { strategy: 'none' }, 60);
    assert.ok(split.length > 1);
    assert.ok(split.every((c) => c.tokenCount <= 60));
  });
});

describe('token awareness', () => {
  it('no chunk exceeds the token window, even when it is within max_chunk_chars', async () => {
    // Punctuation-heavy text: about one token per two characters.
    const dense = Array.from({ length: 300 }, (_, i) => `a.b(${i})`).join(' ');
    const chunks = await checked(`# Dense\n\n${dense}\n`, { max_chunk_chars: 2000 }, 128);
    assert.ok(chunks.length > 1);
    assert.ok(chunks.every((c) => c.tokenCount <= 128));
  });

  it('CJK text counts one token per ideograph', async () => {
    const cjk = '検索'.repeat(300);
    const chunks = await checked(`# 日本語\n\n${cjk}\n`, { max_chunk_chars: 2000 }, 256);
    assert.ok(chunks.length >= 3);
    assert.ok(chunks.every((c) => c.tokenCount <= 256));
  });
});

describe('offsets, lines and ids', () => {
  it('CRLF text keeps its offsets; lines are 1-based and inclusive', async () => {
    const text = '---\r\ntitle: Win\r\n---\r\n# First\r\n\r\nline a\r\n\r\n# Second\r\n\r\nline b\r\n';
    const chunks = await checked(text, noMerge);
    assert.equal(chunks.length, 2);
    assert.equal(chunks[0].text, '# First\r\n\r\nline a');
    assert.deepEqual([chunks[0].startLine, chunks[0].endLine, chunks[1].startLine, chunks[1].endLine], [4, 6, 8, 10]);
    assert.equal(chunks[0].title, 'Win');
  });

  it('emoji and CJK offsets are UTF-16 indices of the text', async () => {
    const text = '# 🪨 Cairn 日本語\n\n😀 emoji first, then [[Link]] and #tag\n\n## 中文笔记\n\n向量检索 😀 [[Other|别名]]\n';
    const chunks = await checked(text, noMerge);
    assert.deepEqual(chunks.map((c) => c.headerPath), [['🪨 Cairn 日本語'], ['🪨 Cairn 日本語', '中文笔记']]);
    for (const chunk of chunks) for (const link of chunk.links) assert.match(text.slice(link.start, link.end), /^\[\[.*\]\]$/);
    assert.deepEqual(chunks[0].tags, ['tag']);
    assert.equal(chunks[1].links[0].alias, '别名');
  });

  it('ids are deterministic and unchanged for sections whose text did not change', async () => {
    const before = `# A\n\n${paragraph(5)}\n\n# B\n\n${paragraph(5, 1)}\n`;
    const first = await checked(before);
    assert.deepEqual(await checked(before), first);
    const after = before.replace('Sentence 1.0', 'Sentence one');
    const edited = await checked(after);
    assert.equal(edited[0].id, first[0].id);
    assert.notEqual(edited[1].id, first[1].id);
    assert.ok(first[0].id.startsWith('note.md#0@'));
  });

  it('links and tags come per chunk, never from code spans or code blocks', async () => {
    const text = '# A\n\nSee [[Alpha#Part|the part]], ![[Diagram]] and [local](../Other%20note.md#Sec). #real `[[not a link]] #not-a-tag`\n\n```\n[[Not either]] #nope\n```\n\n# B\n\n[[Beta#^block1]] #second/level\n';
    const chunks = await checked(text, noMerge);
    assert.deepEqual(chunks[0].links.map((l) => [l.kind, l.target, l.heading ?? null, l.alias ?? null]), [
      ['wikilink', 'Alpha', 'Part', 'the part'],
      ['embed', 'Diagram', null, null],
      ['markdown', '../Other note.md', 'Sec', 'local'],
    ]);
    assert.deepEqual(chunks[0].tags, ['real']);
    assert.deepEqual(chunks[1].links.map((l) => [l.target, l.blockId]), [['Beta', 'block1']]);
    assert.deepEqual(chunks[1].tags, ['second/level']);
  });

  it('a link, tag or block reference belongs to the chunk it starts in, even when a split falls inside it', async () => {
    // One long line: the section is force-split between words, one split falling inside the aliased wikilink.
    const line = `${words(30)} [[Field guide to alpine birds|the guide we wrote together last spring]] ${words(30, 3)} #alpine ((6565aaaa-1111-4222-8333-944444444444))`;
    const text = `# Birds\n\n${line}\n\n\`((6565bbbb-1111-4222-8333-944444444444))\` [[Second]]\n`;
    const chunks = await checked(text, { max_chunk_chars: 200, overlap_chars: 0 });
    assert.ok(chunks.length >= 3, `split into ${chunks.length}`);
    const guide = chunks.filter((c) => c.links.some((l) => l.target === 'Field guide to alpine birds'));
    assert.equal(guide.length, 1, 'the link is in exactly one chunk');
    const link = guide[0].links.find((l) => l.target === 'Field guide to alpine birds')!;
    assert.ok(link.start >= guide[0].start && link.start < guide[0].end && link.end > guide[0].end, 'the split falls inside it');
    assert.deepEqual(chunks.flatMap((c) => c.tags), ['alpine']);
    assert.deepEqual(chunks.flatMap((c) => c.blockRefs ?? []), ['6565aaaa-1111-4222-8333-944444444444'], 'none from inline code');
    assert.deepEqual(chunks.at(-1)!.links.map((l) => l.target), ['Second']);
  });
});

describe('front matter variants', () => {
  it('Obsidian: title, aliases and tags are inherited by every chunk and merged with inline tags', async () => {
    const text = `---\ntitle: Guide\naliases: [Manual, Handbook]\ntags: [docs, cairn]\ncreated: 2026-01-02\n---\n# Part one\n\n${paragraph(4)} #inline\n\n# Part two\n\n${paragraph(4, 1)}\n`;
    const chunks = await checked(text);
    assert.equal(chunks.length, 2);
    for (const chunk of chunks) {
      assert.equal(chunk.title, 'Guide');
      assert.deepEqual(chunk.aliases, ['Manual', 'Handbook']);
      assert.equal(chunk.frontmatter.created, '2026-01-02');
    }
    assert.deepEqual(chunks[0].tags, ['docs', 'cairn', 'inline']);
    assert.deepEqual(chunks[1].tags, ['docs', 'cairn']);
  });

  it('Dendron: title and epoch-millisecond dates from front matter', async () => {
    const text = `---\nid: abc123\ntitle: Pod Setup\ndesc: ''\nupdated: 1700000000000\ncreated: 1600000000000\n---\n\n## Steps\n\n${paragraph(4)}\n`;
    const chunks = await chunkText(text, {}, 510, 'dendron.pods.setup.md');
    assert.equal(chunks[0].title, 'Pod Setup');
    assert.equal(chunks[0].frontmatter.id, 'abc123');
  });

  it('Hugo: TOML front matter gives the metadata and is neither a section nor chunk text', async () => {
    const text = `+++\ntitle = "Render hooks"\ntags = ["templates", "markdown"]\ndate = 2024-03-01\n+++\n\n## Overview\n\n${paragraph(4)}\n`;
    const chunks = await checked(text);
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0].title, 'Render hooks');
    assert.deepEqual(chunks[0].tags, ['templates', 'markdown']);
    assert.deepEqual(chunks[0].headerPath, ['Overview']);
    assert.equal(chunks[0].startLine, 7);
    assert.ok(!chunks[0].text.includes('+++') && !chunks[0].text.includes('title ='));
  });

  it('Logseq: page properties give the metadata and stay in the text', async () => {
    const text = `title:: Logseq Page\nalias:: lp, page\ntags:: notes\n\n- first block ${paragraph(2)}\n- second block\n`;
    const chunks = await checked(text);
    assert.equal(chunks[0].title, 'Logseq Page');
    assert.deepEqual(chunks[0].aliases, ['lp', 'page']);
    assert.ok(chunks[0].tags.includes('notes'));
    assert.ok(chunks[0].text.startsWith('title:: Logseq Page'));
  });

  it('malformed front matter is reported and the note is still chunked', async () => {
    const { createChunker } = await import('../core/chunking/createChunker.js');
    const chunker = await createChunker(chunkingConfig(), new BasicTokenCounter(510));
    const text = `---\ntitle: [unclosed\ntags: x\n---\n# Body\n\n${paragraph(4)}\n`;
    const result = chunker.chunk({ path: 'bad.md', text, mtimeMs: 0 });
    assert.ok(result.frontmatterError);
    assert.ok(result.frontmatterError.line >= 2);
    assert.equal(result.chunks.length, 1);
    assert.equal(result.chunks[0].title, 'bad');
    assert.ok(!result.chunks[0].text.includes('unclosed'));
  });
});

describe('encoded data is not text', () => {
  // Deterministic base64 (a drawing's compressed-json), wrapped as Excalidraw writes it.
  const base64 = (bytes: number) => Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 73 + 11) % 256)).toString('base64').replace(/(.{256})/g, '$1\n');
  const shown = (chunks: Chunk[]) => chunks.filter(hasShownText);

  it('an Excalidraw drawing: its data makes no searchable chunk, its text elements do', async () => {
    const text = `---\nexcalidraw-plugin: parsed\n---\n# Excalidraw Data\n## Text Elements\nMy architecture sketch ^abc123\n\n%%\n## Drawing\n\`\`\`compressed-json\n${base64(20_000)}\n\`\`\`\n%%\n`;
    const chunks = await checked(text);
    assert.ok(chunks.length > 5, 'the data is still covered by chunks (cited in the note view)');
    const searchable = shown(chunks);
    assert.ok(searchable.some((c) => c.content.includes('My architecture sketch')));
    for (const chunk of searchable) assert.doesNotMatch(chunk.content, /[A-Za-z0-9+/]{40}|compressed-json/, chunk.headerPath.join(' > '));
  });

  it('a data URI keeps its text and loses its payload; short or worded code stays text', async () => {
    const image = `![the floor plan](data:image/png;base64,${base64(600).replace(/\n/g, '')})`;
    const hash = `\`\`\`\n${'ab12'.repeat(16)}\n\`\`\``;
    const code = `\`\`\`js\nconst token = "${'x'.repeat(1200)}"; // long, but code\n\`\`\``;
    const [chunk] = await checked(`# Plan\n\n${image}\n\n${hash}\n\n${code}\n`, { max_chunk_chars: 4000 });
    assert.match(chunk!.content, /!\[the floor plan\]\(data:image\/png;base64,\)/);
    assert.ok(chunk!.content.includes('ab12'.repeat(16)));
    assert.ok(chunk!.content.includes('x'.repeat(1200)));
  });
});

describe('what a reading view hides', () => {
  it('a block id ending a line is not shown, indexed or embedded; the same characters in code stay', async () => {
    const text = '# Tasks\n\n- [ ] Water the ferns 📅 2021-04-09 ^e5bebf\n- Repot the cactus  ^osmf0zyhfsx3\n\n```\nx ^2\n```\n';
    const [chunk] = await checked(text);
    assert.doesNotMatch(chunk!.content, /\^e5bebf|\^osmf0zyhfsx3/);
    assert.match(chunk!.content, /Water the ferns 📅 2021-04-09\n- Repot the cactus\n/);
    assert.match(chunk!.content, /x \^2/);
    // The source keeps the id: links to the block resolve against it.
    assert.match(chunk!.text, /\^e5bebf/);
  });
});
