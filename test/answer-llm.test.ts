/**
 * LLM answers against a small OpenAI-compatible server on 127.0.0.1 (the edge of the system, so a double here):
 * streaming, citation checking, and every way the endpoint can fail falling back to the extractive answer.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { checkCitations } from '../core/answer/citationCheck.js';
import { answerQuestion, type Answer } from '../core/answer/index.js';
import { sseData } from '../core/answer/sseEvents.js';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig, type CairnConfig } from '../core/config/schema.js';
import { LoopbackServer } from './support/loopbackServer.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY_ENV = 'CAIRN_TEST_LLM_KEY';
const KEY = 'sk-test-5ecret-never-shown';
const QUESTION = 'How often does the cactus need water in winter?';

type Behaviour = 'stream' | 'bad-citation' | 'http-500' | 'stall' | 'stall-after-first' | 'json';

interface Seen {
  authorization?: string;
  url?: string;
  body?: { model?: string; messages: Array<{ role: string; content: string }>; stream?: boolean; [key: string]: unknown };
}

/** The server: its behaviour is set per test; it records what it was sent. */
class FakeChatServer {
  behaviour: Behaviour = 'stream';
  requests: Seen[] = [];
  /** Set when the last streamed piece has been written. */
  finishedAt = 0;
  private readonly loopback = new LoopbackServer((req, res) => this.handle(req, res));
  port = 0;

  async start(): Promise<void> {
    this.port = await this.loopback.start();
  }

  stop(): Promise<void> {
    return this.loopback.stop();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += chunk;
    this.requests.push({ authorization: req.headers.authorization, url: req.url, body: JSON.parse(text) });
    const event = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
    const sse = () => res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    // A second address on the same server always fails, so two CLI runs can go at once.
    switch (req.url?.startsWith('/failing/') ? 'http-500' : this.behaviour) {
      case 'stream':
      case 'bad-citation': {
        const pieces = this.behaviour === 'stream' ? ['The cactus ', 'needs water ', 'once a month ', 'in winter [1].'] : ['Once a month [1][9], ', 'see also [2, 9].'];
        sse();
        res.write(': keep-alive comment\n\n');
        for (const piece of pieces) {
          res.write(event(piece));
          await delay(40);
        }
        this.finishedAt = Date.now();
        res.end('data: [DONE]\n\n');
        return;
      }
      case 'json':
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'Once a month [1].' } }] }));
        return;
      case 'http-500':
        // A careless server echoing the request's header: the key must still never reach the user.
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `model crashed while loading (auth was ${req.headers.authorization})` } }));
        return;
      case 'stall':
        return; // never answers
      case 'stall-after-first':
        sse();
        res.write(event('The cactus '));
        return; // then silence
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function makeVault(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'Houseplants.md'),
    '# Houseplants\n\n## Watering\n\nThe fern likes damp soil and gets water twice a week.\nThe cactus needs water only once a month in winter, when it rests.\n\n## Light\n\n- The fern prefers indirect light.\n- The cactus wants full sun.\n',
  );
  await writeFile(path.join(dir, 'Music.md'), '# Music\n\nPractice scales slowly with a metronome before playing the piece at full tempo on the piano.\n');
  await writeFile(path.join(dir, 'Travel.md'), '# Travel\n\nThe train from the coast to the mountains leaves at dawn; book a window seat to see the valleys.\n');
}

/** Nothing of the key in anything the user can see. */
function assertNoKey(value: unknown): void {
  assert.ok(!JSON.stringify(value).includes(KEY), 'the API key leaked into the output');
}

function assertFellBack(answer: Answer, reason: RegExp): void {
  assert.equal(answer.mode, 'extractive');
  assert.equal(answer.fallback, true);
  assert.match(answer.llmError ?? '', reason);
  assert.match(answer.answer, /once a month in winter/, 'the extractive answer is given instead');
  assertNoKey(answer);
}

