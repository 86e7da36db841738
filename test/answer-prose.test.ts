import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { containsHint } from '../core/answer/answerEvaluation.js';
import { renderInline } from '../core/contract/inlineText.js';
import { answerUnits } from '../core/search/answerUnits.js';
import { answerQuestion, sourceLabel } from '../core/answer/index.js';
import type { CairnVault } from '../core/app/index.js';
import { indexedNotesVault } from './support/notesVault.js';

/** Literal Markdown a reader should never see in an answer's text. */
const MARKDOWN_MARKERS = [/\*\*/, /`/, /^\s*#/m, /\[ \]/, /\[\[/, /\]\(/, /^\s*\|/m, /\|\s*$/m, /__\w/];

describe('answer units read as prose', () => {
  it('render inline Markdown to its text', () => {
    assert.equal(renderInline('Use **bold**, *em*, `sort by due` and ~~old~~ ==marked== text.'), 'Use bold, em, sort by due and old marked text.');
    assert.equal(renderInline('See [[Filters#Due date|the due filter]], [[Sorting]], [[Grouping#By path]] and [docs](https://x.org/a_(b)).'), 'See the due filter, Sorting, Grouping > By path and docs.');
    assert.equal(renderInline('Code keeps its markers: `**not bold**` and snake_case_names stay, \\*escaped\\* too.'), 'Code keeps its markers: **not bold** and snake_case_names stay, *escaped* too.');
    assert.equal(renderInline('An image ![a cat](cat.png) and an embed ![[cat.png]] line<br>break {{< new-in 0.1 >}}.'), 'An image a cat and an embed line break .');
    assert.equal(renderInline('A [reference link][ref], ![a chart][c] and<!-- a hidden comment --> text.'), 'A reference link, a chart and text.');
  });

  it('turn table rows into "header: cell" prose and never quote the header row', () => {
    const units = answerUnits('| Option | Effect |\n| --- | --- |\n| `done` | hides **finished** tasks |\n| `short mode` | drops [[Icons\\|icons]] |\n');
    assert.deepEqual(
      units.map((u) => [u.kind, u.plain]),
      [
        ['row', 'Option: done; Effect: hides finished tasks'],
        ['row', 'Option: short mode; Effect: drops icons'],
      ],
    );
  });

  it('quote a table row only when a cell says something in words, not a row of symbols and values', () => {
    const emoji = '| | ico | shortcode | note |\n| - | :-: | - | - |\n| [top](#travel) | :car: | `:car:` | |\n| [top](#travel) | :bike: | `:bike:` | pedal bikes only |\n';
    assert.deepEqual(answerUnits(emoji).map((u) => u.plain), ['top; ico: :bike:; shortcode: :bike:; note: pedal bikes only']);
    const params = '| Name | Type | Default |\n| --- | --- | --- |\n| `weight` | `int` | `0` |\n| `draft` | bool | excluded from the build |\n';
    assert.deepEqual(answerUnits(params).map((u) => u.plain), ['Name: draft; Type: bool; Default: excluded from the build']);
  });

  it('read a table without leading bars the same way, and end it at a line without one', () => {
    const units = answerUnits('Provider | Redirects\n--- | ---\nAzure | See details.\nNetlify | Built in.\nThe server then shows the page.\n');
    assert.deepEqual(units.map((u) => u.plain), ['Provider: Azure; Redirects: See details.', 'Provider: Netlify; Redirects: Built in.', 'The server then shows the page.']);
  });

  it('read rows cut from the middle of a table (no header in the passage) as rows, not as a paragraph', () => {
    const units = answerUnits('Azure|See [details](https://x.org/a).\nNetlify|Built `in` the cloud.\n\n- see [[Filters#Due|due]] and\n- [[Sorting|sort]] too\n');
    assert.deepEqual(
      units.map((u) => [u.kind, u.plain]),
      [
        ['row', 'Azure; See details.'],
        ['row', 'Netlify; Built in the cloud.'],
        ['item', 'see due and'],
        ['item', 'sort too'],
      ],
    );
  });

  it('decode HTML character references, drop a bold marker left unpaired by a sentence break, and end no sentence inside a code span', () => {
    assert.equal(renderInline('Open Start&nbsp;> Settings &amp; Privacy, cell &#124; bar, `&nbsp;` stays.'), 'Open Start > Settings & Privacy, cell | bar, &nbsp; stays.');
    const units = answerUnits('As the table shows, **due dates weigh most on urgency.** Other dates weigh less.\n\nAny page is reachable with the [`.Page.GetPage`][] method. It returns nil when nothing matches.\n');
    assert.deepEqual(units.map((u) => u.plain), ['As the table shows, due dates weigh most on urgency.', 'Other dates weigh less.', 'Any page is reachable with the .Page.GetPage method.', 'It returns nil when nothing matches.']);
  });

  it('render list items and checkboxes without markers, and keep exact raw offsets', () => {
    const text = '- [ ] write the **report** by `Friday`\n* [x] read [the guide](https://example.org)\n';
    const units = answerUnits(text);
    assert.deepEqual(units.map((u) => u.plain), ['write the report by Friday', 'read the guide']);
    for (const unit of units) assert.equal(text.slice(unit.start, unit.end), unit.raw);
  });

  it('never quote a question or a line that is only bold (a heading in disguise)', () => {
    const units = answerUnits('How do I sort tasks by due date? Add a sort line to the query.\n\n**Sorting by date**\n\n- Why would I group tasks?\n- Grouping puts related tasks together.\n');
    assert.deepEqual(units.map((u) => u.plain), ['Add a sort line to the query.', 'Grouping puts related tasks together.']);
  });

  it('skip link definitions and the raw content of Hugo shortcodes, keep Markdown shortcode content', () => {
    const text = [
      'Set the option in the site configuration.',
      '',
      '{{< code-toggle file=hugo >}}',
      '[security]',
      'enableInlineShortcodes = true',
      '{{< /code-toggle >}}',
      '',
      '{{% note %}}',
      'Inline shortcodes are off by default.',
      '{{% /note %}}',
      '',
      '[Content Security Policies]: https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP',
      '',
      '[^csp]: A footnote is prose, and is read without its label.',
    ].join('\n');
    assert.deepEqual(answerUnits(text).map((u) => u.plain), ['Set the option in the site configuration.', 'Inline shortcodes are off by default.', 'A footnote is prose, and is read without its label.']);
  });

  it('render text without markup characters the way the full rules do (their quick path)', () => {
    // Prose with every other punctuation mark, line breaks and tabs; the full rules run on it behind a leading code
    // span (which takes the rule path) and must leave it as the quick path does.
    const prose = fc.string({ unit: fc.constantFrom(...'abcXYZ019 \t\n.,;:?()]>#|^%-+/\'"äé'.split('')), maxLength: 60 });
    fc.assert(
      fc.property(prose, (text) => {
        const quick = renderInline(text);
        assert.equal(quick, text.replace(/\s+/g, ' ').trim());
        assert.equal(renderInline(`\`code\` ${text}`), `code ${quick}`.trim());
      }),
      { numRuns: 500 },
    );
  });

  it('name a source by its headings as the page shows them: no code ticks, emphasis or character references', () => {
    const headerPath = ['collections.After', 'Example of `after` with **`first`**: 2nd&ndash;4th most recent articles'];
    const label = sourceLabel({ title: 'collections.After', path: 'functions/collections/After.md', headerPath }, 39, 41);
    assert.equal(label, 'collections.After § Example of after with first: 2nd\u20134th most recent articles (lines 39-41)');
    // A heading that renders to nothing (only a shortcode) keeps its text rather than vanish from the label.
    assert.equal(sourceLabel({ title: 'Note', path: 'n.md', headerPath: ['{{< gallery >}}'] }, 1, 2), 'Note § {{< gallery >}} (lines 1-2)');
  });

  it('find a Markdown answer_hint in rendered answer text, case-insensitively', () => {
    assert.ok(containsHint('Add IGNORE GLOBAL QUERY instruction to any place of the block. [1]', 'add `ignore global query` instruction'));
    assert.ok(!containsHint('Nothing like it. [1]', 'add `ignore global query` instruction'));
    assert.ok(containsHint('Shorthand is limit groups <number>. [1]', 'Shorthand is `limit groups <number>`'));
  });
});

