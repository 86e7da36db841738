// Search, filters and empty states (issue 14): results are never silently capped ("10 of 30 notes kept by the
// filters — show more"); a `tag:` being typed is no error and completes from the index's tags; a tag no note has
// says so and offers the nearest; config.toml errors are all listed, an unclosed quote is named as such, and the
// problem (status chip and message) disappears once the file is fixed.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, SAMPLE_NOTES, type Workspace } from './support/workspace.ts';

const LOG_NOTES = 30;
/** One page kept in six versions, word for word: a search shows it once, naming three other copies and counting the rest. */
const MANUAL = '# Anemometer\n\n## Calibration\n\nTo calibrate the anemometer, spin its cups by hand and count the turns for one minute against the stopwatch.\n';
const COPIES: Record<string, string> = Object.fromEntries(['2021', '2022', '2023', '2024', '2025', '2026'].map((year) => [`Manuals/${year}/Anemometer.md`, MANUAL]));

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let page: Page;

/** Types a query and waits for the app to have answered exactly that query. */
async function typeQuery(query: string) {
  await page.getByTestId('search-input').fill(query);
  await page.waitForFunction((q) => document.querySelector(`[data-query="${CSS.escape(q)}"]:not(.stale)`) || document.querySelector('[data-testid="no-results"], [data-testid="filter-incomplete"]'), query.trim(), { timeout: 15_000 });
}

function logNotes(): Record<string, string> {
  const notes: Record<string, string> = {};
  for (let n = 1; n <= LOG_NOTES; n++) {
    const day = String(n).padStart(2, '0');
    const tags = n % 3 === 0 ? '[logbook, gardening]' : '[logbook]';
    notes[`Logbook/2026-03-${day}.md`] = `---\ntags: ${tags}\n---\n# Logbook ${day}\n\nChecked the seedlings and the rain gauge on day ${day}.\n`;
  }
  return notes;
}

