// Learning the vault's vocabulary as a user sees it: after the first index the status bar says so with progress,
// searching works meanwhile, and once the adapted table is in use the status line says the model is adapted.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;

describe('vault adaptation in the app', { timeout: 240_000 }, () => {
  before(async () => {
    // Enough text to learn from (the sample vault alone is too small): field notes, adaptation on as shipped.
    workspace = await createWorkspace({ fieldNotes: 40, adapt: true });
    ({ server, browser } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('shows the learning with progress, answers searches meanwhile, then uses the adapted table', async () => {
    const { page } = browser;
    await page.goto(server.url);
    const learning = page.getByTestId('adapting-progress');
    await learning.waitFor({ timeout: 120_000 });
    assert.match(await learning.innerText(), /Learning this vault.s vocabulary/);
    await screenshot(page, 'adapting');
    await page.getByTestId('search-input').fill('heron glacier');
    await page.getByTestId('result-item').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('status-model').filter({ hasText: 'adapted to this vault' }).waitFor({ timeout: 180_000 });
    assert.equal(await learning.count(), 0, 'the learning line is gone once done');
    assert.deepEqual(browser.pageErrors, []);
  });
});
