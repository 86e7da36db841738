// The vault switcher and the first index (issue 14): the switcher is visibly a control (name + chevron) with the
// recent vaults in its menu; opening a vault shows progress at once, above the results; a first index says "Indexing
// for the first time" (not a rebuild for "no index yet"), counts notes, and never says "almost done" early.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';

const SECOND_NOTES = 1200;
const WORDS = ['harbour', 'rope', 'gull', 'keel', 'tide', 'anchor', 'buoy', 'sail', 'mast', 'deck', 'pier', 'wake'];

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let page: Page;
let second: string;

/** Records, in the page, whether an element matching `selector` ever appeared (even for a moment). */
async function watchFor(selector: string, flag: string): Promise<void> {
  await page.evaluate(
    ([selector, flag]) => {
      const w = window as unknown as Record<string, boolean>;
      w[flag] = !!document.querySelector(selector);
      new MutationObserver((_records, observer) => {
        if (document.querySelector(selector)) {
          w[flag] = true;
          observer.disconnect();
        }
      }).observe(document.body, { childList: true, subtree: true });
    },
    [selector, flag],
  );
}

describe('the vault switcher and the first index', { timeout: 170_000 }, () => {
  before(async () => {
    workspace = await createWorkspace();
    second = path.join(workspace.root, 'Harbour log');
    await mkdir(second, { recursive: true });
    for (let n = 1; n <= SECOND_NOTES; n++) {
      const words = Array.from({ length: 180 }, (_, i) => WORDS[(n * 7 + i * 3) % WORDS.length]).join(' ');
      await writeFile(path.join(second, `Log ${n}.md`), `# Log ${n}\n\n## Morning\n\n${words}.\n\n## Evening\n\n${words} ${n}.\n`);
    }
    ({ server, browser, page } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('the switcher is a visible control: the vault name and a chevron, a menu with "Open another folder…"', async () => {
    await page.goto(server.url);
    await page.getByTestId('status-line').waitFor({ timeout: 60_000 });
    const button = page.getByTestId('vault-button');
    assert.equal(await button.getByTestId('vault-name').textContent(), 'vault');
    assert.equal(await button.locator('svg.chevron').count(), 1);
    assert.equal(await button.getAttribute('aria-haspopup'), 'menu');
    await button.click();
    const menu = page.getByTestId('vault-menu');
    await menu.waitFor();
    assert.equal(await menu.getByTestId('recent-vault').count(), 0, 'the open vault is not offered as recent');
    // Esc closes the menu.
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await button.click();
    await menu.getByTestId('open-other-vault').click();
    await page.getByTestId('vault-picker').waitFor();
  });

  test('opening a new vault shows "Indexing for the first time" at once, counting notes, above the results', async () => {
    await watchFor('[data-testid="indexing-panel"]', '__sawPanel');
    const field = page.getByTestId('vault-path');
    await field.fill(second);
    await field.press('Enter');
    const panel = page.getByTestId('indexing-panel');
    await panel.waitFor({ timeout: 2000 });
    await panel.getByTestId('indexing-title').filter({ hasText: 'Indexing for the first time' }).waitFor({ timeout: 20_000 });
    // Above the results, not only in the status bar.
    assert.equal(await page.locator('.results-pane [data-testid="indexing-panel"]').count(), 1);
    await page.getByTestId('vault-name').filter({ hasText: 'Harbour log' }).waitFor();
    // Watch the progress until it ends: counts in notes, of the whole vault; "almost done" only near the end.
    const samples: string[] = [];
    let searched = false;
    while (await panel.isVisible()) {
      const text = (await panel.textContent().catch(() => '')) ?? '';
      if (text) samples.push(text);
      assert.doesNotMatch(text, /Rebuilding|no index yet/);
      const counts = /([\d,]+) \/ ([\d,]+) notes/.exec(text);
      if (counts) {
        const [done, total] = [Number(counts[1].replace(/,/g, '')), Number(counts[2].replace(/,/g, ''))];
        assert.equal(total, SECOND_NOTES);
        if (/almost done/.test(text)) assert.ok(done / total >= 0.9, `"almost done" at ${done} / ${total}`);
        if (!searched && done > 20 && done < total * 0.7) {
          searched = true;
          await screenshot(page, 'first-index');
          // Results shown while indexing say they are partial.
          await page.getByTestId('search-input').fill('anchor');
          await page.getByTestId('results-summary').waitFor({ timeout: 10_000 });
          // Read together: the indexing may end at any moment.
          const seen = await page.evaluate(() => ({
            indexing: !!document.querySelector('[data-testid="indexing-panel"] [data-testid="indexing-phase"]'),
            summary: document.querySelector('[data-testid="results-summary"]')?.textContent ?? '',
          }));
          if (seen.indexing) assert.match(seen.summary, /partial: [\d,]+ of [\d,]+ notes indexed so far/);
        }
      }
      await page.waitForTimeout(100);
    }
    assert.ok(samples.some((s) => / \/ 1,200 notes/.test(s)), `the count was shown: ${samples.slice(0, 3).join(' | ')}`);
    assert.ok(samples.some((s) => /about .* left|estimating/.test(s)), 'the time left was shown');
    await page.getByTestId('status-notes').filter({ hasText: `${SECOND_NOTES.toLocaleString()} notes` }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId('results-partial').count(), 0, 'no longer partial');
  });

  test('the menu lists the recent vault; choosing it shows progress at once and opens it', async () => {
    await page.getByTestId('vault-button').click();
    const recent = page.getByTestId('vault-menu').getByTestId('recent-vault');
    await recent.first().waitFor();
    assert.equal(await recent.count(), 1);
    assert.match((await recent.textContent()) ?? '', /vault/);
    assert.equal(await recent.getAttribute('title'), workspace.vault);
    await screenshot(page, 'vault-switcher');
    await watchFor('[data-testid="indexing-panel"]', '__sawOpening');
    await recent.click();
    await page.getByTestId('status-notes').filter({ hasText: '15 notes' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.evaluate(() => (window as unknown as Record<string, boolean>).__sawOpening), true, 'progress was shown while opening');
    assert.equal(await page.getByTestId('vault-name').textContent(), 'vault');
  });

  test('the page raised no errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
