// Ask mode end to end, in browser mode: the real `cairn serve` answering from a copy of the sample vault, driven
// through Debian's Chromium. First the offline (extractive) answer; then, with `[llm] base_url` pointing at a small
// OpenAI-compatible server on 127.0.0.1 started here (the one double: the edge of the system), an answer that
// streams in while the server is still writing it. Tests run in order and share one server and page.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openBrowser, screenshot, type BrowserSession } from './support/browser.ts';
import { startServe, type ServeProcess } from './support/cairnServe.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';
import { LoopbackServer } from '../test/support/loopbackServer.js';

const QUESTION = 'What does overlap_chars do?';

/** The streamed reply: the first pieces, a pause the test controls, then the rest (with a marker naming no source). */
const FIRST_PIECES = ['`overlap_chars` is ', 'how many characters ', 'a split section repeats '];
const LAST_PIECES = ['between its pieces [1], ', 'so that a sentence cut at a boundary ', 'keeps its context [1][2]. ', 'See also [9].'];

type Behaviour = 'stream' | 'http-500' | 'no-citation';

/** An OpenAI-compatible chat endpoint whose replies the test scripts. */
class ScriptedChatServer {
  behaviour: Behaviour = 'stream';
  requests = 0;
  /** What the last request asked. */
  last: { url: string; body: { messages: Array<{ role: string; content: string }>; stream?: boolean } } = { url: '', body: { messages: [] } };
  /** True from the first streamed piece until the last one is written. */
  streaming = false;
  port = 0;
  private release: () => void = () => {};
  private held: Promise<void> = Promise.resolve();
  private readonly loopback = new LoopbackServer((req, res) => this.handle(req, res));

  async start(): Promise<void> {
    this.port = await this.loopback.start();
  }

  stop(): Promise<void> {
    this.release();
    return this.loopback.stop();
  }

  /** The next streamed reply pauses after FIRST_PIECES until resume() (or 30 s, so nothing hangs for ever). */
  hold(): void {
    this.held = new Promise<void>((resolve) => {
      this.release = resolve;
      setTimeout(resolve, 30_000).unref();
    });
  }

