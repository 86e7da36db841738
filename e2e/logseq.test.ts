// A Logseq graph in the app: pages written as outlines (`- ## Heading` blocks nested by tabs), page and block
// properties, block references to a block of another page and to a missing one, a query macro and a #+BEGIN_QUERY
// block. Searched and opened in the real UI: the cited block (not the page) is highlighted, the outline is shown as
// nested bullets, and no `key:: value` line or raw `((uuid))` is visible.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { screenshot, type BrowserSession } from './support/browser.ts';
import type { ServeProcess } from './support/cairnServe.ts';
import { startApp, stopApp } from './support/runningApp.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';

const UUID = {
  morning: '6565a1b2-0000-4000-8000-0000000000a1',
  pumpNote: '6565a1b2-0000-4000-8000-0000000000a2',
  valve: '6565a1b2-0000-4000-8000-0000000000b2',
  missing: '6565a1b2-0000-4000-8000-0000000000ff',
};

const GLACIER_CARE = `title:: Glacier care
type:: [[Guide]]
tags:: ice, fieldwork

- ## Morning routine
  id:: ${UUID.morning}
  collapsed:: true
\t- Check the crevasse markers before breakfast and write down any marker that has tilted since yesterday.
\t- Refill the lantern oil, sweep the snow off the hut roof and make sure the radio battery is fully charged.
- ## Meltwater pumps
  collapsed:: true
\t- The zorbulent pump drains the meltwater pond every hour; before servicing it, remember: ((${UUID.valve}))
\t  id:: ${UUID.pumpNote}
\t- Clean the intake grate of the zorbulent pump weekly, and check that the outflow hose is not frozen solid.
\t- A broken pump floods the lower camp within a day, so keep the spare impeller in the tool chest by the door.
- ## Evening
\t- Log the temperature and the wind in the notebook, then compare them with the readings from the morning.
\t- Open tasks for the glacier: {{query (and [[Glacier care]] (task TODO))}}
\t- #+BEGIN_QUERY
\t  {:title "Open tasks" :query [:find (pull ?b [*]) :where [?b :block/marker "TODO"]]}
\t  #+END_QUERY
\t- See also ((${UUID.missing})) and the morning checks: ((${UUID.morning}))
\t- Timelapse of the melt: <video src="https://example.com/melt.mp4" controls></video>
`;

const PUMP_MANUAL = `type:: [[Manual]]

- ## Pump safety
\t- Always close the isolation valve before opening the pump housing.
\t  id:: ${UUID.valve}
\t- Wear insulated gloves: the housing stays below freezing for an hour after the pump stops running.
`;

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let page: Page;

/** The note body's text as the reader sees it. */
async function visibleText(body: Locator): Promise<string> {
  return body.evaluate((element) => (element as HTMLElement).innerText);
}

async function sourceRange(element: Locator): Promise<[number, number]> {
  return [Number(await element.getAttribute('data-source-line')), Number(await element.getAttribute('data-source-end'))];
}

