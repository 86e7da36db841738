// Choosing the embedding model in Settings, against a local HTTP server in the Hugging Face hub's file layout
// (CAIRN_HUB_URL points the app at it): the list with sizes, languages and speed; a hub model downloaded with
// progress, saved to config.toml and the index rebuilt with it; a download cancelled half-way and resumed; and,
// with the hub gone, "offline" said at once while the current model stays.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeTinyModel } from '../scripts/models/make-tiny-model.ts';
import { openBrowser, screenshot, type BrowserSession } from './support/browser.ts';
import { startServe, type ServeProcess } from './support/cairnServe.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';

const TINY = 'cairn-test/tiny-hub';
const SLOW = 'cairn-test/slow-hub';
const ONNX = 'onnx/model_quantized.onnx';

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let hub: Server;
const requests: Array<{ url: string; range?: string }> = [];
/** While set, the slow model's weights stop after their first 2,000 bytes (until the connection is dropped). */
let stallSlow = true;
const stalled: ServerResponse[] = [];

async function serveHub(req: IncomingMessage, res: ServerResponse) {
  requests.push({ url: req.url ?? '', range: req.headers.range });
  const match = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
  const body = match ? await readFile(path.join(workspace.root, 'hub', match[1], match[2])).catch(() => undefined) : undefined;
  if (!body) return void res.writeHead(404, { 'content-length': 0 }).end();
  const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
  const rest = body.subarray(start);
  res.writeHead(start > 0 ? 206 : 200, {
    'content-length': rest.length,
    ...(start > 0 ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
  });
  if (match![1] === SLOW && match![2] === ONNX && stallSlow) {
    res.write(rest.subarray(0, 2000));
    stalled.push(res);
  } else {
    res.end(rest);
  }
}

describe('choosing the embedding model in Settings', { timeout: 240_000 }, () => {
  before(async () => {
    workspace = await createWorkspace();
    for (const id of [TINY, SLOW]) await writeTinyModel(path.join(workspace.root, 'hub', id), { variants: ['q8'] });
    hub = createServer((req, res) => void serveHub(req, res));
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
    // The one place the app reads its hub address from (core/embedding/modelDownload.ts defaultHubUrl).
    process.env.CAIRN_HUB_URL = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`;
    server = await startServe(workspace);
    browser = await openBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    for (const res of stalled) res.destroy();
    hub?.closeAllConnections();
    hub?.close();
    delete process.env.CAIRN_HUB_URL;
    await workspace?.remove();
  });

  test('lists the models with size, languages and speed; a hub model downloads, is saved and the index rebuilds with it', async () => {
    const { page } = browser;
    await page.goto(server.url);
    await page.getByTestId('status-model').filter({ hasText: 'cairn-retrieval-100d' }).waitFor({ timeout: 90_000 });
    await page.getByTestId('settings-button').click();
    const picker = page.getByTestId('model-picker');
    await picker.waitFor();
    for (const id of ['cairn-glove-100d', 'cairn-retrieval-100d', 'Xenova/bge-small-en-v1.5', 'Xenova/all-MiniLM-L6-v2', 'Xenova/multilingual-e5-small']) {
      await picker.getByTestId(`model-choice-${id}`).waitFor();
    }
    assert.match(await picker.getByTestId('model-choice-Xenova/multilingual-e5-small').innerText(), /135 MB download.*about 100 languages.*12 layers.*query: /s);
    assert.match(await picker.getByTestId('model-choice-cairn-retrieval-100d').innerText(), /in use/i);
    assert.equal(await page.getByTestId('option-embedding.model').count(), 0, 'no free-text model field');
    await screenshot(page, 'model-picker');

    await picker.getByTestId('model-other-id').fill(TINY);
    await picker.getByTestId('model-use').click();
    await picker.getByTestId('model-outcome').filter({ hasText: `Now using ${TINY}` }).waitFor({ timeout: 60_000 });
    assert.ok(requests.some((r) => r.url === `/${TINY}/resolve/main/${ONNX}`), 'the weights came from the local hub');
    assert.match(await readFile(workspace.configFile, 'utf8'), /^model = "cairn-test\/tiny-hub"/m);
    await picker.getByTestId(`model-choice-${TINY}`).filter({ hasText: /in use/i }).waitFor();
    await page.getByTestId('status-model').filter({ hasText: 'tiny-hub' }).waitFor({ timeout: 120_000 });
    await screenshot(page, 'model-picker-chosen');
    assert.deepEqual(browser.pageErrors, []);
  });

  test('a download shows its progress, can be cancelled, and resumes where it stopped', async () => {
    const { page } = browser;
    if (!(await page.getByTestId('model-picker').isVisible())) await page.getByTestId('settings-button').click();
    const picker = page.getByTestId('model-picker');
    await picker.getByTestId('model-other-id').fill(SLOW);
    await picker.getByTestId('model-use').click();
    const progress = picker.getByTestId('model-download-progress');
    await progress.filter({ hasText: `Downloading ${SLOW}: ${ONNX} (4 of 5)` }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'model-download-progress');
    await picker.getByTestId('model-cancel').click();
    await picker.getByTestId('model-outcome').filter({ hasText: 'cancelled' }).waitFor({ timeout: 10_000 });
    assert.match(await readFile(workspace.configFile, 'utf8'), /^model = "cairn-test\/tiny-hub"/m, 'the model in force stays');

    stallSlow = false;
    requests.length = 0;
    await picker.getByTestId('model-use').click();
    await picker.getByTestId('model-outcome').filter({ hasText: `Now using ${SLOW}` }).waitFor({ timeout: 60_000 });
    assert.equal(requests.find((r) => r.url.endsWith(`${SLOW}/resolve/main/${ONNX}`))?.range, 'bytes=2000-', 'resumed, not restarted');
    assert.ok(!requests.some((r) => r.url.endsWith(`${SLOW}/resolve/main/config.json`)), 'finished files are not fetched again');
  });

  test('offline: says so at once and keeps the current model', async () => {
    const { page } = browser;
    hub.closeAllConnections();
    await new Promise<void>((resolve) => hub.close(() => resolve()));
    const picker = page.getByTestId('model-picker');
    await picker.getByTestId('model-choice-Xenova/bge-small-en-v1.5').click();
    const started = Date.now();
    await picker.getByTestId('model-use').click();
    await picker.getByTestId('model-outcome').filter({ hasText: 'offline' }).waitFor({ timeout: 10_000 });
    assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`);
    assert.match(await picker.getByTestId('model-outcome').innerText(), /current model stays in use/);
    await screenshot(page, 'model-picker-offline');
    assert.match(await readFile(workspace.configFile, 'utf8'), /^model = "cairn-test\/slow-hub"/m);
  });
});
