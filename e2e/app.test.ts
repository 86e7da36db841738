// The app end to end, in browser mode: the real `cairn serve` (real CairnService, real vault on disk, temp data
// folder, temp config.toml) driven through Debian's Chromium. Tests run in order and share one server and page.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, SAMPLE_NOTES, type Workspace } from './support/workspace.ts';

const FIELD_NOTES = 250;

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let page: Page;

async function chunkCount(): Promise<number> {
  const text = await page.getByTestId('status-chunks').textContent();
  return Number((text ?? '').replace(/[^\d]/g, ''));
}

async function search(query: string) {
  await page.getByTestId('search-input').fill(query);
}

/** Types a query and waits for the results of exactly that query (not the previous one's, still on screen). */
async function searchAndWait(query: string) {
  await search(query);
  await page.locator(`[data-testid="results"][data-query="${query}"]:not(.stale)`).waitFor();
}

describe('Cairn in the browser', { timeout: 170_000 }, () => {
  before(async () => {
    workspace = await createWorkspace({ fieldNotes: FIELD_NOTES });
    ({ server, browser, page } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('indexes the vault and shows the idle status line', async () => {
    await page.goto(server.url);
    const status = page.getByTestId('status-line');
    await status.waitFor({ timeout: 60_000 });
    await page.getByTestId('status-notes').filter({ hasText: `${FIELD_NOTES + SAMPLE_NOTES} notes` }).waitFor({ timeout: 60_000 });
    assert.match((await status.textContent()) ?? '', /model cairn-retrieval-100d/);
    // The internals (dimensions, vector backend) are in the model's tooltip, not in the line.
    assert.doesNotMatch((await status.textContent()) ?? '', /vectors|dimensions/);
    assert.match((await page.getByTestId('status-model').getAttribute('title')) ?? '', /vectors: (faiss|flat)/);
    assert.ok((await chunkCount()) > FIELD_NOTES);
    // The token stays with the page; the API is never reachable without it.
    const unauthorised = await page.evaluate(async () => (await fetch('/api/getState', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[]' })).status);
    assert.equal(unauthorised, 403);
  });

  test('searches as you type and shows ranked, highlighted, explained results', async () => {
    await page.keyboard.press('Control+K');
    // The box takes focus on the next animation frame.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'search-input', undefined, { timeout: 5000 });
    await searchAndWait('chunk size');
    const results = page.getByTestId('result-item');
    assert.ok((await results.count()) >= 3);
    const first = results.first();
    assert.equal(await first.locator('.result-title').textContent(), 'Chunking');
    assert.match((await first.locator('.breadcrumb').textContent()) ?? '', /Chunking › /);
    const marks = await first.locator('mark').allTextContents();
    assert.ok(marks.some((m) => /chunk/i.test(m)), `highlighted terms: ${marks.join(', ')}`);
    assert.match((await first.locator('.result-meta').textContent()) ?? '', /lines? \d+(–\d+)?.*modified/);
    await first.locator('details.why summary').click();
    const why = (await first.locator('details.why').textContent()) ?? '';
    assert.match(why, /Keyword rank\s*#\d/);
    // Each ranking's weight for the query, and how much of the query the best keyword hit holds (part of its weight).
    assert.match(why, /Weights\s*keyword \d\.\d\d \(its best hit holds \d+% of the query\) · vector \d\.\d\d/);
    // Hybrid search's second stage: the result's rank by its best sentence, its score and line.
    assert.match(why, /Best sentence\s*#\d+ \(score 0\.\d{3}, line \d+\)/);
    // Keyboard: ↓ moves the selection, ↑ moves it back.
    await page.getByTestId('search-input').press('ArrowDown');
    assert.equal(await results.nth(1).getAttribute('aria-selected'), 'true');
    await page.getByTestId('search-input').press('ArrowUp');
    assert.equal(await first.getAttribute('aria-selected'), 'true');
    await screenshot(page, 'search-results');
    // Mode toggle: keyword-only results explain themselves without a vector rank.
    await page.getByTestId('search-mode').selectOption('keyword');
    await page.getByTestId('results-summary').filter({ hasText: 'keyword' }).waitFor();
    await page.getByTestId('search-mode').selectOption('hybrid');
    await page.getByTestId('results-summary').filter({ hasText: 'hybrid' }).waitFor();
  });

  test('question words are not highlighted: what is marked is what the search matched', async () => {
    await searchAndWait('how do I set the chunk size like this');
    const marks = (await page.getByTestId('result-item').first().locator('mark').allTextContents()).map((m) => m.toLowerCase());
    assert.ok(marks.some((m) => m.startsWith('chunk')), `highlighted terms: ${marks.join(', ')}`);
    for (const word of ['how', 'do', 'like', 'this', 'the']) assert.ok(!marks.includes(word), `"${word}" is highlighted: ${marks.join(', ')}`);
  });

  test('opens a result with the cited heading highlighted and in view', async () => {
    const first = page.getByTestId('result-item').first();
    const lines = /lines? (\d+)(?:–(\d+))?/.exec((await first.locator('.result-meta').textContent()) ?? '')!;
    const [startLine, endLine] = [Number(lines[1]), Number(lines[2] ?? lines[1])];
    await page.getByTestId('search-input').press('Enter');
    const note = page.getByTestId('note-view');
    await note.locator('h1.note-title', { hasText: 'Chunking' }).waitFor();
    const cited = note.locator('.note-body > .cited');
    await cited.first().waitFor();
    const citedHeading = note.locator('.note-body > h2.cited').first();
    assert.equal(await citedHeading.textContent(), 'The three sizes');
    assert.equal(Number(await citedHeading.getAttribute('data-source-line')), startLine);
    for (const block of await cited.all()) {
      const start = Number(await block.getAttribute('data-source-line'));
      const end = Number(await block.getAttribute('data-source-end'));
      assert.ok(start <= endLine && end >= startLine, `block ${start}-${end} outside ${startLine}-${endLine}`);
    }
    // Scrolled into view: the cited heading sits inside the visible part of the note pane.
    const pane = (await page.locator('.note-scroll').boundingBox())!;
    const toolbar = (await page.locator('.note-toolbar').boundingBox())!;
    const box = (await citedHeading.boundingBox())!;
    assert.ok(box.y >= toolbar.y + toolbar.height - 1 && box.y < pane.y + pane.height, 'the cited heading is scrolled into view, below the toolbar');
    await page.locator('.note-toolbar .toolbar-title', { hasText: 'Chunking' }).waitFor();
    assert.match((await page.getByTestId('cited-lines').textContent()) ?? '', startLine === endLine ? new RegExp(`line ${startLine}$`) : new RegExp(`${startLine}–${endLine}`));
    // Browser mode shows the file's vault-relative path (the full path on hover) instead of an "open in editor" button.
    assert.equal(await page.getByTestId('note-file-path').textContent(), 'Configuration/Chunking.md');
    assert.ok(((await page.getByTestId('note-file-path').getAttribute('title')) ?? '').startsWith(`${workspace.vault}/Configuration/Chunking.md`));
    assert.equal(await page.getByTestId('note-path').getAttribute('title'), `${workspace.vault}/Configuration/Chunking.md`);
    assert.equal(await note.getByRole('button', { name: 'Open in editor' }).count(), 0);
    // Wikilinks are in-app links, resolved through the api.
    await note.locator('a.wikilink[data-resolved]').first().waitFor();
    await screenshot(page, 'note-view');
  });

  test('a wikilink navigates inside the app, and Back returns', async () => {
    const link = page.getByTestId('note-view').locator('a.wikilink[data-resolved]').first();
    const target = await link.getAttribute('data-resolved');
    await link.click();
    await page.getByTestId('note-view').locator('.note-meta', { hasText: target! }).waitFor();
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByTestId('note-view').locator('h1.note-title', { hasText: 'Chunking' }).waitFor();
  });

  test('headings are cited as the page shows them: no code ticks in a breadcrumb', async () => {
    // The sample's "## `include_parent_headers`" is a code span in a heading.
    await searchAndWait('include_parent_headers');
    const hit = page.getByTestId('result-item').filter({ has: page.locator('.result-title', { hasText: 'Chunking' }) }).first();
    assert.equal(await hit.locator('.breadcrumb').textContent(), 'Chunking › include_parent_headers');
  });

  test('a passage of merged short sections is cited, and opened, at the part the query matched', async () => {
    // In the sample Glossary, "### Citation" is too short to stand alone: it shares a chunk with "### Chunk".
    await searchAndWait('where a passage came from');
    const hit = page.getByTestId('result-item').filter({ has: page.locator('.result-title', { hasText: 'Glossary' }) }).first();
    assert.equal(await hit.locator('.breadcrumb').textContent(), 'Glossary › Terms › Citation');
    await hit.click();
    const note = page.getByTestId('note-view');
    await note.locator('h1.note-title', { hasText: 'Glossary' }).waitFor();
    const heading = note.locator('.note-body > h3.cited', { hasText: 'Citation' });
    await heading.waitFor();
    assert.equal(await note.locator('.note-body > h3.cited', { hasText: 'Chunk' }).count(), 1, 'the whole passage is highlighted');
    const pane = (await page.locator('.note-scroll').boundingBox())!;
    const box = (await heading.boundingBox())!;
    assert.ok(box.y >= pane.y && box.y < pane.y + pane.height, 'the matched part is in view');
  });

  test('filters typed into the search box narrow the results and show as removable chips; filters alone list notes', async () => {
    await searchAndWait('chunk size path:Configuration/');
    const results = page.getByTestId('result-item');
    assert.ok((await results.count()) >= 1);
    for (const crumb of await results.locator('.breadcrumb').all()) assert.match((await crumb.getAttribute('title')) ?? '', /^Configuration\//);
    assert.deepEqual(await page.getByTestId('filter-chip').locator('.filter-label').allTextContents(), ['in Configuration/']);
    const marks = (await results.first().locator('mark').allTextContents()).map((m) => m.toLowerCase());
    assert.ok(!marks.includes('path') && !marks.includes('configuration'), `the operator is not highlighted: ${marks.join(', ')}`);

    await searchAndWait('tag:reference');
    const listed = await page.getByTestId('result-item').locator('.result-title').allTextContents();
    assert.deepEqual([...listed].sort(), ['Glossary', 'config.toml reference']);
    assert.match((await page.getByTestId('results-summary').textContent()) ?? '', /2 notes kept by the filters, newest first/);
    assert.equal(await page.getByTestId('result-item').filter({ hasText: 'Glossary' }).locator('.breadcrumb').textContent(), 'Glossary', 'cited by where the note opens');
    assert.deepEqual(await page.getByTestId('filter-chip').locator('.filter-label').allTextContents(), ['#reference']);
    await screenshot(page, 'search-filters');

    await searchAndWait('hybrid ranking -path:Configuration/ tag:search');
    assert.deepEqual(await page.getByTestId('filter-chip').locator('.filter-label').allTextContents(), ['not in Configuration/', '#search']);
    // × takes a filter out of the query, and the search runs again without it.
    await page.getByRole('button', { name: 'Remove the filter #search' }).click();
    assert.equal(await page.getByTestId('search-input').inputValue(), 'hybrid ranking -path:Configuration/');
    await page.locator('[data-testid="results"][data-query="hybrid ranking -path:Configuration/"]:not(.stale)').waitFor();
    for (const crumb of await page.getByTestId('result-item').locator('.breadcrumb').all()) assert.doesNotMatch((await crumb.getAttribute('title')) ?? '', /^Configuration\//);
    assert.deepEqual(await page.getByTestId('filter-chip').locator('.filter-label').allTextContents(), ['not in Configuration/']);

    await searchAndWait('chunk size after:soon');
    assert.match((await page.getByTestId('query-problem').textContent()) ?? '', /after:soon is not a date/);
    assert.ok((await page.getByTestId('result-item').count()) >= 1, 'the search still runs');
  });

  test('Ask mode takes a question on Enter and answers it with citations (more in ask.test.ts)', async () => {
    await page.getByRole('tab', { name: 'Ask' }).click();
    await search('How is a long section split?');
    assert.equal(await page.getByTestId('ask-panel').count(), 0, 'nothing is asked before Enter');
    await page.getByTestId('search-input').press('Enter');
    await page.locator('[data-testid="ask-panel"][data-status="done"]').waitFor({ timeout: 30_000 });
    assert.match((await page.getByTestId('answer-text').textContent()) ?? '', /split/);
    assert.ok((await page.getByTestId('citation-marker').count()) >= 1);
    assert.ok((await page.getByTestId('answer-source').count()) >= 1);
    await screenshot(page, 'ask-mode');
    await page.getByRole('tab', { name: 'Search' }).click();
  });

  test('a note written on disk shows up in the results without a reload', async () => {
    await search('quokkafjord');
    await page.getByTestId('no-results').waitFor();
    await writeFile(path.join(workspace.vault, 'Ferry timetable.md'), '# Ferry timetable\n\nThe quokkafjord ferry leaves at nine.\n');
    const hit = page.getByTestId('result-item').filter({ hasText: 'Ferry timetable' });
    await hit.waitFor({ timeout: 20_000 });
    await hit.click();
    await page.getByTestId('note-view').locator('h1.note-title', { hasText: 'Ferry timetable' }).waitFor();
  });

  test('changing max_chunk_chars in Settings rebuilds the index with the new chunking', async () => {
    const before = await chunkCount();
    await page.getByTestId('settings-button').click();
    const field = page.getByTestId('option-chunking.max_chunk_chars');
    await field.waitFor();
    assert.equal(await field.inputValue(), '2000');
    // The form refuses what the schema forbids, next to the field, and sends nothing.
    await field.fill('10');
    await page.getByTestId('error-chunking.max_chunk_chars').filter({ hasText: 'at least 50' }).waitFor();
    await field.fill('400');
    assert.equal(await page.getByTestId('error-chunking.max_chunk_chars').count(), 0);
    await page.locator('fieldset', { hasText: '[chunking]' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'settings');
    await page.getByTestId('save-options').click();
    const progress = page.getByTestId('indexing-progress');
    await progress.waitFor({ timeout: 20_000 });
    assert.match((await progress.textContent()) ?? '', /Rebuilding the index/);
    await page.getByTestId('rebuild-reason').waitFor();
    await screenshot(page, 'indexing');
    await page.getByTestId('status-line').waitFor({ timeout: 60_000 });
    // The idle line can show the counts of the state before the rebuild for a moment, until the new state arrives.
    await page
      .waitForFunction((count) => Number(document.querySelector('[data-testid="status-chunks"]')?.textContent?.replace(/[^\d]/g, '') ?? 0) > count, before, { timeout: 30_000 })
      .catch(() => undefined);
    const after = await chunkCount();
    assert.ok(after > before, `chunks ${before} → ${after}`);
    // The form shows the value now in force.
    await page.waitForFunction(() => (document.querySelector('[data-testid="option-chunking.max_chunk_chars"]') as HTMLInputElement | null)?.value === '400');
    const text = await readFile(workspace.configFile, 'utf8');
    assert.match(text, /^max_chunk_chars = 400$/m);
    assert.match(text, /# Sections longer than this are split/, 'the comments are kept');
  });

  test('an invalid config.toml is refused with its line, and search keeps working', async () => {
    await page.getByTestId('tab-file').click();
    const editor = page.getByTestId('config-text');
    const original = await editor.inputValue();
    const broken = original.replace(/^max_chunk_chars = 400$/m, 'max_chunk_chars = "huge"');
    assert.notEqual(broken, original);
    const line = broken.split('\n').findIndex((l) => l.startsWith('max_chunk_chars = "huge"')) + 1;
    await editor.fill(broken);
    await page.getByTestId('save-config-text').click();
    const error = page.getByTestId('config-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', new RegExp(`Line ${line}`));
    assert.match((await error.textContent()) ?? '', /max_chunk_chars/);
    assert.equal(await page.locator('.gutter .error-line').textContent(), String(line));
    assert.equal(await readFile(workspace.configFile, 'utf8'), original, 'nothing was written');
    await screenshot(page, 'settings-error');
    // Search still answers, with the last good configuration.
    await searchAndWait('hybrid ranking');
    await page.getByTestId('result-item').first().locator('.result-title', { hasText: 'Hybrid ranking' }).waitFor();
    assert.match((await page.getByTestId('status-chunks').textContent()) ?? '', /\d/);
  });

  test('the dark theme follows the OS', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByTestId('result-item').first().click();
    await page.getByTestId('note-view').locator('.cited').first().waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.notEqual(background, 'rgb(246, 247, 249)');
    await screenshot(page, 'note-view-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('the page itself raised no errors', () => {
    // The one expected console error: the 403 of the deliberate token-less fetch in the first test.
    const unexpected = browser.pageErrors.filter((e) => !/403/.test(e));
    assert.deepEqual(unexpected, []);
  });
});
