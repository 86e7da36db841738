import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { answerUnits, lineCounter, openFencesOf } from '../core/search/answerUnits.js';
import { answerQuestion, NOT_ANSWERED, type Answer, type AnswerVault } from '../core/answer/index.js';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig, type CairnConfig } from '../core/config/schema.js';
import { isRelevant, readQuestions } from '../core/search/evaluation.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = path.resolve(REPO, '../shared');
const TASKS_VAULT = path.join(SHARED, 'corpora/obsidian-tasks-docs/docs');
const TASKS_QUESTIONS = path.join(SHARED, 'eval/tasks-dev.jsonl');
/** Measured 0.70 (35 of 50; 0.62 before answers took the top-ranked relevant-looking section) with the bundled model; the floor leaves room for retrieval changes. */
const TASKS_FLOOR = 0.5;

const FILLER = [
  'The train from the coast to the mountains leaves at dawn; book a window seat to see the valleys and lakes.',
  'Practice scales slowly with a metronome before playing the piece at full tempo on the piano.',
  'Bake the bread at a high temperature for forty minutes, then let it rest on a rack before slicing it.',
  'The library opens late on Thursdays, and overdue books cost a small fine per day.',
];

async function makeVault(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'home'), { recursive: true });
  await writeFile(
    path.join(dir, 'home', 'Houseplants.md'),
    [
      '# Houseplants',
      '',
      '## Watering',
      '',
      'The fern likes damp soil and gets water twice a week.',
      'The cactus needs water only once a month in winter, when it rests.',
      '',
      '```sh',
      '# the cactus needs water once a month in winter',
      'water --all',
      '```',
      '',
      '## Light',
      '',
      '- The fern prefers indirect light near a north window.',
      '- The cactus wants full sun on the south sill.',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(dir, 'Travel.md'),
    `# Travel\n\n${FILLER[0]}\n\n## Packing\n\nPack a rain jacket and walking boots for the mountain trails.\n`,
  );
  await writeFile(path.join(dir, 'Music.md'), `# Music\n\n${FILLER[1]}\n`);
  await writeFile(path.join(dir, 'Cooking.md'), `# Cooking\n\n${FILLER[2]}\n\n| dish | oven |\n| --- | --- |\n| bread | 220 °C |\n| pie | 180 °C |\n`);
  // One long section: with max_chunk_chars 400 it is force-split, and its key fact sits in a later piece.
  const days = FILLER.map((f, i) => `Entry ${i + 1}. ${f} ${f}`);
  await writeFile(
    path.join(dir, 'Expedition.md'),
    `# Expedition\n\n## Log\n\n${days.join('\n\n')}\n\nThe glacier camp stood at an altitude of 4200 metres, above the last pine trees.\n`,
  );
}

function configFor(vault: string, dataDir: string, overrides: (c: CairnConfig) => void = () => {}): CairnConfig {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  config.chunking.max_chunk_chars = 400;
  config.chunking.min_chunk_chars = 50;
  overrides(config);
  return config;
}