  resume(): void {
    this.release();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    this.requests++;
    this.last = { url: req.url ?? '', body: JSON.parse(body) as ScriptedChatServer['last']['body'] };
    const write = (content: string) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`);
    if (this.behaviour === 'http-500') {
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the model is still loading' } }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    if (this.behaviour === 'no-citation') {
      // No source cited: the notes did not answer. The markup must reach the page as text, never as HTML.
      write('The sources say nothing about the capital of Peru. <img src=x onerror="window.__pwned=1">');
      res.end('data: [DONE]\n\n');
      return;
    }
    this.streaming = true;
    for (const piece of FIRST_PIECES) {
      write(piece);
      await delay(150);
    }
    await this.held;
    for (const piece of LAST_PIECES) {
      write(piece);
      await delay(150);
    }
    this.streaming = false;
    res.end('data: [DONE]\n\n');
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

let workspace: Workspace;
let server: ServeProcess;
let browser: BrowserSession;
let page: Page;
const llm = new ScriptedChatServer();

async function ask(question: string): Promise<void> {
  const input = page.getByTestId('search-input');
  await input.fill(question);
  await input.press('Enter');
}

/** "lines 12–14" of a source or passage button, as numbers. */
async function linesOf(item: Locator): Promise<[number, number]> {
  // "line 7" for a one-line passage.
  const match = /lines? (\d+)(?:–(\d+))?/.exec((await item.locator('.passage-meta').textContent()) ?? '');
  assert.ok(match, 'the passage names its lines');
  return [Number(match[1]), Number(match[2] ?? match[1])];
}

/** The note on the right is `path`, with exactly the blocks overlapping lines a–b highlighted, and says so. */
async function assertNoteShowsLines(path: string, [startLine, endLine]: [number, number]): Promise<void> {
  const note = page.getByTestId('note-view');
  await note.locator('.note-meta', { hasText: path }).waitFor();
  await page.getByTestId('cited-lines').filter({ hasText: startLine === endLine ? `cited line ${startLine}` : `cited lines ${startLine}–${endLine}` }).waitFor();
  // The outermost highlighted blocks: top-level ones, or inside a list or an outline, the items cited.
  const cited = note.locator('.note-body .cited:not(.cited .cited)');
  await cited.first().waitFor();
  for (const block of await cited.all()) {
    const start = Number(await block.getAttribute('data-source-line'));
    const end = Number(await block.getAttribute('data-source-end'));
    assert.ok(start <= endLine && end >= startLine, `highlighted block ${start}-${end} is outside the cited lines ${startLine}-${endLine}`);
  }
  // Every cited line is in a highlighted block (when it holds text).
  const covered = await note.locator('.note-body [data-source-line]').evaluateAll((blocks, [a, b]) => {
    const lines = new Set<number>();
    for (const block of blocks) {
      if (!block.classList.contains('cited') && !block.closest('.cited')) continue;
      for (let line = Math.max(a, Number(block.getAttribute('data-source-line'))); line <= Math.min(b, Number(block.getAttribute('data-source-end'))); line++) lines.add(line);
    }
    return lines.size;
  }, [startLine, endLine]);
  assert.ok(covered > 0, 'the cited lines are highlighted');
  // The first highlighted block is scrolled into the visible part of the note pane.
  const pane = (await page.locator('.note-scroll').boundingBox())!;
  const box = (await cited.first().boundingBox())!;
  assert.ok(box.y >= pane.y && box.y < pane.y + pane.height, 'the cited lines are in view');
}

describe('Ask mode in the browser', { timeout: 170_000 }, () => {
  before(async () => {
    await llm.start();
    workspace = await createWorkspace();
    server = await startServe(workspace);
    browser = await openBrowser();
    page = browser.page;
    await page.goto(server.url);
    await page.getByTestId('status-line').waitFor({ timeout: 60_000 });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await llm.stop();
    await workspace?.remove();
  });

  test('asks on Enter and answers from the notes; a [n] marker opens the note at the cited lines', async () => {
    await page.getByRole('tab', { name: 'Ask' }).click();
    await page.getByTestId('search-input').fill(QUESTION);
    assert.equal(await page.getByTestId('ask-panel').count(), 0, 'nothing is asked before Enter');
    await page.getByTestId('search-input').press('Enter');
    await page.locator('[data-testid="ask-panel"][data-status="done"]').waitFor({ timeout: 30_000 });
    const text = page.getByTestId('answer-text');
    assert.match((await text.textContent()) ?? '', /overlap_chars/);
    assert.match((await page.getByTestId('answer-mode').textContent()) ?? '', /Quoted from your notes/);
    assert.equal(await page.getByTestId('answer-notice').count(), 0, 'no model was asked, so no notice');
    const markers = text.getByTestId('citation-marker');
    assert.ok((await markers.count()) >= 1, 'the answer cites its sources');
    // Every marker has its numbered source, which names the note, the heading path and the lines.
    const sources = page.getByTestId('answer-source');
    for (const marker of await markers.all()) {
      const n = await marker.getAttribute('data-n');
      assert.equal(await sources.and(page.locator(`[data-n="${n}"]`)).count(), 1, `source [${n}] is listed`);
    }
    const first = sources.first();
    assert.match((await first.textContent()) ?? '', /§|lines/);

    const n = await markers.first().getAttribute('data-n');
    const source = sources.and(page.locator(`[data-n="${n}"]`));
    const lines = await linesOf(source);
    const path = (await source.locator('.path').textContent())!;
    await markers.first().click();
    await assertNoteShowsLines(path, lines);
    assert.match((await markers.first().getAttribute('class')) ?? '', /active/, 'the marker of the open passage is marked');
    assert.match((await source.getAttribute('class')) ?? '', /open/);
    await screenshot(page, 'ask-answer');

    // The sources list opens the same way.
    const last = sources.last();
    const lastLines = await linesOf(last);
    const lastPath = (await last.locator('.path').textContent())!;
    await last.click();
    await assertNoteShowsLines(lastPath, lastLines);
  });

  test('a question the notes do not answer says so plainly and lists the closest passages', async () => {
    await ask('What is the capital of Peru?');
    await page.locator('[data-testid="ask-panel"][data-status="done"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('not-answered').filter({ hasText: 'Your notes don’t seem to answer this.' }).waitFor();
    assert.equal(await page.getByTestId('answer-text').count(), 0);
    assert.equal(await page.getByTestId('answer-sources').count(), 0, 'passages that do not answer are not called sources');
    const closest = page.getByTestId('closest-passage');
    assert.ok((await closest.count()) >= 1);
    const lines = await linesOf(closest.first());
    const path = (await closest.first().locator('.path').textContent())!;
    await closest.first().click();
    await assertNoteShowsLines(path, lines);
    await screenshot(page, 'ask-not-answered');
  });

  test('with [llm] base_url set, the answer streams in while the model writes, then its markers open the cited lines', async () => {
    const config = await readFile(workspace.configFile, 'utf8');
    assert.match(config, /^base_url = ""$/m);
    await writeFile(workspace.configFile, config.replace(/^base_url = ""$/m, `base_url = "http://127.0.0.1:${llm.port}/v1"`));
    await page.getByTestId('toast-info').filter({ hasText: 'Settings applied.' }).waitFor({ timeout: 20_000 });

    llm.behaviour = 'stream';
    llm.hold();
    await ask(QUESTION);
    const streaming = page.getByTestId('answer-streaming');
    await streaming.filter({ hasText: FIRST_PIECES.join('').replaceAll('`', '').trim() }).waitFor({ timeout: 30_000 });
    // Partial text on screen while the model is still writing: it is paused mid-answer.
    assert.equal(llm.streaming, true, 'the server is still streaming');
    assert.equal(await page.getByTestId('ask-panel').getAttribute('data-status'), 'streaming');
    assert.ok(!((await streaming.textContent()) ?? '').includes('between its pieces'), 'the rest is not written yet');
    assert.equal(await page.getByTestId('answer-text').count(), 0, 'the final answer is not there yet');
    await screenshot(page, 'ask-llm-streaming');

    llm.resume();
    await streaming.filter({ hasText: 'between its pieces' }).waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="ask-panel"][data-status="done"]').waitFor({ timeout: 30_000 });
    assert.equal(llm.streaming, false);
    assert.equal(llm.last.url, '/v1/chat/completions');
    assert.equal(llm.last.body.stream, true);
    assert.ok(llm.last.body.messages.at(-1)?.content.endsWith(`Question: ${QUESTION}`), 'the question was asked with its numbered sources');
    const text = page.getByTestId('answer-text');
    assert.equal(
      ((await text.textContent()) ?? '').replace(/\s+/g, ' ').trim(),
      'overlap_chars is how many characters a split section repeats between its pieces 1, so that a sentence cut at a boundary keeps its context 12. See also.',
    );
    assert.match((await page.getByTestId('answer-mode').textContent()) ?? '', /Written by the language model from \d+ passages/);
    assert.match((await page.getByTestId('dropped-citations').textContent()) ?? '', /\[9\], which names no source/);
    const markers = text.getByTestId('citation-marker');
    assert.deepEqual(await markers.evaluateAll((els) => els.map((el) => el.getAttribute('data-n'))), ['1', '1', '2']);
    const sources = page.getByTestId('answer-source');
    assert.deepEqual(await sources.evaluateAll((els) => els.map((el) => el.getAttribute('data-n'))), ['1', '2']);

