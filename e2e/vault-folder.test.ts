// The vault folder goes while the app is open (moved away, a drive unmounted) and comes back: the app says so
// once, keeps answering from the index, and once the folder is back it follows it again, clears the notice and
// indexes what was written meanwhile. Before, the app went stale until it was restarted.
import assert from 'node:assert/strict';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, SAMPLE_NOTES, type Workspace } from './support/workspace.ts';

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let page: Page;

describe('the vault folder goes and comes back while the app is open', { timeout: 120_000 }, () => {
  before(async () => {
    workspace = await createWorkspace();
    ({ server, browser, page } = await startApp(workspace));
    await page.goto(server.url);
    await page.getByTestId('status-notes').filter({ hasText: `${SAMPLE_NOTES} notes` }).waitFor({ timeout: 90_000 });
  });

  after(async () => {
    await rename(`${workspace.vault}-away`, workspace.vault).catch(() => {});
    await stopApp({ browser, server, workspace });
  });

  test('told once while it is gone, searches still answer; back, the notice goes and a note written meanwhile is found', async () => {
    await rename(workspace.vault, `${workspace.vault}-away`);
    const gone = page.getByTestId('toast-error').filter({ hasText: 'is gone (moved, deleted or unmounted)' });
    await gone.waitFor({ timeout: 15_000 });
    await page.getByTestId('status-folder-gone').waitFor();
    await screenshot(page, 'vault-folder-gone');
    assert.equal(await gone.count(), 1);
    await page.getByTestId('search-input').fill('embedding model');
    // The index still answers.
    await page.getByTestId('result-item').filter({ hasText: 'cairn-retrieval-100d' }).first().waitFor({ timeout: 15_000 });
    await page.getByTestId('status-notes').filter({ hasText: `${SAMPLE_NOTES} notes` }).waitFor();

    await writeFile(path.join(`${workspace.vault}-away`, 'Anemometer.md'), '# Anemometer\n\nSpin the anemometer cups by hand to calibrate them.\n');
    await rename(`${workspace.vault}-away`, workspace.vault);
    await page.getByTestId('toast-info').filter({ hasText: 'is back' }).waitFor({ timeout: 15_000 });
    await page.getByTestId('status-notes').filter({ hasText: `${SAMPLE_NOTES + 1} notes` }).waitFor({ timeout: 30_000 });
    assert.equal(await gone.count(), 0, 'the notice of its going is cleared');
    assert.equal(await page.getByTestId('status-folder-gone').count(), 0, 'and so is the status line');
    await page.getByTestId('search-input').fill('anemometer cups');
    await page.getByTestId('result-item').filter({ hasText: 'Spin the anemometer cups' }).waitFor({ timeout: 15_000 });
  });
});
