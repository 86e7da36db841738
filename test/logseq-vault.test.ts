import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { answerQuestion } from '../core/answer/index.js';
import { CairnVault, type IndexEvent } from '../core/app/index.js';
import { shownText } from '../core/chunking/shownText.js';
import { defaultConfig } from '../core/config/schema.js';

const BLOCK = '6565aaaa-1111-4222-8333-944444444444';
const RAW = /[A-Za-z0-9_-]+:: |\(\([0-9a-f-]{36}\)\)|\{\{|#\+BEGIN_/i;

const NOTES: Record<string, string> = {
  'pages/Feature___Search.md': [
    'type:: [[Feature]]',
    'platforms:: desktop, mobile',
    'description:: Searching a graph',
    '',
    '- ## Searching pages',
    '\t- The zorbulent search box finds pages and blocks by their words as you type.',
    `\t  id:: ${BLOCK}`,
    '\t  collapsed:: true',
    '\t- {{query (and [[search]] (task NOW))}}',
    '\t- #+BEGIN_SRC clojure',
    '\t  (search "zorbulent")',
    '\t  #+END_SRC',
    '- ## Shortcuts',
    '\t- Press the slash key to open the search box from anywhere in the graph.',
    '',
  ].join('\n'),
  'pages/Tips.md': [
    '- ## Tips',
    `\t- Remember: ((${BLOCK}))`,
    '\t- See [[Feature/Search]] for the whole story about the quandrix feature.',
    '',
  ].join('\n'),
  'pages/Quote.md': `- As the docs say: ((${BLOCK}))\n`,
  'pages/Whiteboard___Reload.md': 'alias:: Reload\ntype:: [[Tool]]\ndescription:: Reloads the embedded wibblefrost content\n',
  'notes/Plain.md': '# Plain\n\nAn ordinary note of prose, shown as it is written.\n',
  'pages/Only properties.md': 'type:: [[Stub]]\ntags:: stub\n',
  'journals/2024_01_15.md': '- Worked on the glimmerwick migration plan today.\n',
  'journals/2024_03_01.md': '- Finished the glimmerwick migration at last.\n',
  'journals/2024_03_02.md': '-\n',
};

describe('a Logseq graph through the vault: shown text, block references, journal dates, namespaces', { timeout: 180_000 }, () => {
  let root: string;
  let dir: string;
  let vault: CairnVault;
  const open = () => {
    const config = defaultConfig();
    config.vault.path = dir;
    config.index.data_dir = path.join(root, 'data');
    config.search.query_expansion = false;
    return CairnVault.open(config);
  };
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-logseq-'));
    dir = path.join(root, 'vault');
    for (const [note, text] of Object.entries(NOTES)) {
      await mkdir(path.dirname(path.join(dir, note)), { recursive: true });
      await writeFile(path.join(dir, note), text);
    }
    // File times the reverse of the journal days: listing and filters must go by the day.
    const times: Record<string, string> = { 'journals/2024_01_15.md': '2025-06-03', 'journals/2024_03_01.md': '2025-06-02', 'journals/2024_03_02.md': '2025-06-01' };
    for (const [note, day] of Object.entries(times)) await utimes(path.join(dir, note), new Date(day), new Date(day));
    vault = await open();
    await vault.index();
  });
  after(async () => {
    await vault?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('search results, their neighbours and answers show the text, never key:: value, ((uuid)), {{macros}} or #+BEGIN_', async () => {
    for (const query of ['zorbulent search box', 'slash key search box', 'quandrix feature', 'searching a graph desktop']) {
      const { results } = await vault.search({ query, k: 10, neighbours: true });
      assert.ok(results.length > 0, query);
      for (const r of [...results, ...results.flatMap((x) => [x.neighbours?.before, x.neighbours?.after].filter((n) => n !== undefined))]) {
        assert.doesNotMatch(r.text, RAW, `${query}: ${r.path} ${JSON.stringify(r.text)}`);
        assert.equal(r.text.split('\n').length, r.endLine - r.startLine + 1, 'the shown text keeps the cited lines');
      }
    }
    const top = (await vault.search({ query: 'zorbulent search box', k: 1 })).results[0];
    assert.equal(top.path, 'pages/Feature___Search.md');
    assert.equal(top.title, 'Feature/Search');
    const answer = await answerQuestion(vault, 'What does the zorbulent search box find?');
    assert.doesNotMatch(answer.answer, RAW);
    for (const citation of answer.citations) for (const quote of citation.quotes ?? []) assert.doesNotMatch(quote.text, RAW);
    assert.match(answer.answer, /zorbulent/);
  });

  it('a block reference reads the referenced block text, is searchable, and links the two notes both ways', async () => {
    const tips = vault.noteInfo('pages/Tips.md')!;
    assert.match(shownText((await vault.noteTexts('pages/Tips.md'))![0]), /Remember: The zorbulent search box finds pages/);
    assert.ok(tips.outgoing.includes('pages/Feature___Search.md'), 'the reference and the namespaced link point to the page');
    // Quote.md links to the page by its block reference alone.
    assert.deepEqual(vault.noteInfo('pages/Quote.md')!.outgoing, ['pages/Feature___Search.md']);
    assert.deepEqual(vault.noteInfo('pages/Feature___Search.md')!.backlinks, ['pages/Quote.md', 'pages/Tips.md']);
    assert.equal(vault.resolveLink('Feature/Search', 'pages/Tips.md'), 'pages/Feature___Search.md');
    const paths = (await vault.search({ query: 'zorbulent', mode: 'keyword', k: 10 })).results.map((r) => r.path);
    assert.ok(paths.includes('pages/Tips.md'), paths.join(', '));
  });

  it('editing the referenced block re-chunks the notes that reference it (and after a reopen too)', async () => {
    const def = path.join(dir, 'pages/Feature___Search.md');
    await writeFile(def, NOTES['pages/Feature___Search.md'].replace('The zorbulent search box finds', 'The plimsy finder locates'));
    await vault.update(['pages/Feature___Search.md']);
    assert.match(shownText((await vault.noteTexts('pages/Tips.md'))![0]), /Remember: The plimsy finder locates pages/);
    assert.deepEqual((await vault.search({ query: 'plimsy', mode: 'keyword', k: 10 })).results.map((r) => r.path).sort(), ['pages/Feature___Search.md', 'pages/Quote.md', 'pages/Tips.md']);
    await vault.persist();
    await vault.close();
    vault = await open();
    const events: IndexEvent[] = [];
    await vault.index((e) => events.push(e));
    assert.ok(!events.some((e) => e.type === 'rebuild-started'), 'the saved index loads (empty chunks do not make the indices disagree)');
    // Changed while closed: the block goes away; the reference reads as missing, never as a raw uuid.
    await writeFile(def, NOTES['pages/Feature___Search.md'].replace(`\t  id:: ${BLOCK}\n`, ''));
    await vault.index();
    const shown = shownText((await vault.noteTexts('pages/Tips.md'))![0]);
    assert.match(shown, /Remember: \[missing block\]/);
    assert.doesNotMatch(shown, /plimsy/);
    assert.deepEqual(vault.noteInfo('pages/Quote.md')!.outgoing, [], 'a reference to a block no note defines links nowhere');
    assert.deepEqual(vault.snapshot().failures, []);
  });

  it('a stored chunk keeps its shown text only where it differs from its text (an ordinary vault is not stored twice)', async () => {
    const plain = (await vault.noteTexts('notes/Plain.md'))!;
    assert.ok(plain.length > 0 && plain.every((c) => !('displayText' in c)));
    assert.ok((await vault.noteTexts('pages/Tips.md'))!.some((c) => c.displayText !== undefined));
  });

  it('chunks with nothing to show are stored but neither searchable nor embedded', async () => {
    const empty = vault.noteInfo('journals/2024_03_02.md')!.record;
    const props = vault.noteInfo('pages/Only properties.md')!.record;
    const ids = [...empty.chunks, ...props.chunks].map((c) => c.id);
    assert.ok(ids.length >= 2);
    const snapshot = vault.snapshot();
    for (const id of ids) {
      assert.ok(snapshot.chunkIds.includes(id));
      assert.ok(!snapshot.keywordIds.includes(id) && !snapshot.vectorIds.includes(id), id);
    }
    assert.equal(snapshot.keywordIds.length, snapshot.vectorIds.length);
  });

  it("a page's description:: reads as its text: a page of only properties is found by what it describes", async () => {
    const [hit] = (await vault.search({ query: 'wibblefrost', k: 3 })).results;
    assert.equal(hit?.path, 'pages/Whiteboard___Reload.md');
    assert.equal(hit.title, 'Whiteboard/Reload');
    assert.equal(hit.text, '\n\nReloads the embedded wibblefrost content');
  });

  it('a journal page is dated by its day: after:/before: and newest-first listing use it, not the file time', async () => {
    const record = vault.noteInfo('journals/2024_01_15.md')!.record;
    assert.equal(record.date, '2024-01-15');
    const inJanuary = (await vault.search({ query: 'glimmerwick migration after:2024-01 before:2024-02', k: 10 })).results.map((r) => r.path);
    assert.deepEqual(inJanuary, ['journals/2024_01_15.md']);
    const before = (await vault.search({ query: 'glimmerwick before:2024-03-01', k: 10 })).results.map((r) => r.path);
    assert.deepEqual(before, ['journals/2024_01_15.md'], 'before: a day leaves that day out');
    const listed = (await vault.search({ query: 'path:journals/', k: 10 })).results.map((r) => r.path);
    assert.deepEqual(listed, ['journals/2024_03_02.md', 'journals/2024_03_01.md', 'journals/2024_01_15.md']);
  });
});

describe('block references across indexing batches', { timeout: 180_000 }, () => {
  it("a page chunked while an earlier batch was indexed reads a block that batch defined, whichever comes first", async () => {
    // The indexer reads and chunks the next batch of notes (50 first, then 500 at a time, in path order) while it
    // indexes the current one: a page of the second batch is chunked before the first batch's blocks are known, and
    // a page of the first quotes one not yet read. Neither may keep "[missing block]".
    const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-logseq-batches-'));
    const dir = path.join(root, 'vault');
    const early = '6565bbbb-1111-4222-8333-944444444444';
    const late = '6565cccc-1111-4222-8333-944444444444';
    const pages: Record<string, string> = {
      'a-defines.md': `- The frobnicating valve opens at dawn.\n  id:: ${early}\n- Early page quoting a later one: ((${late}))\n`,
      // The 51st page: the second batch's first.
      'n-defines.md': `- The quasselbrook gauge reads in furlongs.\n  id:: ${late}\n- Late page quoting an early one: ((${early}))\n`,
    };
    for (let i = 0; i < 49; i++) pages[`m-${String(i).padStart(3, '0')}.md`] = `- Filler page ${i} about ordinary things.\n`;
    for (let i = 0; i < 600; i++) pages[`p-${String(i).padStart(3, '0')}.md`] = `- Filler page ${i} about other things.\n`;
    await mkdir(path.join(dir, 'pages'), { recursive: true });
    for (const [name, text] of Object.entries(pages)) await writeFile(path.join(dir, 'pages', name), text);
    const config = defaultConfig();
    config.vault.path = dir;
    config.index.data_dir = path.join(root, 'data');
    const vault = await CairnVault.open(config);
    try {
      await vault.index();
      const shown = async (page: string) => (await vault.noteTexts(`pages/${page}`))!.map(shownText).join('\n');
      assert.match(await shown('n-defines.md'), /Late page quoting an early one: The frobnicating valve opens at dawn/);
      assert.match(await shown('a-defines.md'), /Early page quoting a later one: The quasselbrook gauge reads in furlongs/);
      const found = (await vault.search({ query: 'frobnicating valve', mode: 'keyword', k: 5 })).results.map((r) => r.path).sort();
      assert.deepEqual(found, ['pages/a-defines.md', 'pages/n-defines.md']);
    } finally {
      await vault.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