    const source = sources.nth(1);
    const lines = await linesOf(source);
    const path = (await source.locator('.path').textContent())!;
    await markers.nth(2).click();
    await assertNoteShowsLines(path, lines);
    assert.match((await markers.nth(2).getAttribute('class')) ?? '', /active/);
    await screenshot(page, 'ask-llm-answer');
  });

  test('a model that cites nothing has not answered: its words are shown as text, with the closest passages', async () => {
    llm.behaviour = 'no-citation';
    await ask('What is the capital of Peru?');
    await page.locator('[data-testid="ask-panel"][data-status="done"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('not-answered').filter({ hasText: 'Your notes don’t seem to answer this.' }).waitFor();
    assert.match((await page.getByTestId('model-reply').textContent()) ?? '', /nothing about the capital of Peru\. <img src=x onerror=/);
    assert.equal(await page.getByTestId('model-reply').locator('img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.ok((await page.getByTestId('closest-passage').count()) >= 1);
  });

  test('a model that fails is named in a notice, and the answer is quoted from the notes', async () => {
    llm.behaviour = 'http-500';
    const before = llm.requests;
    await ask(QUESTION);
    await page.locator('[data-testid="ask-panel"][data-status="done"]').waitFor({ timeout: 30_000 });
    assert.equal(llm.requests, before + 1);
    const notice = (await page.getByTestId('answer-notice').textContent()) ?? '';
    assert.match(notice, /^The language model could not answer \(.*HTTP 500.*the model is still loading.*\); this answer is quoted from your notes\.$/);
    assert.match((await page.getByTestId('answer-mode').textContent()) ?? '', /Quoted from your notes/);
    assert.ok((await page.getByTestId('answer-text').getByTestId('citation-marker').count()) >= 1);
  });

  test('the dark theme: the answer stays legible', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const card = page.getByTestId('answer');
    const [background, color] = await card.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
    assert.notEqual(background, 'rgb(255, 255, 255)');
    assert.notEqual(background, color);
    await screenshot(page, 'ask-answer-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('a question the api refuses shows why, in place of the answer', async () => {
    await ask(`Why ${'so '.repeat(700)}?`);
    const error = page.getByTestId('answer-error');
    await error.waitFor({ timeout: 10_000 });
    assert.match((await error.textContent()) ?? '', /Cairn could not answer: ask: question: longer than 2000 characters/);
    assert.equal(await page.getByTestId('ask-panel').getAttribute('data-status'), 'failed');
  });

  test('the page itself raised no errors', () => {
    // The one expected console error: the 400 of the refused question. The image in the model's reply was text,
    // so not even a failed image load.
    const unexpected = browser.pageErrors.filter((e) => !/status of 400/.test(e));
    assert.deepEqual(unexpected, []);
  });
});
