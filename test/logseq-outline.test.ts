import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { chunkInvariantViolations, outlineInvariantViolations, propertyLineIn } from '../core/chunking/chunkInvariants.js';
import { createChunker } from '../core/chunking/createChunker.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import type { ChunkingConfig } from '../core/config/schema.js';
import { blockRefsIn, collectBlockTexts, lookupIn, MISSING_BLOCK, resolveBlockRefs } from '../core/parse/logseqBlocks.js';
import { parseOutline } from '../core/parse/outlineBlocks.js';
import { journalDateFromPath, journalTitle, pageNameFromPath } from '../core/parse/pageNames.js';
import { noteMetadata, parseFrontmatter } from '../core/parse/frontmatter.js';
import { chunkText, paragraph } from './support/chunking.js';

const PAGE = [
  'type:: [[Feature]]',
  'tags:: outline, logseq',
  'alias:: Outliner',
  '',
  '- ## Intro',
  '\t- Intro text about outlines.',
  '\t  id:: 6565aaaa-1111-4222-8333-944444444444',
  '\t  collapsed:: true',
  '- ## Usage',
  '\t- ### How to setup custom keyboard shortcuts?',
  '\t\t- Open the settings. See ((6565aaaa-1111-4222-8333-944444444444)).',
  '\t\t- {{query (and [[tag]] (task NOW))}} and {{embed [[Other page]]}} and {{cloze hidden words}}',
  '\t- A plain block',
  '- Getting Started',
  '  heading:: true',
  '- A sibling under Getting Started',
  '\t- #+BEGIN_QUERY',
  '\t  {:title "All tasks" :query [:find (pull ?b [*])]}',
  '\t  #+END_QUERY',
  '\t- #+BEGIN_NOTE',
  '\t  A note in a box.',
  '\t  #+END_NOTE',
  '',
].join('\n');

