// The offline training of the retrieval embedding table (scripts/models): data readers, the InfoNCE gradient, and
// that training on consistent pairs actually makes a query find its passage, deterministically.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../core/random/seededRandom.js';
import { encode, infoNce, pairMrr, train, type EmbeddingTable, type TokenPair } from '../core/adapt/contrastiveTrainer.js';
import { docPagePairs, docProse, restToMarkdown, headingSectionPairs, inverseClozePairs, parseWordnetLine, tldrPagePairs } from '../scripts/models/training-pairs.js';

test('a WordNet data line gives its lemmas, definition and example sentences; licence header lines give nothing', () => {
  const line =
    '00001740 29 v 04 breathe 0 take_a_breath 0 respire 0 suspire 3 021 * 00005041 v 0000 02 + 02 00 | draw air into, and expel out of, the lungs; "I can breathe better when the air is clean"; "The patient is respiring"  ';
  assert.deepEqual(parseWordnetLine(line), {
    lemmas: ['breathe', 'take a breath', 'respire', 'suspire'],
    definition: 'draw air into, and expel out of, the lungs',
    examples: ['I can breathe better when the air is clean', 'The patient is respiring'],
  });
  assert.equal(parseWordnetLine('  1 This software and database is being provided to you'), null);
  assert.deepEqual(parseWordnetLine('00013162 00 a 01 able(p) 0 000 | having the necessary means')?.lemmas, ['able']);
});

test('a tldr page gives one pair per described command, without Markdown markers', () => {
  const page = '# tar\n\n> Archiving utility.\n> More information: <https://example.org>.\n\n- [c]reate an archive from {{files}}:\n\n`tar cf {{target.tar}} {{file1}}`\n';
  assert.deepEqual(tldrPagePairs(page), [{ query: 'create an archive from files', passage: 'tar: Archiving utility. tar cf target.tar file1', source: 'tldr' }]);
  const many = tldrPagePairs(`# ls\n\n> List files.\n\n${['List all files', 'List with sizes', 'List by date'].map((d) => `- ${d}:\n\n\`ls\`\n`).join('\n')}`);
  assert.deepEqual(many.map((p) => p.query), ['list all files', 'How do I list with sizes?', 'How can I list by date?']);
});

test('heading -> section pairs leave code blocks out and skip near-empty sections', () => {
  const md = '# Title\n\nok\n\n## Installing the tool\n\nRun the installer and then restart the shell.\n```\n# not a heading\n```\n';
  assert.deepEqual(headingSectionPairs(md, 'book'), [{ query: 'Installing the tool', passage: 'Run the installer and then restart the shell.', source: 'book' }]);
});

test('inverse cloze pairs take the middle sentence of a prose paragraph as the query and the rest as the passage', () => {
  const md = '## Heading. Not. Prose.\n\nOne is first. Two is the middle. Three ends it.\n\n```\nA. B. C. D.\n```\n\n- A list. Item two. Item three.\n';
  assert.deepEqual(inverseClozePairs(md, 'book'), [{ query: 'Two is the middle.', passage: 'One is first. Three ends it.', source: 'book' }]);
});

test('the InfoNCE gradient matches finite differences', () => {
  const n = 3;
  const dims = 4;
  const random = seededRandom(5);
  const unit = () => {
    const v = Float32Array.from({ length: n * dims }, () => random() - 0.5);
    return v;
  };
  const Q = unit();
  const P = unit();
  const { gQ, gP } = infoNce(Q, P, n, dims, 0.5);
  const h = 1e-3;
  for (const [M, G] of [[Q, gQ], [P, gP]] as const) {
    for (let i = 0; i < M.length; i++) {
      const keep = M[i];
      M[i] = keep + h;
      const up = infoNce(Q, P, n, dims, 0.5).loss;
      M[i] = keep - h;
      const down = infoNce(Q, P, n, dims, 0.5).loss;
      M[i] = keep;
      assert.ok(Math.abs((up - down) / (2 * h) - G[i]) < 1e-3, `component ${i}: numeric ${(up - down) / (2 * h)} vs ${G[i]}`);
    }
  }
});

// 40 "questions" (tokens 2..41) each answered by a "passage" with different words (tokens 42..81): only training
// can bring a question's words next to its passage's words. Tokens 0 and 1 are frozen (special) rows.
function synthetic(seed: number) {
  const dims = 16;
  const words = 82;
  const random = seededRandom(seed);
  const rows = Float32Array.from({ length: words * dims }, () => random() - 0.5);
  rows.fill(0, 0, 2 * dims);
  const table: EmbeddingTable = { rows, dims, frozen: new Set([0, 1]) };
  const pairs: TokenPair[] = Array.from({ length: 40 }, (_, i) => ({ q: Int32Array.of(2 + i, 1), p: Int32Array.of(42 + i, 42 + ((i + 1) % 40), 0) }));
  return { table, pairs };
}

