// Browser mode has no folder dialog: the vault path field completes folders as they are typed (issue 14). ↑/↓ move,
// Tab or Enter take the highlighted folder (and list its sub-folders), Esc closes the list, Enter on a folder opens
// it; folders that look like vaults are marked; a bad path keeps its clear message.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
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
let shelf: string;

describe('the vault path field completes folders', { timeout: 150_000 }, () => {
  before(async () => {
    workspace = await createWorkspace();
    shelf = path.join(workspace.root, 'Shelf');
    await mkdir(path.join(shelf, 'Garden notes', '.obsidian'), { recursive: true });
    await writeFile(path.join(shelf, 'Garden notes', 'Roses.md'), '# Roses\n\nPrune in late winter.\n');
    await mkdir(path.join(shelf, 'Graph', 'logseq'), { recursive: true });
    await mkdir(path.join(shelf, 'Graph', 'pages'), { recursive: true });
    await mkdir(path.join(shelf, 'gravel'), { recursive: true });
    await mkdir(path.join(shelf, '.git'), { recursive: true });
    await mkdir(path.join(shelf, 'Music'), { recursive: true });
    ({ server, browser, page } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('typing lists matching folders, vaults marked; arrows, Tab, Enter and Esc drive the list', async () => {
    await page.goto(server.url);
    await page.getByTestId('vault-button').click();
    await page.getByTestId('open-other-vault').click();
    const field = page.getByTestId('vault-path');
    await field.waitFor();
    await field.fill(`${shelf}/g`);
    const options = page.getByTestId('folder-completion');
    await options.nth(2).waitFor();
    assert.deepEqual(await options.allTextContents(), ['Garden notes/Obsidian vault', 'Graph/Logseq graph', 'gravel/']);
    assert.equal(await field.getAttribute('aria-expanded'), 'true');

    await field.press('ArrowDown');
    await field.press('ArrowDown');
    assert.equal(await options.nth(1).getAttribute('aria-selected'), 'true');
    assert.equal(await field.getAttribute('aria-activedescendant'), await options.nth(1).getAttribute('id'));
    await field.press('ArrowUp');
    await screenshot(page, 'vault-path-completion');
    await field.press('Tab');
    assert.equal(await field.inputValue(), `${path.join(shelf, 'Garden notes')}/`);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'vault-path', 'Tab took the folder, not the focus');

    // Hidden folders only when asked for with "."; Esc closes the list and leaves the text.
    await field.fill(`${shelf}/`);
    await page.getByTestId('folder-completion').filter({ hasText: 'Music' }).waitFor();
    assert.ok(!(await options.allTextContents()).some((t) => t.startsWith('.git')));
    await field.fill(`${shelf}/.`);
    await options.filter({ hasText: '.git' }).waitFor();
    await field.press('Escape');
    await page.getByTestId('folder-completions').waitFor({ state: 'detached' });
    assert.equal(await field.inputValue(), `${shelf}/.`);
    assert.equal(await page.getByTestId('vault-picker').count(), 1, 'Esc in the field closes only the list');

    // Enter on a highlighted folder takes it; Enter again (nothing highlighted) opens it.
    await field.fill(`${shelf}/gar`);
    await options.first().waitFor();
    await field.press('ArrowDown');
    await field.press('Enter');
    assert.equal(await field.inputValue(), `${path.join(shelf, 'Garden notes')}/`);
    // The sub-folder list of the folder taken is empty (its only folder is hidden): no stale entry is left to take.
    assert.equal(await options.count(), 0);
    await field.press('Enter');
    // Opening shows the folder's name at once; a refusal would show why in the picker (named in the failure).
    const opened = page.getByTestId('vault-name').filter({ hasText: 'Garden notes' });
    await opened.or(page.getByTestId('vault-picker').getByRole('alert')).first().waitFor({ timeout: 60_000 });
    assert.ok(await opened.isVisible(), `opening was refused: ${await page.getByTestId('vault-picker').getByRole('alert').textContent().catch(() => '')}; ${browser.pageErrors.join('; ')}`);
    await page.getByTestId('status-notes').filter({ hasText: /^1 note/ }).waitFor({ timeout: 60_000 });
  });

  test('a bad path keeps its clear message', async () => {
    await page.getByTestId('vault-button').click();
    await page.getByTestId('open-other-vault').click();
    const field = page.getByTestId('vault-path');
    await field.fill(path.join(shelf, 'nowhere'));
    await field.press('Enter');
    const message = page.getByTestId('vault-picker').getByRole('alert');
    await message.waitFor();
    assert.match((await message.textContent()) ?? '', /nowhere/);
    assert.deepEqual(browser.pageErrors.filter((e) => !/status of 4\d\d/.test(e)), []);
  });
});