describe('Logseq outlines: heading blocks, properties, macros and references', () => {
  it('heading blocks at any depth bound chunks and enter header paths, as written without `- ` and #s', async () => {
    const chunks = await chunkText(PAGE, { min_chunk_chars: 0 }, 510, 'pages/Outline.md');
    const paths = chunks.map((c) => c.headerPath.join(' > '));
    // A heading block's scope runs on over its following siblings, as a Markdown heading's does: "A plain block" is under "How to…".
    assert.deepEqual(paths, ['Intro', 'Usage', 'Usage > How to setup custom keyboard shortcuts?', 'Getting Started']);
    assert.deepEqual(chunks.map((c) => c.anchor), ['intro', 'usage', 'how-to-setup-custom-keyboard-shortcuts', 'getting-started']);
    assert.match(chunks[2].text, /A plain block$/);
    assert.equal(chunks[0].startLine, 1);
    assert.equal(chunks[2].startLine, 10);
  });

  it('properties are metadata: out of displayText and content, inside the source range, on the note and the block', async () => {
    const chunker = await createChunker({ strategy: 'header_based', min_chunk_chars: 0, max_chunk_chars: 1500, overlap_chars: 0, include_parent_headers: true }, new BasicTokenCounter(510));
    const { chunks, metadata } = chunker.chunk({ path: 'pages/Outline.md', text: PAGE, mtimeMs: 0 });
    assert.equal(metadata.frontmatter.type, '[[Feature]]');
    assert.deepEqual(metadata.tags, ['outline', 'logseq']);
    assert.deepEqual(metadata.aliases, ['Outliner']);
    for (const chunk of chunks) {
      assert.equal(chunk.text, PAGE.slice(chunk.start, chunk.end));
      assert.equal(propertyLineIn(chunk.content), undefined, chunk.content);
    }
    assert.match(chunks[0].text, /^type:: \[\[Feature\]\]/);
    assert.doesNotMatch(chunks[0].displayText, /::/);
    assert.deepEqual(chunks[0].blockIds, ['6565aaaa-1111-4222-8333-944444444444']);
    assert.deepEqual(chunks[2].blockRefs, ['6565aaaa-1111-4222-8333-944444444444']);
    assert.equal(chunks[0].properties?.collapsed, 'true');
    assert.equal(chunks.at(-1)!.properties?.heading, 'true');
  });

  it('references resolve to the block text; macros that are not prose are left out; #+BEGIN code becomes fenced code', async () => {
    const chunks = await chunkText(PAGE, { min_chunk_chars: 0 }, 510, 'pages/Outline.md');
    const shortcuts = chunks[2].displayText;
    assert.match(shortcuts, /See Intro text about outlines\./);
    assert.doesNotMatch(shortcuts, /\(\(|\{\{|query/);
    assert.match(shortcuts, /and Other page and hidden words/);
    const last = chunks.at(-1)!.displayText;
    assert.match(last, /```query\n\t {2}\{:title "All tasks"/);
    assert.doesNotMatch(last, /#\+BEGIN|#\+END/);
    assert.match(last, /A note in a box\./);
  });

  it('a block too big splits at child-block boundaries, never inside a block that fits', async () => {
    const children = Array.from({ length: 6 }, (_, i) => `\t- Child ${i}: ${paragraph(3, i)}`);
    const text = ['- ## Big', ...children, ''].join('\n');
    const chunks = await chunkText(text, { max_chunk_chars: 500, min_chunk_chars: 0 });
    assert.ok(chunks.length > 1);
    for (const chunk of chunks) {
      assert.match(chunk.text, /^(- ## Big\n\t)?- Child \d/);
      assert.match(chunk.text, /\.$/);
      assert.deepEqual(chunk.headerPath, ['Big']);
    }
  });

  it('outline invariants hold on generated outlines (tabs or spaces, headings at any depth, properties, refs, code)', async () => {
    const line = fc.constantFrom('alpha beta gamma.', 'A sentence about search. And another one here.', 'see ((6565aaaa-1111-4222-8333-944444444444))', '{{query (todo now)}}', '[[Link]] #tag', 'x');
    const block = fc.record({
      depth: fc.integer({ min: 0, max: 4 }),
      heading: fc.constantFrom('', '', '', '## ', '### ', 'prop'),
      first: line,
      more: fc.array(line, { maxLength: 3 }),
      props: fc.array(fc.constantFrom('id:: 6565aaaa-1111-4222-8333-944444444444', 'collapsed:: true', 'type:: [[Feature]]'), { maxLength: 2 }),
      code: fc.constantFrom('', '', 'fence', 'query', 'src'),
      // Markdown around the outline: a heading line (Logseq writes a top block's heading without its bullet), blank lines, loose text.
      before: fc.constantFrom('', '', '', '', '## Doc heading', '# Top', 'blank', 'Loose paragraph text.'),
    });
    const outline = fc.tuple(fc.array(block, { minLength: 1, maxLength: 30 }), fc.constantFrom('\t', '  '), fc.boolean(), fc.boolean()).map(([blocks, indent, pageProps, crlf]) => {
      let depth = 0;
      const lines: string[] = pageProps ? ['title:: Generated', 'tags:: a, b', ''] : [];
      for (const b of blocks) {
        if (b.before === 'blank') lines.push('');
        else if (b.before) {
          lines.push(b.before);
          depth = 0;
        }
        depth = Math.min(b.depth, depth + 1);
        const pad = indent.repeat(depth);
        const cont = `${pad}  `;
        lines.push(`${pad}- ${b.heading === 'prop' ? '' : b.heading}${b.first}`);
        if (b.heading === 'prop') lines.push(`${cont}heading:: true`);
        lines.push(...b.props.map((p) => cont + p));
        lines.push(...b.more.map((m) => cont + m));
        if (b.code === 'fence') lines.push(`${cont}\`\`\`js`, `${cont}- not a block:: no`, `${cont}\`\`\``);
        if (b.code === 'query') lines.push(`${cont}#+BEGIN_QUERY`, `${cont}{:title "q"}`, `${cont}#+END_QUERY`);
        if (b.code === 'src') lines.push(`${cont}#+BEGIN_SRC clojure`, `${cont}(+ 1 2)`, `${cont}#+END_SRC`);
      }
      return `${lines.join(crlf ? '\r\n' : '\n')}\n`;
    });
    const config = fc.record({ min: fc.integer({ min: 0, max: 300 }), max: fc.integer({ min: 80, max: 1500 }), window: fc.integer({ min: 32, max: 510 }), strategy: fc.constantFrom<'header_based' | 'none'>('header_based', 'header_based', 'none') });
    await fc.assert(
      fc.asyncProperty(outline, config, async (text, { min, max, window, strategy }) => {
        const chunking: ChunkingConfig = { strategy, min_chunk_chars: Math.min(min, max), max_chunk_chars: max, overlap_chars: 40, include_parent_headers: true };
        const tokens = new BasicTokenCounter(window);
        const chunker = await createChunker(chunking, tokens);
        const { chunks } = chunker.chunk({ path: 'pages/gen.md', text, mtimeMs: 0 });
        assert.deepEqual(chunkInvariantViolations(text, chunks, chunking, tokens), []);
        if (strategy === 'header_based') assert.deepEqual(outlineInvariantViolations(text, chunks).problems, []);
        for (const chunk of chunks) assert.doesNotMatch(chunk.displayText, /\(\([0-9a-f-]{36}\)\)/);
      }),
      { numRuns: 200 },
    );
  });
});

describe('outline parsing', () => {
  it('nests blocks by indentation (tabs or spaces), keeps bullets in code out, reads block properties', () => {
    const text = '- a\n  id:: 6565aaaa-1111-4222-8333-944444444444\n  - b\n    ```\n    - not a block\n    ```\n- c\n';
    const outline = parseOutline(text);
    assert.deepEqual(outline.blocks.map((b) => [b.depth, b.parent]), [[0, -1], [1, 0], [0, -1]]);
    assert.equal(outline.blocks[0].properties.id, '6565aaaa-1111-4222-8333-944444444444');
    assert.deepEqual(outline.propertyLines.map((p) => p.key), ['id']);
    assert.equal(outline.codeRanges.length, 1);
  });
});

describe('block references', () => {
  const text = '- First block\n  id:: 6565AAAA-1111-4222-8333-944444444444\n  - child\n- Second refers to ((6565aaaa-1111-4222-8333-944444444444))\n  id:: 6565bbbb-1111-4222-8333-944444444444\n';
  it('collects id → own text without properties or children, uuids lower-cased', () => {
    assert.deepEqual(collectBlockTexts(text), {
      '6565aaaa-1111-4222-8333-944444444444': 'First block',
      '6565bbbb-1111-4222-8333-944444444444': 'Second refers to ((6565aaaa-1111-4222-8333-944444444444))',
    });
  });
  it('resolves ((uuid)), {{embed ((uuid))}} and [label](((uuid))), nested ones too; marks missing ones; leaves inline code', () => {
    const lookup = lookupIn(collectBlockTexts(text));
    assert.equal(resolveBlockRefs('see ((6565bbbb-1111-4222-8333-944444444444))', lookup), 'see Second refers to First block');
    assert.equal(resolveBlockRefs('{{embed ((6565aaaa-1111-4222-8333-944444444444))}}', lookup), 'First block');
    assert.equal(resolveBlockRefs('[here](((6565aaaa-1111-4222-8333-944444444444)))', lookup), 'here');
    assert.equal(resolveBlockRefs('((00000000-1111-4222-8333-944444444444))', lookup), MISSING_BLOCK);
    assert.equal(resolveBlockRefs('`((00000000-1111-4222-8333-944444444444))`', lookup), '`((00000000-1111-4222-8333-944444444444))`');
    assert.deepEqual(blockRefsIn(text), ['6565aaaa-1111-4222-8333-944444444444']);
  });
  it('a reference cycle ends as missing, never loops', () => {
    const lookup = lookupIn({ 'aaaaaaaa-1111-4222-8333-944444444444': 'A ((bbbbbbbb-1111-4222-8333-944444444444))', 'bbbbbbbb-1111-4222-8333-944444444444': 'B ((aaaaaaaa-1111-4222-8333-944444444444))' });
    assert.equal(resolveBlockRefs('((aaaaaaaa-1111-4222-8333-944444444444))', lookup), `A B ${MISSING_BLOCK}`);
  });
});

describe('page names and journal dates', () => {
  it('decodes namespaces and percent-escapes in file names', () => {
    assert.equal(pageNameFromPath('pages/Whiteboard___Object___iFrame.md'), 'Whiteboard/Object/iFrame');
    assert.equal(pageNameFromPath('pages/a%2Fb.md'), 'a/b');
    assert.equal(pageNameFromPath('pages/New to Logseq%3F.md'), 'New to Logseq?');
    assert.equal(pageNameFromPath('notes/100% done.md'), '100% done');
  });
  it('journal file names give an ISO day; other files and impossible days none', () => {
    assert.equal(journalDateFromPath('journals/2024_01_15.md'), '2024-01-15');
    assert.equal(journalDateFromPath('journals/2024-01-15.md', 'yyyy-MM-dd'), '2024-01-15');
    assert.equal(journalDateFromPath('journals/2024_02_30.md'), undefined);
    assert.equal(journalDateFromPath('pages/2024_01_15.md'), undefined);
    assert.equal(journalTitle('2024-01-01'), 'Jan 1st, 2024');
    assert.equal(journalTitle('2024-03-12'), 'Mar 12th, 2024');
  });
  it('note metadata: title:: wins, else the decoded name; journals get date and Logseq title', () => {
    const meta = (p: string, text: string) => noteMetadata(p, parseFrontmatter(text), text);
    assert.equal(meta('pages/a___b.md', '- x\n').title, 'a/b');
    assert.equal(meta('pages/a___b.md', 'title:: Custom\n\n- x\n').title, 'Custom');
    const journal = meta('journals/2024_01_15.md', '- did things\n');
    assert.equal(journal.date, '2024-01-15');
    assert.equal(journal.title, 'Jan 15th, 2024');
  });
});

const GRAPH = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpora', 'logseq-docs');
describe('the real Logseq graph (../shared/corpora/logseq-docs)', () => {
  const skip = existsSync(GRAPH) ? false : `${GRAPH} not present`;
  it('tutorial page: heading blocks become header paths, properties never reach content', { skip }, async () => {
    const file = path.join(GRAPH, 'pages', 'tutorial.md');
    const chunks = await chunkText(await readFile(file, 'utf8'), {}, 510, 'pages/tutorial.md');
    assert.deepEqual(chunks.map((c) => c.headerPath[0]).filter((h, i, a) => a.indexOf(h) === i), ['Hi, welcome to Logseq!', 'Getting Started', 'Need more?']);
    for (const chunk of chunks) assert.equal(propertyLineIn(chunk.content), undefined);
  });

  it('displayText is line for line with text: as many lines, and every line without a property, macro, reference or #+BEGIN marker equal', async () => {
    const word = fc.constantFrom('alpha', 'beta', 'search', '[[Link]]', '#tag', '`code`', 'x');
    const special = fc.constantFrom(
      'id:: 6565aaaa-1111-4222-8333-944444444444',
      'collapsed:: true',
      'type:: [[Feature]]',
      'see ((6565aaaa-1111-4222-8333-944444444444)) here',
      'see ((6565cccc-1111-4222-8333-944444444444)) missing',
      '{{query (todo now)}} and {{embed [[Page]]}} and {{cloze hidden}}',
      '{{embed ((6565aaaa-1111-4222-8333-944444444444))}}',
      '#+BEGIN_SRC js',
      '#+END_SRC',
      '#+BEGIN_NOTE',
      '#+END_NOTE',
      '```',
      '## Heading',
      '',
    );
    const line = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean(), fc.oneof(fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' ')), special));
    const note = fc.tuple(fc.array(line, { minLength: 1, maxLength: 40 }), fc.constantFrom('\t', '  '), fc.boolean()).map(([lines, indent, crlf]) =>
      lines.map(([depth, bullet, body]) => (body === '' ? '' : `${indent.repeat(depth)}${bullet ? '- ' : '  '}${body}`)).join(crlf ? '\r\n' : '\n'),
    );
    const blockTexts = { '6565aaaa-1111-4222-8333-944444444444': 'The referenced block, on one line' };
    await fc.assert(
      fc.asyncProperty(note, fc.integer({ min: 0, max: 400 }), async (text, min) => {
        const chunker = await createChunker({ strategy: 'header_based', min_chunk_chars: min, max_chunk_chars: 600, overlap_chars: 40, include_parent_headers: true }, new BasicTokenCounter(128));
        for (const chunk of chunker.chunk({ path: 'pages/gen.md', text, mtimeMs: 0, blockTexts }).chunks) {
          const shown = chunk.displayText.split('\n');
          const source = chunk.text.split('\n');
          assert.equal(shown.length, source.length, JSON.stringify(chunk.text));
          source.forEach((sourceLine, i) => {
            if (!/::|\(\(|\{\{|#\+(BEGIN|END)_/i.test(sourceLine)) assert.equal(shown[i], sourceLine, `line ${i} of ${JSON.stringify(chunk.text)}`);
          });
        }
      }),
      { numRuns: 300 },
    );
  });

});