test('training on consistent pairs makes each query find its passage, keeps frozen rows zero, and is deterministic', () => {
  const a = synthetic(3);
  const before = pairMrr(a.table, a.pairs);
  const options = { temperature: 0.05, batchSize: 20, epochs: 40, learningRate: 0.02, seed: 9, anchor: 0 };
  const losses: number[] = [];
  train(a.table, a.pairs, { ...options, onEpoch: (_, loss) => losses.push(loss) });
  const after = pairMrr(a.table, a.pairs);
  assert.ok(before < 0.5, `random start should not already retrieve (MRR ${before})`);
  assert.ok(after > 0.95, `trained MRR ${after}`);
  assert.ok(losses.at(-1)! < losses[0] / 4, `loss ${losses[0]} -> ${losses.at(-1)}`);
  assert.ok(a.table.rows.subarray(0, 2 * a.table.dims).every((x) => x === 0), 'frozen rows moved');
  const b = synthetic(3);
  train(b.table, b.pairs, options);
  assert.deepEqual(b.table.rows, a.table.rows);
  const out = new Float32Array(a.table.dims);
  encode(a.table, [Int32Array.of(1, 0)], out);
  assert.ok(out.every((x) => x === 0), 'a text of only frozen tokens encodes to zero, not NaN');
});

test('a documentation page gives heading, question and description pairs of its prose, with generic headings qualified', () => {
  const page = [
    '---',
    'title: "Deploying"',
    'description: Publish the site to a static host.',
    '---',
    '',
    'This page explains how the built site is copied to a host of your choice.',
    '',
    '## Uploading with rsync',
    '',
    'Copy the output folder to the server with [rsync](https://rsync.samba.org) over **SSH** keys.',
    '',
    '```sh',
    '# not a heading: rsync -av public/ host:/var/www',
    '```',
    '',
    '### Examples',
    '',
    'A nightly job can run the same upload from a scheduler on the build machine.',
    '',
    '## Why is my page missing after a deploy?',
    '',
    'Pages marked as drafts are left out of the build unless drafts are enabled.',
    '',
    '## Empty',
    '',
    'Too short.',
  ].join('\n');
  const pairs = docPagePairs(page, 'set');
  const bySource = (source: string) => pairs.filter((p) => p.source === source).map(({ query, passage }) => ({ query, passage }));
  assert.deepEqual(bySource('set-headings'), [
    { query: 'Uploading with rsync', passage: 'Copy the output folder to the server with rsync over SSH keys.' },
    { query: 'Uploading with rsync: Examples', passage: 'A nightly job can run the same upload from a scheduler on the build machine.' },
  ]);
  assert.deepEqual(bySource('set-questions'), [{ query: 'Why is my page missing after a deploy?', passage: 'Pages marked as drafts are left out of the build unless drafts are enabled.' }]);
  assert.deepEqual(bySource('set-descriptions'), [
    { query: 'Publish the site to a static host.', passage: 'This page explains how the built site is copied to a host of your choice.' },
    { query: 'Deploying', passage: 'Publish the site to a static host. This page explains how the built site is copied to a host of your choice.' },
  ]);
  assert.ok(pairs.every((p) => !p.passage.includes('#') && !p.passage.includes('rsync -av')), 'code and markers stay out of passages');
});

test('documentation prose drops template tags, HTML, link targets and admonition markers but keeps their words', () => {
  assert.equal(docProse('{{< note >}}See the [guide](../guide.md) and <kbd>Ctrl</kbd>.{{< /note >}}\n!!! tip\n> [!NOTE]\n> Quoted `code`.'), 'See the guide and Ctrl . Quoted code .');
});

test('reStructuredText pages read as Markdown: titles, API directives and prose kept, literal blocks and other directives left out', () => {
  const rst = [
    '=========',
    'Paths FAQ',
    '=========',
    '',
    '.. contents::',
    '',
    'How do I list a folder?',
    '-----------------------',
    '',
    'Call :meth:`Path.iterdir` on the folder, see :ref:`the listing guide <listing>`::',
    '',
    '   >>> list(Path(".").iterdir())',
    '',
    '.. method:: Path.glob(pattern)',
    '   :noindex:',
    '',
    '   Glob the given relative *pattern* in this folder.',
    '',
    '.. note::',
    '   Hidden files are ``included``.',
    '',
    '.. code-block:: python',
    '',
    '   secret = "left out"',
  ].join('\n');
  const md = restToMarkdown(rst);
  assert.match(md, /^# Paths FAQ$/m);
  assert.match(md, /^## How do I list a folder\?$/m);
  assert.match(md, /^### Path\.glob\(pattern\)$/m);
  assert.match(md, /Call Path\.iterdir on the folder, see the listing guide:/);
  assert.match(md, /Glob the given relative pattern in this folder\./);
  assert.match(md, /Hidden files are included\./);
  assert.doesNotMatch(md, /iterdir\(\)\)|left out|noindex|contents/);
  const pairs = docPagePairs(md, 'py');
  assert.deepEqual(pairs.find((p) => p.source === 'py-questions')?.query, 'How do I list a folder?');
});