describe('search, filters and empty states', { timeout: 170_000 }, () => {
  before(async () => {
    workspace = await createWorkspace({ extraNotes: { ...logNotes(), ...COPIES } });
    ({ server, browser, page } = await startApp(workspace));
    await page.goto(server.url);
    await page.getByTestId('status-notes').filter({ hasText: `${SAMPLE_NOTES + LOG_NOTES + Object.keys(COPIES).length} notes` }).waitFor({ timeout: 90_000 });
  });

  after(() => stopApp({ browser, server, workspace }));

  test('filters alone say how many notes they keep, and "show more" pages through all of them', async () => {
    await typeQuery('tag:logbook');
    const summary = page.getByTestId('results-summary');
    await summary.filter({ hasText: `10 of ${LOG_NOTES} notes kept by the filters` }).waitFor();
    assert.equal(await page.getByTestId('result-item').count(), 10);
    await screenshot(page, 'search-show-more');
    await page.getByTestId('show-more').click();
    await page.getByTestId('result-item').nth(19).waitFor();
    await summary.filter({ hasText: `20 of ${LOG_NOTES} notes` }).waitFor();
    await page.getByTestId('show-more-summary').click();
    await page.getByTestId('result-item').nth(LOG_NOTES - 1).waitFor();
    await summary.filter({ hasText: `${LOG_NOTES} notes kept by the filters` }).waitFor();
    assert.equal(await page.getByTestId('show-more').count(), 0, 'no "show more" once everything is shown');
    const paths = await page.getByTestId('result-item').locator('.path').allTextContents();
    assert.equal(new Set(paths).size, LOG_NOTES, 'every note once');
  });

  test('a ranked search says when there are more passages than shown', async () => {
    await typeQuery('seedlings rain gauge');
    await page.getByTestId('results-summary').filter({ hasText: /^10 of \d+ passages/ }).waitFor();
    await page.getByTestId('show-more').click();
    await page.getByTestId('result-item').nth(10).waitFor();
  });

  test('a passage kept word for word in six notes is one result, which names three other copies, lists the rest on request and opens any', async () => {
    await typeQuery('calibrate the anemometer cups');
    const copies = page.getByTestId('result-item').filter({ hasText: 'spin its cups by hand' });
    assert.equal(await copies.count(), 1, 'the six copies are one result');
    const shown = (await copies.locator('.result-meta .path').textContent())!;
    assert.ok(shown in COPIES, shown);
    const others = Object.keys(COPIES).filter((p) => p !== shown);
    const list = copies.getByTestId('same-text');
    assert.deepEqual(await list.locator('.path').allTextContents(), others.slice(0, 3), 'three named, in id order');
    await list.getByTestId('same-text-more').filter({ hasText: '2 more' }).click();
    assert.deepEqual(await list.locator('.path').allTextContents(), others, 'then every copy');
    assert.equal(await list.getByTestId('same-text-more').count(), 0);
    const last = others.at(-1)!;
    const button = list.getByRole('button', { name: last });
    // "Manuals/2026/Anemometer.md, lines 1–5": where the copy is.
    const lines = ((await button.getAttribute('title')) ?? '').split(', ')[1]!;
    await button.click();
    await page.getByTestId('note-file-path').filter({ hasText: last }).waitFor();
    await page.getByTestId('cited-lines').filter({ hasText: `cited ${lines}` }).waitFor();
    await screenshot(page, 'same-text');
  });

  test('`tag:` being typed is no error: it asks for a value and offers the vault\'s tags, most used first', async () => {
    await typeQuery('tag:');
    await page.getByTestId('filter-incomplete').waitFor();
    assert.equal(await page.getByTestId('no-results').count(), 0);
    assert.equal(await page.getByRole('alert').count(), 0, 'no error banner');
    const first = page.getByTestId('tag-suggestion').first();
    await first.waitFor();
    assert.equal(await first.getAttribute('data-tag'), 'logbook');
    assert.match((await first.textContent()) ?? '', new RegExp(`#logbook\\s*${LOG_NOTES}`));
    await screenshot(page, 'search-tag-incomplete');
  });

  test('tags complete as you type: picking one puts it in the query', async () => {
    await page.getByTestId('search-input').fill('tag:gar');
    // No note has "gar", but while a tag completes it that is no error: the suggestions, not a "no results" page.
    const typing = page.getByTestId('tag-typing');
    await typing.waitFor();
    assert.equal(await page.getByTestId('no-results').count(), 0);
    const suggestion = typing.locator('[data-testid="tag-suggestion"][data-tag="gardening"]');
    await suggestion.waitFor();
    await screenshot(page, 'search-tag-completion');
    await suggestion.click();
    assert.equal(await page.getByTestId('search-input').inputValue(), 'tag:gardening ');
    await page.getByTestId('results-summary').filter({ hasText: `${LOG_NOTES / 3} notes kept by the filters` }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'search-input', 'the box keeps the focus');
  });

  test('tag suggestions by keyboard: ↑/↓ highlight, Enter or Tab takes it, Esc closes the list, a second Esc clears', async () => {
    const input = page.getByTestId('search-input');
    await typeQuery('tag:');
    await page.getByTestId('tag-suggestion').first().waitFor();
    assert.equal(await input.getAttribute('role'), 'combobox');
    assert.equal(await input.getAttribute('aria-expanded'), 'true');
    const active = () => input.getAttribute('aria-activedescendant');
    assert.equal(await active(), null, 'no highlight at first');
    await input.press('ArrowDown');
    await input.press('ArrowDown');
    const second = page.getByTestId('tag-suggestion').nth(1);
    assert.equal(await second.getAttribute('aria-selected'), 'true');
    assert.equal(await active(), await second.getAttribute('id'));
    await input.press('ArrowUp');
    assert.equal(await page.getByTestId('tag-suggestion').first().getAttribute('aria-selected'), 'true');
    await screenshot(page, 'search-tag-keyboard');
    await input.press('Enter');
    assert.equal(await input.inputValue(), 'tag:logbook ');
    await page.getByTestId('results-summary').filter({ hasText: `${LOG_NOTES} notes kept by the filters` }).waitFor();

    await input.fill('tag:logbook tag:gar');
    const gardening = page.locator('[data-testid="tag-suggestion"][data-tag="gardening"]');
    await gardening.waitFor();
    await input.press('ArrowDown');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'tag:logbook tag:gardening ');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'search-input', 'Tab took the tag, not the focus');

    await input.fill('tag:gar');
    await gardening.waitFor();
    await input.press('Escape');
    await page.getByTestId('tag-suggestions').waitFor({ state: 'detached' });
    assert.equal(await input.inputValue(), 'tag:gar', 'the first Esc closes the list only');
    assert.equal(await input.getAttribute('aria-expanded'), 'false');
    await input.press('Escape');
    assert.equal(await input.inputValue(), '', 'the second Esc clears the box as before');
  });

  test('a tag no note has says so and offers the nearest tags', async () => {
    await typeQuery('tag:gardneing');
    const empty = page.getByTestId('no-results');
    await empty.locator('h2', { hasText: 'No note has the tag #gardneing' }).waitFor();
    const instead = empty.locator('[data-testid="tag-instead"][data-tag="gardening"]');
    await instead.waitFor();
    await screenshot(page, 'search-unknown-tag');
    await instead.click();
    assert.equal(await page.getByTestId('search-input').inputValue(), 'tag:gardening');
    await page.getByTestId('results-summary').filter({ hasText: 'notes kept by the filters' }).waitFor();
  });

  test('config.toml: every bad value is listed, an unclosed quote is named, and the problem goes once fixed', async () => {
    const good = await readFile(workspace.configFile, 'utf8');
    await writeFile(workspace.configFile, good.replace(/^k = 10$/m, 'k = "ten"').replace(/^mode = "hybrid"$/m, 'mode = "fast"'));
    const chip = page.getByTestId('config-problem-chip');
    await chip.waitFor({ timeout: 15_000 });
    const toast = page.getByTestId('toast-error').last();
    await toast.filter({ hasText: 'config.toml was not applied' }).waitFor();
    const listed = (await toast.textContent()) ?? '';
    assert.match(listed, /search\.mode: expected one of .*got "fast"/);
    // One line each: the problems after the first are listed under it.
    assert.match((await toast.locator('.toast-lines li').allTextContents()).join('\n'), /^search\.k: expected a whole number.* \(line \d+, column \d+\)$/m);
    await screenshot(page, 'config-every-problem');
    // Settings list them one a row, each with its line.
    const lineOf = (pattern: RegExp) => String((good.split('\n').findIndex((l) => pattern.test(l)) ?? -2) + 1);
    await chip.click();
    const rows = page.getByTestId('config-file-problem').getByTestId('config-problem');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    const listedRows = await rows.evaluateAll((items) => items.map((li) => ({ line: li.getAttribute('data-line'), text: li.textContent ?? '' })));
    assert.deepEqual(listedRows.map((r) => r.line).sort(), [lineOf(/^k = 10$/), lineOf(/^mode = "hybrid"$/)].sort());
    assert.ok(listedRows.some((r) => /^Line \d+, column \d+: search\.k expected a whole number/.test(r.text)), JSON.stringify(listedRows));
    assert.ok(listedRows.some((r) => /search\.mode expected one of .*got "fast"/.test(r.text)), JSON.stringify(listedRows));
    await screenshot(page, 'config-every-problem-settings');
    await page.getByTestId('settings').getByRole('button', { name: '← Back' }).click();

    await writeFile(workspace.configFile, good.replace(/^mode = "hybrid"$/m, 'mode = "hybrid'));
    const unclosed = page.getByTestId('toast-error').filter({ hasText: 'unclosed string' });
    await unclosed.waitFor({ timeout: 15_000 });
    assert.match((await unclosed.textContent()) ?? '', /unclosed string: add the closing " before the end of line \d+ \(line \d+, column 8\)/);
    const configToasts = page.getByTestId('toast-error').filter({ hasText: 'config.toml was not applied' });
    assert.equal(await configToasts.count(), 1, 'the newer problem replaces the older');
    await screenshot(page, 'config-unclosed-string');

    await writeFile(workspace.configFile, good);
    await chip.waitFor({ state: 'detached', timeout: 15_000 });
    await configToasts.first().waitFor({ state: 'detached', timeout: 5000 });
    await typeQuery('tag:logbook');
    await page.getByTestId('results-summary').filter({ hasText: `10 of ${LOG_NOTES}` }).waitFor();
  });
});