describe('extractive answers are clean prose on a generated vault', { timeout: 60_000 }, () => {
  let opened: Awaited<ReturnType<typeof indexedNotesVault>>;
  let vault: CairnVault;
  before(async () => {
    opened = await indexedNotesVault('cairn-answer-prose-', {
      'Garden.md': [
        '# Garden',
        '',
        '## Tomato care',
        '',
        'What should I feed my tomato plants?',
        '',
        '- Feed the **tomato plants** with `seaweed` fertiliser every week in summer.',
        '- Pinch out the [[Side shoots|side shoots]] of the tomato plants so the fruit ripens.',
        '',
        '| Plant | Feeding |',
        '| --- | --- |',
        '| tomato plants | seaweed fertiliser weekly in summer |',
        '',
      ].join('\n'),
      'Kitchen.md': '# Kitchen\n\nThe oven needs a clean every month, and the fridge a defrost twice a year.\n',
      // Each sentence holds one of the question's words; only the section as a whole holds the answer.
      'Pottery.md': '# Pottery\n\n## Firing\n\nStoneware needs a long and hot firing.\nSet the kiln to 1240 degrees for the last hour.\nMugs and bowls go on the top shelf.\n',
      'Tools.md': '# Tools\n\n## Bed preparation\n\n- Bring a **spade** for digging the vegetable beds in spring.\n- Bring a `rake` for levelling the vegetable beds after digging.\n',
    });
    vault = opened.vault;
  });
  after(() => opened?.remove());

  it('has no Markdown markers, no quoted question, and a citation on every bullet', async () => {
    const answer = await answerQuestion(vault, 'How should I feed tomato plants in summer?', { mode: 'extractive' });
    assert.equal(answer.confident, true, answer.answer);
    assert.match(answer.answer, /seaweed fertiliser/);
    for (const marker of MARKDOWN_MARKERS) assert.doesNotMatch(answer.answer, marker, `literal Markdown in: ${answer.answer}`);
    assert.doesNotMatch(answer.answer, /\?/, 'a question was quoted');
    for (const line of answer.answer.split('\n')) if (line.startsWith('- ')) assert.match(line, /\[\d+\]$/, `bullet without its [n]: ${line}`);
  });

  it('gives every quoted list item its own [n]', async () => {
    const answer = await answerQuestion(vault, 'Which spade and rake do the vegetable beds need for digging and levelling?', { mode: 'extractive' });
    const bullets = answer.answer.split('\n').filter((line) => line.startsWith('- '));
    assert.equal(bullets.length, 2, answer.answer);
    for (const line of bullets) assert.match(line, /\[\d+\]$/, `bullet without its [n]: ${line}`);
    assert.match(answer.answer, /Bring a spade for digging/);
    for (const marker of MARKDOWN_MARKERS) assert.doesNotMatch(answer.answer, marker, `literal Markdown in: ${answer.answer}`);
  });

  it('answers from a section that holds the answer across its sentences, not only in one', async () => {
    const answer = await answerQuestion(vault, 'What kiln temperature do stoneware mugs need?', { mode: 'extractive' });
    assert.equal(answer.confident, true, answer.answer);
    assert.match(answer.answer, /1240 degrees/);
    assert.deepEqual(answer.citations.map((c) => c.path), ['Pottery.md']);
  });

  it('still says so when no section answers', async () => {
    const answer = await answerQuestion(vault, 'Who won the football world cup final in 1998?', { mode: 'extractive' });
    assert.equal(answer.confident, false, answer.answer);
  });
});
