// Keyboard and rendering in the browser (issue 14): the box has focus on load, Alt-S / Alt-A switch Search and Ask,
// Alt-← goes Back, Esc clears the query and then closes the note, the "why" toggles are out of the Tab path; task
// lists are read-only checkboxes, wikilinks in tables have no stray backslash, a one-line range reads "line N", the
// note header shows the vault-relative path (the full path on hover), the status bar names the model plainly.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let page: Page;

const SHOPPING = `# Errands

A checklist for the ferry.

- [ ] buy quillwort rope
- [x] book the quillwort ferry
- plain item

| Where | Note |
| --- | --- |
| harbour | [[Glossary\\|the glossary]] and [[Chunking#The three sizes\\|sizes]] |
`;

async function searchAndWait(query: string) {
  await page.getByTestId('search-input').fill(query);
  await page.locator(`[data-testid="results"][data-query="${query}"]:not(.stale)`).waitFor();
}

async function focusedTestId(): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);
}

describe('keyboard and rendering', { timeout: 150_000 }, () => {
  before(async () => {
    workspace = await createWorkspace({ extraNotes: { 'Errands.md': SHOPPING, 'Solo.md': 'zanzibarquux stands alone on one line\n' } });
    ({ server, browser, page } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('the search box has focus on load', async () => {
    await page.goto(server.url);
    await page.getByTestId('status-line').waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'search-input', undefined, { timeout: 10_000 });
    // The empty state names the keys.
    assert.match((await page.getByTestId('shortcut-help').textContent()) ?? '', /Ctrl\+K.*Alt\+S.*Alt\+A.*Alt\+←.*Esc/);
    await screenshot(page, 'keyboard-help');
    // Typing straight away searches.
    await page.keyboard.type('chunk size');
    await page.locator('[data-testid="results"][data-query="chunk size"]:not(.stale)').waitFor();
  });

  test('the status bar names the model without internals; the internals are in its tooltip', async () => {
    const model = page.getByTestId('status-model');
    assert.equal((await model.textContent())?.trim(), 'model cairn-retrieval-100d');
    const title = (await model.getAttribute('title')) ?? '';
    assert.match(title, /\d+ dimensions/);
    assert.match(title, /vectors: (faiss|flat)/);
    assert.doesNotMatch((await page.getByTestId('status-line').textContent()) ?? '', /vectors|faiss|HNSW|dimensions|q8/);
  });

  test('Alt+A and Alt+S switch Ask and Search; the tabs say so in their tooltips', async () => {
    const ask = page.getByRole('tab', { name: 'Ask' });
    const search = page.getByRole('tab', { name: 'Search' });
    assert.match((await ask.getAttribute('title')) ?? '', /Alt\+A/);
    assert.match((await search.getAttribute('title')) ?? '', /Alt\+S/);
    await page.keyboard.press('Alt+A');
    assert.equal(await ask.getAttribute('aria-selected'), 'true');
    assert.equal(await page.getByTestId('search-input').getAttribute('aria-label'), 'Question');
    assert.equal(await focusedTestId(), 'search-input');
    await page.keyboard.press('Alt+S');
    assert.equal(await search.getAttribute('aria-selected'), 'true');
    assert.equal(await page.getByTestId('search-input').getAttribute('aria-label'), 'Search');
    await page.locator('[data-testid="results"][data-query="chunk size"]:not(.stale)').waitFor();
  });

  test('Tab goes from the box to the controls, never through the "why this result" toggles', async () => {
    await page.getByTestId('search-input').focus();
    const stops: string[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      stops.push(await page.evaluate(() => {
        const el = document.activeElement;
        return el ? `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `#${el.getAttribute('data-testid')}` : ''}${el.closest('details.why') ? ' (why)' : ''}` : 'none';
      }));
    }
    assert.ok(!stops.some((s) => s.startsWith('summary') || s.includes('(why)')), `tab stops: ${stops.join(', ')}`);
    assert.equal(stops[0], 'select#search-mode', `tab stops: ${stops.join(', ')}`);
    // The toggle still opens with the mouse.
    const why = page.getByTestId('result-item').first().locator('details.why');
    await why.locator('summary').click();
    assert.equal(await why.getAttribute('open'), '');
  });

  test('Esc clears the query first, then closes the open note; Alt+← goes Back', async () => {
    await page.getByTestId('search-input').focus();
    await searchAndWait('chunk size');
    await page.getByTestId('search-input').press('Enter');
    const note = page.getByTestId('note-view');
    await note.locator('h1.note-title', { hasText: 'Chunking' }).waitFor();
    // A wikilink, then Back by the keyboard.
    const link = note.locator('a.wikilink[data-resolved]').first();
    const target = await link.getAttribute('data-resolved');
    await link.click();
    await note.locator('.note-meta', { hasText: target! }).waitFor();
    assert.match((await page.getByRole('button', { name: 'Back' }).getAttribute('title')) ?? '', /Alt\+←/);
    await page.keyboard.press('Alt+ArrowLeft');
    await note.locator('h1.note-title', { hasText: 'Chunking' }).waitFor();
    assert.ok(page.url().startsWith(server.origin), 'the browser did not navigate away');
    // Esc in the box: the query goes, the note stays; Esc again: the note closes.
    await page.getByTestId('search-input').focus();
    await page.keyboard.press('Escape');
    assert.equal(await page.getByTestId('search-input').inputValue(), '');
    assert.equal(await note.count(), 1, 'the note is still open');
    assert.match((await page.getByTestId('close-note').getAttribute('title')) ?? '', /Esc/);
    await page.keyboard.press('Escape');
    await note.waitFor({ state: 'detached' });
    assert.equal(await focusedTestId(), 'search-input');
    // Esc outside a field closes the note too.
    await searchAndWait('chunk size');
    await page.getByTestId('search-input').press('Enter');
    await note.locator('h1.note-title', { hasText: 'Chunking' }).click();
    await page.keyboard.press('Escape');
    await note.waitFor({ state: 'detached' });
  });

  test('task lists are read-only checkboxes; wikilinks in a table have no stray backslash', async () => {
    await searchAndWait('quillwort');
    await page.getByTestId('result-item').filter({ hasText: 'Errands' }).first().click();
    const body = page.getByTestId('note-body');
    await page.getByTestId('note-view').locator('h1.note-title', { hasText: 'Errands' }).waitFor();
    const boxes = body.locator('li.task-list-item input[type="checkbox"]');
    assert.equal(await boxes.count(), 2);
    assert.deepEqual(await boxes.evaluateAll((els) => els.map((el) => [(el as HTMLInputElement).checked, (el as HTMLInputElement).disabled])), [
      [false, true],
      [true, true],
    ]);
    assert.doesNotMatch((await body.textContent()) ?? '', /\[ \]|\[x\]/);
    // Clicking a box changes nothing.
    await boxes.first().click({ force: true });
    assert.equal(await boxes.first().isChecked(), false);
    const cell = body.locator('td').nth(1);
    assert.equal((await cell.textContent())?.trim(), 'the glossary and sizes');
    assert.doesNotMatch((await body.textContent()) ?? '', /\\/);
    await cell.locator('a.wikilink[data-resolved="Glossary.md"]').waitFor();
    // The snippet of the table row has no backslash either.
    await searchAndWait('harbour glossary');
    const snippet = page.getByTestId('result-item').filter({ hasText: 'Errands' }).first().locator('.snippet');
    assert.doesNotMatch((await snippet.textContent()) ?? '', /\\|\[\[/);
    await screenshot(page, 'task-list-and-table');
  });

  test('a one-line passage reads "line N"; the note header shows the vault-relative path, the full path on hover', async () => {
    await searchAndWait('zanzibarquux');
    const hit = page.getByTestId('result-item').filter({ hasText: 'Solo' }).first();
    const meta = (await hit.locator('.result-meta').textContent()) ?? '';
    assert.match(meta, /line 1(?!–)/);
    assert.doesNotMatch(meta, /lines 1–1/);
    await hit.click();
    assert.equal(await page.getByTestId('cited-lines').textContent(), 'cited line 1');
    assert.equal(await page.getByTestId('note-path').textContent(), 'Solo.md');
    assert.equal(await page.getByTestId('note-path').getAttribute('title'), `${workspace.vault}/Solo.md`);
    assert.equal(await page.getByTestId('note-file-path').textContent(), 'Solo.md');
  });

  test('the page raised no errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
