// Chunking notes built to break it: long lines without punctuation, nesting deeper than tree-sitter can hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkInvariantViolations } from '../core/chunking/chunkInvariants.js';
import { createChunker } from '../core/chunking/createChunker.js';
import { MAX_NESTING, nestingDepth, plainOutline } from '../core/chunking/plainOutline.js';
import { SafeOutliner } from '../core/chunking/safeOutliner.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import { chunkingConfig } from './support/chunking.js';

const deepDashes = (levels: number) => `# N\n\n${'- '.repeat(levels)}deep item\n`;
const deepIndented = (levels: number) => `# N\n\n${Array.from({ length: levels }, (_, i) => `${' '.repeat(2 * i)}- item ${i}`).join('\n')}\n`;

describe('long lines split in linear time', () => {
  it('a 1 MB line without sentence punctuation chunks in seconds (it took 229 s), every non-blank character in a chunk', async () => {
    const line = Array.from({ length: 40_000 }, (_, i) => `word${i % 97} lorem ipsum`).join(' ').slice(0, 1_000_000);
    const text = `# Long\n\n${line}\n`;
    const config = chunkingConfig();
    const tokens = new BasicTokenCounter(510);
    const chunker = await createChunker(config, tokens);
    const started = performance.now();
    const { chunks } = chunker.chunk({ path: 'long.md', text, mtimeMs: 0 });
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 5, `took ${seconds.toFixed(1)} s`);
    assert.ok(chunks.length > 300, `${chunks.length} chunks`);
    assert.deepEqual(chunkInvariantViolations(text, chunks, config, tokens).slice(0, 3), []);
  });

  it('a 256 KB line of one unbroken "word", and one of CJK without spaces, are cut within the limits', async () => {
    const config = chunkingConfig();
    const tokens = new BasicTokenCounter(510);
    const chunker = await createChunker(config, tokens);
    for (const line of ['x'.repeat(256_000), '日本語の文章'.repeat(40_000)]) {
      const text = `# L\n\n${line}\n`;
      const started = performance.now();
      const { chunks } = chunker.chunk({ path: 'l.md', text, mtimeMs: 0 });
      assert.ok(performance.now() - started < 5000);
      assert.deepEqual(chunkInvariantViolations(text, chunks, config, tokens).slice(0, 3), []);
    }
  });
});

describe('nesting deeper than tree-sitter-markdown can hold', () => {
  it('is measured in one pass: deep dashes, deep indentation and deep quotes, while real lists stay shallow', () => {
    assert.equal(nestingDepth(deepDashes(10_000)), 10_000);
    assert.equal(nestingDepth(deepIndented(2000)), 2000);
    assert.equal(nestingDepth(`${'> '.repeat(300)}quote\n`), 300);
    assert.equal(nestingDepth('- a\n  - b\n    - c\n\n    more c\n- d\n1. one\n   2) two\n'), 3);
    assert.equal(nestingDepth('text - not a list\n-not a marker\n'), 0);
  });

  it('is chunked as plain text (headings by line scan) with a warning, and the next note is parsed by tree-sitter', async () => {
    const config = chunkingConfig({ min_chunk_chars: 0 });
    const tokens = new BasicTokenCounter(510);
    const chunker = await createChunker(config, tokens);
    for (const text of [deepDashes(10_000), deepIndented(2000)]) {
      const result = chunker.chunk({ path: 'deep.md', text, mtimeMs: 0 });
      assert.match(result.warning ?? '', new RegExp(`nested \\d+ levels deep \\(more than ${MAX_NESTING}\\): indexed as plain text`));
      assert.equal(result.chunks[0].headerPath[0], 'N');
      assert.deepEqual(chunkInvariantViolations(text, result.chunks, config, tokens).slice(0, 3), []);
    }
    const after = chunker.chunk({ path: 'after.md', text: '# A\n\n- x\n  - y\n\n## B\n\ntext\n', mtimeMs: 0 });
    assert.equal(after.warning, undefined);
    assert.deepEqual(after.chunks.map((c) => c.headerPath.join(' > ')), ['A', 'A > B']);
  });

  it('a parse that faults the WASM parser gives a plain-text outline, and a fresh parser parses the next note', async () => {
    // Without the depth guard, to reach the real fault (tree-sitter-markdown overflows its 1 KB state buffer).
    const outliner = await SafeOutliner.create(Number.POSITIVE_INFINITY);
    let warning: string | undefined;
    for (let attempt = 0; attempt < 5 && !warning; attempt++) warning = outliner.outline(deepDashes(10_000), 0).warning;
    assert.match(warning ?? '', /the Markdown parser failed on it \(.+\): indexed as plain text/);
    assert.ok(outliner.faults > 0);
    const next = outliner.outline('# A\n\ntext\n\n## B\n\n- x\n', 0);
    assert.equal(next.warning, undefined);
    assert.deepEqual(next.outline.headings.map((h) => h.text), ['A', 'B']);
  });

  it('the plain outline keeps fenced code (no headings inside) and splits paragraphs at blank lines', () => {
    const text = '# T\n\npara one\nline two\n\n```\n# not a heading\n```\n\n## U ##\n\nlast\n';
    const outline = plainOutline(text);
    assert.deepEqual(outline.headings.map((h) => [h.level, h.text]), [[1, 'T'], [2, 'U']]);
    assert.deepEqual(outline.blocks.map((b) => [b.type, text.slice(b.start, b.end)]), [
      ['paragraph', 'para one\nline two'],
      ['fenced_code_block', '```\n# not a heading\n```\n'],
      ['paragraph', 'last'],
    ]);
    assert.equal(outline.codeRanges.length, 1);
  });
});