describe('LLM answers through an OpenAI-compatible endpoint', { timeout: 60_000 }, () => {
  const server = new FakeChatServer();
  let root: string;
  let vaultDir: string;
  let vault: CairnVault;
  let config: CairnConfig;

  before(async () => {
    process.env[KEY_ENV] = KEY;
    await server.start();
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-answer-llm-'));
    vaultDir = path.join(root, 'vault');
    await makeVault(vaultDir);
    config = defaultConfig();
    config.vault.path = vaultDir;
    config.index.data_dir = path.join(root, 'data');
    vault = await CairnVault.open(config);
    await vault.index();
  });
  after(async () => {
    delete process.env[KEY_ENV];
    await vault?.close();
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    // The vault reads its config at each question, as the app does when config.toml changes.
    Object.assign(config.llm, { base_url: `http://127.0.0.1:${server.port}/v1`, model: 'test-model', api_key_env: KEY_ENV, timeout_seconds: 5, max_context_chunks: 3 });
    config.answer.mode = 'auto';
  });

  it('streams tokens in order as they arrive, and sends only the question and numbered sources', async () => {
    server.behaviour = 'stream';
    const tokens: Array<{ token: string; before: boolean }> = [];
    const answer = await answerQuestion(vault, QUESTION, {}, (token) => tokens.push({ token, before: server.finishedAt === 0 }));
    assert.deepEqual(tokens.map((t) => t.token), ['The cactus ', 'needs water ', 'once a month ', 'in winter [1].']);
    assert.ok(tokens[0].before, 'the first token arrived before the server finished');
    assert.equal(answer.mode, 'llm');
    assert.equal(answer.answer, 'The cactus needs water once a month in winter [1].');
    assert.equal(answer.confident, true);
    assert.equal(answer.citations.length, 1);
    const [citation] = answer.citations;
    assert.equal(citation.n, 1);
    assert.equal(citation.path, 'Houseplants.md');
    assert.equal(citation.chunkId, answer.sources[0].chunkId);

    const request = server.requests.at(-1)!;
    assert.equal(request.url, '/v1/chat/completions');
    assert.equal(request.authorization, `Bearer ${KEY}`, 'the key from the env var is sent as a Bearer token');
    assert.deepEqual(Object.keys(request.body!).sort(), ['messages', 'model', 'stream']);
    assert.equal(request.body!.stream, true);
    const user = request.body!.messages.find((m) => m.role === 'user')!.content;
    assert.match(user, /^Sources:\n\n\[1\] Houseplants § Watering \(lines 1-11\)\n# Houseplants\n[^]*The cactus needs water only once a month[^]*\n\n\[2\] /);
    assert.ok(user.endsWith(`Question: ${QUESTION}`));
    assert.ok(!user.includes(vaultDir) && !user.includes(root), 'no local paths are sent');
    assertNoKey(answer);
  });

  it('drops a marker that names no source and flags it', async () => {
    server.behaviour = 'bad-citation';
    const answer = await answerQuestion(vault, QUESTION);
    assert.equal(answer.mode, 'llm');
    assert.deepEqual(answer.droppedCitations, [9]);
    assert.equal(answer.answer, 'Once a month [1], see also [2].');
    assert.deepEqual(answer.citations.map((c) => c.n), [1, 2]);
  });

  it('reads a server that ignores stream: true and answers with one JSON object', async () => {
    server.behaviour = 'json';
    const tokens: string[] = [];
    const answer = await answerQuestion(vault, QUESTION, {}, (t) => tokens.push(t));
    assert.equal(answer.answer, 'Once a month [1].');
    assert.deepEqual(tokens, ['Once a month [1].']);
  });

  it('an HTTP 500 falls back to the extractive answer with the reason', async () => {
    server.behaviour = 'http-500';
    assertFellBack(await answerQuestion(vault, QUESTION), /HTTP 500 Internal Server Error: model crashed while loading/);
  });

  it('a server that never answers times out and falls back', async () => {
    server.behaviour = 'stall';
    config.llm.timeout_seconds = 0.3;
    assertFellBack(await answerQuestion(vault, QUESTION), /no reply from test-model at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 0\.3 s/);
  });

  it('a server that stalls between tokens times out and falls back, after the tokens it sent', async () => {
    server.behaviour = 'stall-after-first';
    config.llm.timeout_seconds = 0.3;
    const tokens: string[] = [];
    const answer = await answerQuestion(vault, QUESTION, {}, (t) => tokens.push(t));
    assert.deepEqual(tokens, ['The cactus ']);
    assertFellBack(answer, /stopped sending for 0\.3 s/);
  });

  it('an unreachable endpoint falls back', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    config.llm.base_url = `http://127.0.0.1:${port}/v1`;
    assertFellBack(await answerQuestion(vault, QUESTION), /cannot reach .*connection refused/);
  });

  it('a missing key variable is reported, and nothing is sent', async () => {
    config.llm.api_key_env = 'CAIRN_TEST_NO_SUCH_VARIABLE';
    const before = server.requests.length;
    assertFellBack(await answerQuestion(vault, QUESTION), /CAIRN_TEST_NO_SUCH_VARIABLE .* is not set/);
    assert.equal(server.requests.length, before);
  });

  it('sends nothing anywhere unless base_url is set, or in extractive mode', async () => {
    const before = server.requests.length;
    config.llm.base_url = '';
    const auto = await answerQuestion(vault, QUESTION);
    assert.equal(auto.mode, 'extractive');
    assert.equal(auto.fallback, undefined);
    const forced = await answerQuestion(vault, QUESTION, { mode: 'llm' });
    assert.match(forced.llmError ?? '', /base_url is not set/);
    config.llm.base_url = `http://127.0.0.1:${server.port}/v1`;
    config.answer.mode = 'extractive';
    assert.equal((await answerQuestion(vault, QUESTION)).mode, 'extractive');
    assert.equal(server.requests.length, before);
  });

  it('cairn ask streams the answer and lists sources; --json gives the answer object; the key never shows', async () => {
    const configFor = async (name: string, base: string) => {
      const file = path.join(root, name);
      await writeFile(file, `[vault]\npath = "vault"\n\n[index]\ndata_dir = "data"\n\n[llm]\nbase_url = "http://127.0.0.1:${server.port}${base}"\nmodel = "test-model"\napi_key_env = "${KEY_ENV}"\n`);
      return file;
    };
    const run = promisify(execFile);
    const cli = path.join(REPO, 'bin', 'cairn');
    const env = { ...process.env, [KEY_ENV]: KEY };
    server.behaviour = 'stream';
    const [text, json] = await Promise.all([
      run(cli, ['ask', QUESTION, '--config', await configFor('streaming.toml', '/v1')], { env }),
      run(cli, ['ask', QUESTION, '--config', await configFor('failing.toml', '/failing/v1'), '--json', '--k', '3'], { env }),
    ]);

    assert.match(text.stdout, /^The cactus needs water once a month in winter \[1\]\.\n\nSources:\n\[1\] Houseplants\.md § Houseplants › Watering \(lines \d+-\d+\)\n/);
    assert.ok(!text.stdout.includes(KEY) && !text.stderr.includes(KEY));

    const parsed = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed).sort(), ['answer', 'citations', 'confident', 'fallback', 'llmError', 'mode']);
    assert.equal(parsed.mode, 'extractive');
    assert.match(String(parsed.llmError), /HTTP 500/);
    assert.deepEqual(Object.keys((parsed.citations as object[])[0]).sort(), ['chunkId', 'endLine', 'headerPath', 'n', 'path', 'startLine', 'title']);
    assert.ok(!json.stdout.includes(KEY) && !json.stderr.includes(KEY));
    assert.match(String(parsed.llmError), /\*\*\*/, 'the echoed key was blanked out');
  });
});

describe('citation check and SSE parsing', () => {
  it('keeps valid markers, drops and reports the rest, and leaves Markdown links alone', () => {
    assert.deepEqual(checkCitations('A [1]. B [3]. C [1; 4] and [link](x) [2](y).', 2), { text: 'A [1]. B. C [1] and [link](x) [2](y).', cited: [1], dropped: [3, 4] });
  });

  it('parses events split anywhere across network chunks, multi-byte characters included', async () => {
    const stream = 'data: {"a":"é"}\r\n\r\n: comment\n\ndata: one\ndata: two\n\ndata: [DONE]';
    const bytes = new TextEncoder().encode(stream);
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += 3) yield bytes.slice(i, i + 3);
    }
    const events: string[] = [];
    for await (const data of sseData(chunks())) events.push(data);
    assert.deepEqual(events, ['{"a":"é"}', 'one\ntwo', '[DONE]']);
  });
});
