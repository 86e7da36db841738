// Browser mode survives a reload, a bookmark and a restart: the printed URL sets an HttpOnly SameSite=Strict session
// cookie, after which a reload, the bare http://127.0.0.1:PORT/ (a bookmark, a new tab) open the app; a bare URL
// without the session, or a link from an earlier run, shows a page that says how to open the app (never raw JSON).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, type BrowserSession } from './support/browser.ts';
import { startServe, type ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';


/** The app is up on `page` and answers a search. */
async function appWorks(page: Page, query: string): Promise<void> {
  const input = page.getByTestId('search-input');
  await input.waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => !(document.querySelector('[data-testid="search-input"]') as HTMLInputElement | null)?.disabled, undefined, { timeout: 60_000 });
  await input.fill(query);
  await page.locator(`[data-testid="results"][data-query="${query}"]:not(.stale)`).waitFor({ timeout: 60_000 });
  assert.ok((await page.getByTestId('result-item').count()) > 0, `results for ${query}`);
}

/** The explanation page is shown, of the given kind, as HTML (not JSON). */
async function sessionPageShown(page: Page, kind: string): Promise<string> {
  const main = page.getByTestId('session-page');
  await main.waitFor();
  assert.equal(await main.getAttribute('data-kind'), kind);
  const text = (await page.locator('body').innerText()).trim();
  assert.ok(!text.startsWith('{'), 'not raw JSON');
  assert.match(text, /Open the link that cairn serve \(or npm start\) printed/);
  return text;
}

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;

describe('browser mode across reloads, bookmarks and restarts', { timeout: 240_000 }, () => {
  before(async () => {
    workspace = await createWorkspace();
    ({ server, browser } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('a bare URL in a fresh browser explains how to open the app', async () => {
    const { page } = browser;
    const response = await page.goto(`${server.origin}/`);
    assert.equal(response?.status(), 403);
    assert.equal(response?.headers()['content-type'], 'text/html; charset=utf-8');
    await sessionPageShown(page, 'no-token');
    await screenshot(page, 'browser-session-bare-url');
  });

  test('the printed URL opens the app; a reload keeps working', async () => {
    const { page } = browser;
    await page.goto(server.url);
    await appWorks(page, 'chunk size');
    // The session cookie is HttpOnly: the page's scripts cannot read it.
    assert.equal(await page.evaluate(() => document.cookie), '');
    const cookies = await browser.context.cookies(server.origin);
    const session = cookies.find((c) => c.name === `cairn_session_${server.port}`);
    assert.ok(session, 'a session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    await page.reload();
    await appWorks(page, 'overlap');
    await screenshot(page, 'browser-session-after-reload');
  });

  test('the bare URL (a bookmark, a new tab) opens the app in this browser', async () => {
    const { page } = browser;
    await page.goto(`${server.origin}/`);
    await appWorks(page, 'hybrid search');
    const tab = await browser.context.newPage();
    try {
      await tab.goto(`${server.origin}/`);
      await appWorks(tab, 'wikilinks');
      await tab.reload();
      await appWorks(tab, 'chunk size');
    } finally {
      await tab.close();
    }
  });

  test('after a restart, a reload or the old link explains; the new link works, and so do its reloads', async () => {
    const { page } = browser;
    const oldUrl = server.url;
    await server.stop();
    server = await startServe(workspace, { port: server.port });
    assert.notEqual(server.url, oldUrl, 'a new run has a new token');
    await page.reload();
    assert.match(await sessionPageShown(page, 'wrong-token'), /earlier run of Cairn/);
    await screenshot(page, 'browser-session-after-restart');
    await page.goto(oldUrl);
    await sessionPageShown(page, 'wrong-token');
    await page.goto(server.url);
    await appWorks(page, 'chunk size');
    await page.reload();
    await appWorks(page, 'overlap');
    await page.goto(`${server.origin}/`);
    await appWorks(page, 'hybrid search');
  });
});
