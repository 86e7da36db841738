// A note written to attack the app: script tags, event handlers, javascript: links, frames. Viewed and clicked in
// the real UI, none of it may run (window.__pwned stays undefined) and none of it may reach the DOM live.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';

const HOSTILE = `---
title: Untrusted HTML
tags: [security]
---
# Untrusted HTML

A note with xylophonic payloads.

<script>window.__pwned=1</script>

<img src=x onerror="window.__pwned=1">

[markdown javascript link](javascript:window.__pwned=1)

<a href="javascript:window.__pwned=1" id="raw-js-link">raw javascript link</a>

<a href="JaVaScRiPt:window.__pwned=1">mixed-case javascript link</a>

<svg onload="window.__pwned=1"><circle r="5"></circle></svg>

<iframe src="javascript:window.__pwned=1"></iframe>

<div onclick="window.__pwned=1" class="clicky">click this div</div>

<form action="javascript:window.__pwned=1"><button>submit</button></form>

<a href="data:text/html,<script>window.__pwned=1</script>">data link</a>

<img src="https://example.com/tracker.png" alt="remote tracker">

[[Welcome|a wikilink]] and [[No such note]]
`;

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;

// A note from an old Windows editor: Windows-1252 bytes (é, curly quotes), not UTF-8.
const WINDOWS_1252 = Buffer.from('# Old recipes\n\nThe caf\xe9 au lait, \x93well stirred\x94.\n', 'latin1');

describe('a hostile note, and a file that cannot be indexed', { timeout: 120_000 }, () => {
  before(async () => {
    workspace = await createWorkspace({ extraNotes: { 'Untrusted HTML.md': HOSTILE, 'Attachments/Scan.md': 'PDF\u0000\u0001\u0002 not text', 'Old recipes.md': WINDOWS_1252 } });
    ({ server, browser } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('renders inert, and stays inert when clicked', async () => {
    const { page } = browser;
    page.on('dialog', (dialog) => void dialog.dismiss());
    const response = await page.goto(server.url);
    assert.match(response!.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.getByTestId('status-line').waitFor({ timeout: 60_000 });
    await page.getByTestId('search-input').fill('xylophonic payloads');
    await page.getByTestId('result-item').filter({ hasText: 'Untrusted HTML' }).first().click();
    const body = page.getByTestId('note-body');
    await body.getByText('click this div').waitFor();

    // Nothing executable survived the sanitiser.
    assert.equal(await body.locator('script, iframe, svg, form, object, embed').count(), 0);
    for (const attribute of ['onerror', 'onload', 'onclick']) assert.equal(await body.locator(`[${attribute}]`).count(), 0, attribute);
    const hrefs = await body.locator('a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    assert.ok(hrefs.every((href) => !/^\s*(javascript|data|vbscript):/i.test(href)), hrefs.join(' '));
    // The markdown javascript: link is left as text, the remote image is not fetched.
    assert.match((await body.textContent()) ?? '', /markdown javascript link/);
    assert.equal(await body.locator('img').count(), 0);
    await body.locator('.image-placeholder', { hasText: 'remote tracker' }).waitFor();
    // Front matter is a properties table, not text.
    assert.match((await page.getByTestId('note-properties').textContent()) ?? '', /titleUntrusted HTML/);

    // Click everything clickable in the note.
    for (const text of ['markdown javascript link', 'raw javascript link', 'mixed-case javascript link', 'click this div', 'data link']) {
      await body.getByText(text).first().click();
    }
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    // Still on the app, not navigated anywhere.
    assert.equal(new URL(page.url()).origin, server.origin);
    // The wikilinks: one resolved, one marked unresolved.
    await body.locator('a.wikilink.unresolved', { hasText: 'No such note' }).waitFor();
    await body.locator('a.wikilink[data-resolved="Welcome.md"]').waitFor();
    await screenshot(page, 'hostile-note');
  });

  test('files that failed are listed with their reasons, and notes read as Windows-1252 with theirs', async () => {
    const { page } = browser;
    const button = page.getByTestId('failed-files-button');
    assert.equal(await button.textContent(), '1 file failed, 1 note with a warning');
    await button.click();
    const dialog = page.getByTestId('failed-files');
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /Attachments\/Scan\.md.*binary/);
    assert.match((await dialog.getByTestId('warned-files').textContent()) ?? '', /Old recipes\.md.*read as Windows-1252/);
    await screenshot(page, 'failed-files');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Searched and shown with its accents and quotes.
    await page.getByTestId('search-input').fill('café au lait');
    await page.getByTestId('result-item').filter({ hasText: 'Old recipes' }).first().click();
    await page.getByTestId('note-body').getByText('The café au lait, “well stirred”.').waitFor();
  });
});
