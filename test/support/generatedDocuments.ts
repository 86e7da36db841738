// Generated Markdown notes and chunking configs for the chunker's property tests.
import fc from 'fast-check';
import type { ChunkingConfig } from '../../core/config/schema.js';

const word = fc.constantFrom('alpha', 'beta', 'cairn', 'note', 'search', 'C++', 'Node.js', 'snake_case', '検索', '向量', '😀', '#tag', '[[Link]]', '[[A|b]]', '`code`', 'x', 'supercalifragilisticexpialidocious'.repeat(3));
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((w) => w.join(' '));
const sentence = words(1, 25).map((s) => `${s}.`);
export const paragraphText = fc.array(sentence, { minLength: 1, maxLength: 30 }).map((s) => s.join(' '));

const block = fc.oneof(
  { weight: 6, arbitrary: paragraphText },
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 1, max: 6 }), words(0, 6)).map(([level, text]) => `${'#'.repeat(level)} ${text}`) },
  { weight: 1, arbitrary: fc.tuple(words(1, 5), fc.constantFrom('===', '---')).map(([text, line]) => `${text}\n${line}`) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom('```', '~~~'), fc.array(fc.oneof(words(0, 12), fc.constant('# not a heading')), { maxLength: 40 }), fc.boolean()).map(
      ([fence, lines, closed]) => `${fence}\n${lines.join('\n')}${closed ? `\n${fence}` : ''}`,
    ),
  },
  { weight: 2, arbitrary: fc.array(words(1, 20), { minLength: 1, maxLength: 40 }).map((items) => items.map((i) => `- ${i}`).join('\n')) },
  { weight: 1, arbitrary: fc.array(words(1, 4), { minLength: 1, maxLength: 30 }).map((rows) => `| a | b |\n|---|---|\n${rows.map((r) => `| ${r} | x |`).join('\n')}`) },
  { weight: 1, arbitrary: words(1, 20).map((t) => `> [!note] Callout\n> # heading in quote\n> ${t}`) },
  { weight: 1, arbitrary: fc.tuple(words(1, 10), words(1, 10)).map(([a, b]) => `$$\n${a}\n\n${b}\n$$`) },
  { weight: 1, arbitrary: fc.array(words(1, 8), { maxLength: 10 }).map((lines) => lines.map((l) => `    ${l}`).join('\n')) },
);

const frontmatter = fc.oneof(
  fc.constant(''),
  fc.constant('---\ntitle: Generated\ntags: [a, b]\n---\n'),
  fc.constant('---\ntitle: [broken\n---\n'),
  fc.constant('title:: Logseq\nalias:: l\n\n'),
);

export const documentText = fc
  .tuple(frontmatter, fc.array(fc.tuple(block, fc.constantFrom('\n\n', '\n', '\n\n\n')), { maxLength: 25 }), fc.boolean())
  .map(([fm, blocks, crlf]) => {
    const text = fm + blocks.map(([b, sep]) => b + sep).join('');
    return crlf ? text.replace(/\n/g, '\r\n') : text;
  });

export const configArb = fc
  .record({
    strategy: fc.constantFrom<'header_based' | 'none'>('header_based', 'header_based', 'none'),
    min: fc.integer({ min: 0, max: 500 }),
    max: fc.integer({ min: 60, max: 3000 }),
    overlap: fc.integer({ min: 0, max: 200 }),
    include_parent_headers: fc.boolean(),
    window: fc.integer({ min: 24, max: 600 }),
  })
  .map(({ strategy, min, max, overlap, include_parent_headers, window }) => ({
    config: { strategy, min_chunk_chars: Math.min(min, max), max_chunk_chars: max, overlap_chars: Math.min(overlap, max - 1), include_parent_headers } satisfies ChunkingConfig,
    window,
  }));
