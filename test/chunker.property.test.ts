import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { chunkInvariantViolations } from '../core/chunking/chunkInvariants.js';
import { createChunker } from '../core/chunking/createChunker.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import type { ChunkingConfig } from '../core/config/schema.js';
import { configArb, documentText, paragraphText } from './support/generatedDocuments.js';

describe('chunker properties over generated documents', () => {
  it('coverage, order, exact text, size and token limits, sibling-only overlap, determinism', async () => {
    await fc.assert(
      fc.asyncProperty(documentText, configArb, async (text, { config, window }) => {
        const tokens = new BasicTokenCounter(window);
        const chunker = await createChunker(config, tokens);
        const first = chunker.chunk({ path: 'gen/doc.md', text, mtimeMs: 1 });
        assert.deepEqual(chunkInvariantViolations(text, first.chunks, config, tokens), []);
        // Same text, later mtime: same chunks and ids.
        const again = chunker.chunk({ path: 'gen/doc.md', text, mtimeMs: 2 });
        assert.deepEqual(again.chunks.map((c) => ({ ...c, mtime: 0 })), first.chunks.map((c) => ({ ...c, mtime: 0 })));
      }),
      { numRuns: 300 },
    );
  });

  it("a note's links and tags do not depend on where it is cut: each is in exactly one chunk", async () => {
    const whole = await createChunker({ strategy: 'none', min_chunk_chars: 0, max_chunk_chars: 2000, overlap_chars: 0, include_parent_headers: false }, new BasicTokenCounter(1_000_000));
    await fc.assert(
      fc.asyncProperty(documentText, configArb, async (text, { config, window }) => {
        const chunker = await createChunker(config, new BasicTokenCounter(window));
        const { chunks } = chunker.chunk({ path: 'gen/doc.md', text, mtimeMs: 1 });
        const one = whole.chunk({ path: 'gen/doc.md', text, mtimeMs: 1 }).chunks;
        assert.ok(one.length <= 1);
        const links = (list: typeof chunks) => list.flatMap((c) => c.links.map((l) => `${l.start}-${l.end} ${l.target}`));
        assert.deepEqual(links(chunks), links(one));
        for (const chunk of chunks) for (const link of chunk.links) assert.ok(link.start >= chunk.start && link.start < chunk.end);
        const tags = (list: typeof chunks) => [...new Set(list.flatMap((c) => c.tags.map((t) => t.toLowerCase())))].sort();
        assert.deepEqual(tags(chunks), tags(one));
      }),
      { numRuns: 200 },
    );
  });

  it('editing one section leaves the ids of the sections before it unchanged', async () => {
    const tokens = new BasicTokenCounter(510);
    const config: ChunkingConfig = { strategy: 'header_based', min_chunk_chars: 0, max_chunk_chars: 2000, overlap_chars: 50, include_parent_headers: true };
    const chunker = await createChunker(config, tokens);
    await fc.assert(
      fc.asyncProperty(fc.array(paragraphText, { minLength: 2, maxLength: 8 }), fc.nat(), paragraphText, async (bodies, pick, replacement) => {
        const doc = (parts: string[]) => parts.map((body, i) => `## Section ${i}\n\n${body}\n`).join('\n');
        const target = pick % bodies.length;
        const before = chunker.chunk({ path: 'd.md', text: doc(bodies), mtimeMs: 0 }).chunks;
        const edited = bodies.map((b, i) => (i === target ? replacement : b));
        const after = chunker.chunk({ path: 'd.md', text: doc(edited), mtimeMs: 0 }).chunks;
        const untouched = (chunks: typeof before) => chunks.filter((c) => Number(/Section (\d+)/.exec(c.headerPath[0])?.[1]) < target).map((c) => c.id);
        assert.deepEqual(untouched(after), untouched(before));
      }),
      { numRuns: 100 },
    );
  });
});