describe('a Logseq graph in the app', { timeout: 150_000 }, () => {
  before(async () => {
    workspace = await createWorkspace({
      extraNotes: {
        'Glacier graph/logseq/config.edn': '{:meta/version 1}\n',
        'Glacier graph/pages/Glacier care.md': GLACIER_CARE,
        'Glacier graph/pages/Pump manual.md': PUMP_MANUAL,
      },
    });
    ({ server, browser, page } = await startApp(workspace));
  });

  after(() => stopApp({ browser, server, workspace }));

  test('a search result opens with the cited block highlighted, not the whole page', async () => {
    await page.goto(server.url);
    await page.getByTestId('status-line').waitFor({ timeout: 60_000 });
    const query = 'zorbulent pump intake grate';
    await page.getByTestId('search-input').fill(query);
    await page.locator(`[data-testid="results"][data-query="${query}"]:not(.stale)`).waitFor();
    const hit = page.getByTestId('result-item').filter({ has: page.locator('.result-title', { hasText: 'Glacier care' }) }).first();
    assert.match((await hit.locator('.breadcrumb').textContent()) ?? '', /Meltwater pumps/);
    const lines = /lines? (\d+)(?:–(\d+))?/.exec((await hit.locator('.result-meta').textContent()) ?? '');
    assert.ok(lines, 'the result names its lines');
    const [startLine, endLine] = [Number(lines[1]), Number(lines[2] ?? lines[1])];
    assert.ok(endLine - startLine < 10, `the citation is a block, not the page: lines ${startLine}–${endLine}`);
    await hit.click();

    const note = page.getByTestId('note-view');
    await note.locator('h1.note-title', { hasText: 'Glacier care' }).waitFor();
    const body = page.getByTestId('note-body');
    const cited = body.locator('.cited');
    await cited.first().waitFor();
    // Highlighted: the cited block, inside its lines; not the page's list, not the other blocks.
    for (const element of await cited.all()) {
      const [start, end] = await sourceRange(element);
      assert.ok(start >= startLine && end <= endLine, `highlighted ${start}-${end} outside the citation ${startLine}-${endLine}`);
    }
    assert.match((await visibleText(cited.first())) ?? '', /zorbulent pump drains/);
    assert.equal(await body.locator(':scope > ul.cited').count(), 0, 'the page is not highlighted as a whole');
    for (const other of ['Morning routine', 'Evening']) {
      const block = body.locator('li', { has: page.locator('h2', { hasText: other }) });
      assert.equal(await block.evaluate((li) => li.classList.contains('cited') || li.querySelector('.cited') !== null), false, `${other} is not highlighted`);
    }
    // In view.
    const pane = (await page.locator('.note-scroll').boundingBox())!;
    const box = (await cited.first().boundingBox())!;
    assert.ok(box.y >= pane.y && box.y < pane.y + pane.height, 'the cited block is in view');
    await screenshot(page, 'logseq-note');
  });

  test('the outline shows as nested bullets, its properties as a table, and no raw Logseq syntax', async () => {
    const body = page.getByTestId('note-body');
    // `- ## Heading` blocks are headings inside top-level bullets; their children nested bullets (collapsed ones expanded).
    assert.deepEqual(await body.locator(':scope > ul > li > h2').allTextContents(), ['Morning routine', 'Meltwater pumps', 'Evening']);
    await body.locator(':scope > ul > li > ul > li', { hasText: 'Refill the lantern oil' }).waitFor();
    // Page properties: a table above the body.
    const properties = page.getByTestId('note-properties');
    assert.match((await properties.textContent()) ?? '', /typeGuide/);
    assert.match((await properties.textContent()) ?? '', /tagsice, fieldwork/);
    const text = await visibleText(body);
    assert.doesNotMatch(text, /[\w-]+::/, 'no key:: value text');
    assert.doesNotMatch(text, /\(\([0-9a-f-]{36}\)\)|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, 'no raw block uuid');
    assert.doesNotMatch(text, /\{\{|#\+BEGIN|#\+END/, 'no raw macro or #+BEGIN marker');
    // The block reference reads as the referenced block (another page's); the missing one says so.
    await body.locator('a.block-ref', { hasText: 'Always close the isolation valve before opening the pump housing.' }).waitFor();
    await body.locator('.block-ref.missing', { hasText: 'missing block' }).waitFor();
    // The query macro is a label; the #+BEGIN_QUERY block is code.
    await body.locator('.logseq-macro', { hasText: 'query' }).waitFor();
    assert.match((await body.locator('pre code.language-query').textContent()) ?? '', /:block\/marker "TODO"/);
    // Media from elsewhere is not loaded (nor refused noisily by the CSP): a placeholder names it.
    assert.equal(await body.locator('video, audio').count(), 0);
    await body.locator('.image-placeholder', { hasText: '[video: https://example.com/melt.mp4]' }).waitFor();
  });

  test('a block reference navigates to its block: in the same page, or in the page holding it', async () => {
    const body = page.getByTestId('note-body');
    // Same page: scrolls to the block, which flashes.
    await body.locator('a.block-ref', { hasText: 'Morning routine' }).click();
    await body.locator(`li[data-block-id="${UUID.morning}"].flash`).waitFor();
    // Another page: opens it at the block.
    await body.locator('a.block-ref', { hasText: 'Always close the isolation valve' }).click();
    const note = page.getByTestId('note-view');
    await note.locator('h1.note-title', { hasText: 'Pump manual' }).waitFor();
    await page.getByTestId('note-body').locator(`li[data-block-id="${UUID.valve}"]`).waitFor();
    assert.doesNotMatch(await visibleText(page.getByTestId('note-body')), /[\w-]+::/);
    await page.getByRole('button', { name: 'Back' }).click();
    await note.locator('h1.note-title', { hasText: 'Glacier care' }).waitFor();
  });

  test('the page itself raised no errors', () => {
    assert.deepEqual(browser.pageErrors, []);
  });
});
