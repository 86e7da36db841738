// First run in the browser: no vault anywhere, so the app asks for one (a path field in browser mode), opens it,
// indexes it, and remembers it as a recent vault.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;

describe('first run without a vault', { timeout: 120_000 }, () => {
  before(async () => {
    workspace = await createWorkspace({ noVaultInConfig: true });
    ({ server, browser } = await startApp(workspace, { withVault: false }));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('asks for the vault folder, refuses a bad one, opens a good one', async () => {
    const { page } = browser;
    await page.goto(server.url);
    const picker = page.getByTestId('vault-picker');
    await picker.waitFor();
    assert.equal(await page.getByTestId('search-input').isDisabled(), true);
    await screenshot(page, 'first-run');
    const field = page.getByTestId('vault-path');
    await field.fill('notes/relative');
    await field.press('Enter');
    await picker.getByRole('alert').filter({ hasText: 'full path' }).waitFor();
    await field.fill(`${workspace.root}/no-such-folder`);
    await field.press('Enter');
    await picker.getByRole('alert').filter({ hasText: 'not a folder' }).waitFor();
    await field.fill(workspace.vault);
    await field.press('Enter');
    await page.getByTestId('status-notes').filter({ hasText: '15 notes' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId('search-input').isDisabled(), false);
    // The vault is remembered: the picker lists it as recent when opened again.
    await page.getByTestId('vault-button').click();
    await page.getByTestId('open-other-vault').click();
    await picker.waitFor();
    assert.equal(await picker.locator('.recent-vaults').count(), 0, 'the open vault is not offered as "recent"');
    await picker.getByRole('button', { name: /Back to vault/ }).click();
    await page.getByTestId('search-empty').waitFor();
  });
});