/** Every citation and quote names lines of the note file that hold the quoted text; markers map to citations. */
async function assertCitationsReal(vaultDir: string, answer: Answer): Promise<void> {
  const markers = [...answer.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  assert.deepEqual([...new Set(markers)].sort(), answer.citations.map((c) => c.n).sort(), `markers ${markers} ≠ citations`);
  for (const citation of answer.citations) {
    const lines = (await readFile(path.join(vaultDir, citation.path), 'utf8')).split('\n');
    assert.ok(citation.startLine >= 1 && citation.endLine <= lines.length && citation.startLine <= citation.endLine, `${citation.path} has no lines ${citation.startLine}-${citation.endLine}`);
    const cited = lines.slice(citation.startLine - 1, citation.endLine).join('\n');
    for (const quote of citation.quotes ?? []) {
      assert.ok(cited.includes(quote.text), `${citation.path}:${citation.startLine}-${citation.endLine} does not contain "${quote.text}"`);
      assert.ok(lines.slice(quote.startLine - 1, quote.endLine).join('\n').includes(quote.text), `quote lines ${quote.startLine}-${quote.endLine} wrong`);
      assert.ok(!/^\s*#/.test(quote.text) && !quote.text.includes('```'), `a heading or code was quoted: ${quote.text}`);
    }
  }
}

describe('answer units', () => {
  it('keep list items and table rows whole (rows read as "header: cell"), skip headings, code and front matter, with exact offsets', () => {
    const text = '---\ntitle: x\n---\n# Title\n\nOne sentence wraps\nhere. Two is next.\n\n- item one\n  goes on\n- [ ] a task\n\n```\ncode. more code.\n```\n\n| a | b |\n| - | - |\n| 1 | two words |\n\nSetext\n---\n> Quoted line here.';
    const units = answerUnits(text, true);
    assert.deepEqual(
      units.map((u) => [u.kind, u.plain]),
      [
        ['sentence', 'One sentence wraps here.'],
        ['sentence', 'Two is next.'],
        ['item', 'item one goes on'],
        ['item', 'a task'],
        ['row', 'a: 1; b: two words'],
        ['sentence', 'Quoted line here.'],
      ],
    );
    for (const unit of units) assert.equal(text.slice(unit.start, unit.end), unit.raw);
    // Lines counted as the offsets come in reading order, and again from the start for an earlier offset.
    const lines = (offset: number) => text.slice(0, offset).split('\n').length - 1;
    const lineOf = lineCounter(text);
    for (const unit of units) assert.equal(lineOf(unit.start), lines(unit.start));
    assert.equal(lineOf(units[1].start), lines(units[1].start));
    assert.equal(lineOf(text.length + 5), lines(text.length));
  });

  it('a passage that begins inside a fenced block skips it to its closing fence; the fence open at each piece follows the pieces before', () => {
    const pieces = [
      { text: '## Options\n\nThe flags:\n\n~~~\n  --a  first flag', startLine: 10 },
      { text: '  --b  second flag\n  --c  third flag', startLine: 16 },
      { text: '  --d  fourth flag\n~~~\n\nEvery flag is optional.', startLine: 19 },
      { text: 'A closing word.', startLine: 24 },
    ];
    assert.deepEqual(openFencesOf(pieces), [undefined, '~~~', '~~~', undefined]);
    assert.deepEqual(openFencesOf(pieces.slice(1), '~~~'), ['~~~', '~~~', undefined]);
    assert.deepEqual(answerUnits(pieces[2]!.text, false, '~~~').map((u) => u.plain), ['Every flag is optional.']);
    // Without it, the piece's code line reads as prose.
    assert.ok(answerUnits(pieces[2]!.text).some((u) => u.plain.includes('--d fourth flag')));
  });

  it('a continuation of a question left out is left out too, and one that turns a sentence into a question takes it along', () => {
    // Each of these once left an undefined unit behind (the join of two segments was taken to be a statement).
    const units = answerUnits('The sky is blue. Is it? maybe not? The grass is green. It grows. or does it?');
    assert.ok(units.every((u) => u !== undefined));
    assert.deepEqual(units.map((u) => u.plain), ['The sky is blue.', 'The grass is green.']);
  });

  it('skip every line of an indented code block, across blank lines, and quote the paragraph after it', () => {
    // As the Obsidian Tasks docs write examples: a fenced block indented four spaces is an indented code block.
    const text = 'Sort by due date:\n\n    ```tasks\n    not done\n    # a comment line\n\n    sort by due\n    ```\n\nThe oldest comes first.';
    assert.deepEqual(
      answerUnits(text).map((u) => u.plain),
      ['Sort by due date:', 'The oldest comes first.'],
    );
  });
});

describe('extractive answers on a generated vault', { timeout: 60_000 }, () => {
  let root: string;
  let vaultDir: string;
  let vault: CairnVault;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-answer-'));
    vaultDir = path.join(root, 'vault');
    await makeVault(vaultDir);
    vault = await CairnVault.open(configFor(vaultDir, path.join(root, 'data')));
    await vault.index();
  });
  after(async () => {
    await vault?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('answers from the right note, with markers that map to its sources', async () => {
    const answer = await answerQuestion(vault, 'How often does the cactus need water in winter?');
    assert.equal(answer.mode, 'extractive');
    assert.equal(answer.confident, true);
    assert.match(answer.answer, /once a month in winter/);
    assert.match(answer.answer, /\[1\]/);
    const cited = answer.citations.find((c) => c.quotes?.some((q) => q.text.includes('once a month')));
    assert.ok(cited, 'the sentence is cited');
    assert.equal(cited.path, 'home/Houseplants.md');
    assert.deepEqual(cited.headerPath, ['Houseplants', 'Watering']);
    assert.equal(cited.startLine, 6, 'the citation names the sentence\'s own line');
    assert.ok(answer.sources.some((s) => s.path === 'home/Houseplants.md'));
    await assertCitationsReal(vaultDir, answer);
  });

  it('filters in a question narrow where the answer may come from, and are no words to answer', async () => {
    const inHome = await answerQuestion(vault, 'path:home/ How often does the cactus need water in winter?');
    assert.equal(inHome.confident, true);
    assert.match(inHome.answer, /once a month in winter/);
    assert.ok(inHome.sources.every((s) => s.path.startsWith('home/')));
    const elsewhere = await answerQuestion(vault, 'How often does the cactus need water in winter? path:Travel');
    assert.ok(elsewhere.sources.every((s) => s.path.startsWith('Travel')));
    assert.doesNotMatch(elsewhere.answer, /once a month/);
  });

  it('quotes a list item whole and never a heading or code', async () => {
    const answer = await answerQuestion(vault, 'Where does the fern get its light?');
    assert.equal(answer.confident, true);
    assert.match(answer.answer, /indirect light near a north window/);
    // "Light" is merged into the longer "Watering" chunk (min_chunk_chars); the quote is still cited under its own heading.
    const cited = answer.citations.find((c) => c.quotes?.some((q) => q.text.includes('north window')));
    assert.deepEqual(cited?.headerPath, ['Houseplants', 'Light']);
    await assertCitationsReal(vaultDir, answer);
  });

  it('finds the answer in a sibling piece of a force-split section', async () => {
    const answer = await answerQuestion(vault, 'What altitude was the glacier camp at?');
    assert.equal(answer.confident, true);
    assert.match(answer.answer, /4200 metres/);
    const cited = answer.citations.find((c) => c.quotes?.some((q) => q.text.includes('4200')))!;
    assert.equal(cited.path, 'Expedition.md');
    assert.match(cited.chunkId, /_sub_\d+@/, 'the section was split');
    assert.ok(((await vault.sectionChunks(cited.chunkId)) ?? []).length > 1);
    await assertCitationsReal(vaultDir, answer);
  });

  it('says plainly when the notes do not answer, and lists the closest passages', async () => {
    const answer = await answerQuestion(vault, 'Who won the football world cup final in 1998?');
    assert.equal(answer.confident, false);
    assert.ok(answer.answer.startsWith(`${NOT_ANSWERED} The closest passages:`), answer.answer);
    assert.ok(answer.citations.length >= 1 && answer.citations.length <= 3);
    for (const c of answer.citations) assert.match(answer.answer, new RegExp(`\\[${c.n}\\] .*\\(lines ${c.startLine}-${c.endLine}\\)`));
    await assertCitationsReal(vaultDir, answer);
  });

  it('a question nothing matches answers so, citing nothing', async () => {
    // A vault whose search finds nothing (an empty vault): a double saves opening a second embedding model.
    const nothing: AnswerVault = {
      config: vault.config,
      search: async (request) => ({ query: request.query, text: request.query, filters: {}, operators: [], mode: 'hybrid', results: [], expansions: [], highlightTerms: [], tookMs: 0, offset: 0, total: 0, more: false }),
      sectionChunks: async () => undefined,
      embed: (texts) => vault.embed(texts),
    };
    const answer = await answerQuestion(nothing, 'anything at all?');
    assert.equal(answer.confident, false);
    assert.deepEqual(answer.citations, []);
    assert.equal(answer.answer, `${NOT_ANSWERED} No passage of your notes matches it.`);
  });
});

describe('extractive answers on the Obsidian Tasks docs', { timeout: 120_000 }, () => {
  it('cite a relevant section for most questions, always at real lines of real notes', async (t) => {
    if (!existsSync(TASKS_VAULT) || !existsSync(TASKS_QUESTIONS)) {
      t.skip(`the shared corpus is not here (${SHARED}): only the project machine has it`);
      return;
    }
    const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-answer-tasks-'));
    const vault = await CairnVault.open(configFor(TASKS_VAULT, path.join(root, 'data'), (c) => {
      c.chunking.max_chunk_chars = 2000;
      c.chunking.min_chunk_chars = 200;
    }));
    try {
      await vault.index();
      const questions = await readQuestions(TASKS_QUESTIONS);
      let answered = 0;
      for (const question of questions) {
        const answer = await answerQuestion(vault, question.q);
        if (answer.citations.some((c) => isRelevant(c, question))) answered++;
        await assertCitationsReal(TASKS_VAULT, answer);
      }
      const share = answered / questions.length;
      t.diagnostic(`cited a relevant section for ${answered} of ${questions.length} questions (${share.toFixed(2)})`);
      assert.ok(share >= TASKS_FLOOR, `share ${share.toFixed(2)} below ${TASKS_FLOOR}`);
    } finally {
      await vault.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
