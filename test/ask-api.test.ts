/**
 * ask() as the app reaches it: the shared argument validation (HTTP and Electron IPC), and the real CairnService
 * answering, with a language model's answer streaming as `answer-token` events tagged with the request's id. The
 * model is a small OpenAI-compatible server on 127.0.0.1 (the edge of the system, so a double here).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AppEvent } from '../core/contract/appApi.js';
import { startHttpServer, type RunningHttpServer } from '../core/server/httpServer.js';
import { ApiArgumentError } from '../core/contract/validation.js';
import { validateApiCall } from '../core/server/hostValidation.js';
import { CairnService } from '../core/app/index.js';
import { LoopbackServer } from './support/loopbackServer.js';

const QUESTION = 'How often does the cactus need water in winter?';
const PIECES = ['The cactus ', 'needs water ', 'once a month ', 'in winter [1].'];

describe('ask: argument validation shared by HTTP and IPC', () => {
  it('accepts a question with its optional k and mode, unchanged', () => {
    assert.deepEqual(validateApiCall('ask', [{ question: QUESTION, requestId: 'a1' }]), { method: 'ask', args: [{ question: QUESTION, requestId: 'a1' }] });
    for (const mode of ['auto', 'extractive', 'llm']) {
      assert.deepEqual(validateApiCall('ask', [{ question: 'Why?\nAnd how?', k: 50, mode, requestId: '0b6f3c1e-8a1d-4c2e-9f0a-1234567890ab' }]).args, [
        { question: 'Why?\nAnd how?', k: 50, mode, requestId: '0b6f3c1e-8a1d-4c2e-9f0a-1234567890ab' },
      ]);
    }
    assert.equal(validateApiCall('ask', [{ question: 'x'.repeat(2000), k: 1, requestId: 'r' }]).method, 'ask');
  });

  it('refuses a bad question, mode, k or request id, and anything else in the request', () => {
    const bad: unknown[] = [
      // question: a non-empty string of at most 2,000 characters
      { requestId: 'r' },
      { question: '', requestId: 'r' },
      { question: ' \n\t ', requestId: 'r' },
      { question: 42, requestId: 'r' },
      { question: ['why'], requestId: 'r' },
      { question: 'x'.repeat(2001), requestId: 'r' },
      { question: 'why\u0000', requestId: 'r' },
      // mode: auto, extractive or llm
      { question: 'why', requestId: 'r', mode: 'hybrid' },
      { question: 'why', requestId: 'r', mode: 'LLM' },
      { question: 'why', requestId: 'r', mode: null },
      // k: a whole number from 1 to 50
      { question: 'why', requestId: 'r', k: 0 },
      { question: 'why', requestId: 'r', k: 51 },
      { question: 'why', requestId: 'r', k: 2.5 },
      { question: 'why', requestId: 'r', k: '5' },
      // requestId: a short token
      { question: 'why' },
      { question: 'why', requestId: '' },
      { question: 'why', requestId: 7 },
      { question: 'why', requestId: 'x'.repeat(65) },
      { question: 'why', requestId: '<script>' },
      // nothing else
      { question: 'why', requestId: 'r', model: 'gpt' },
      'why',
      null,
    ];
    for (const request of bad) assert.throws(() => validateApiCall('ask', [request]), ApiArgumentError, JSON.stringify(request)?.slice(0, 80));
    assert.throws(() => validateApiCall('ask', []), ApiArgumentError);
    assert.throws(() => validateApiCall('ask', [{ question: 'why', requestId: 'r' }, 'extra']), ApiArgumentError);
  });
});

/** An OpenAI-compatible chat endpoint that streams PIECES with a pause between them, and records what it got. */
class StreamingChatServer {
  requests = 0;
  /** When the last piece was written; 0 while streaming. */
  finishedAt = 0;
  port = 0;
  private readonly loopback = new LoopbackServer((req, res) => this.handle(req, res));

  async start(): Promise<void> {
    this.port = await this.loopback.start();
  }

  stop(): Promise<void> {
    return this.loopback.stop();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    for await (const chunk of req) void chunk;
    this.requests++;
    this.finishedAt = 0;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    for (const piece of PIECES) {
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    this.finishedAt = Date.now();
    res.end('data: [DONE]\n\n');
  }
}

describe('CairnService.ask', { timeout: 90_000 }, () => {
  const llm = new StreamingChatServer();
  let root: string;
  let service: CairnService;
  const events: Array<{ event: AppEvent; streaming: boolean }> = [];
  const tokensOf = (requestId: string) => events.flatMap(({ event }) => (event.type === 'answer-token' && event.requestId === requestId ? [event.token] : []));

  before(async () => {
    await llm.start();
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-ask-api-'));
    const vault = path.join(root, 'vault');
    await mkdir(vault);
    await writeFile(
      path.join(vault, 'Houseplants.md'),
      '# Houseplants\n\n## Watering\n\nThe fern likes damp soil and gets water twice a week.\nThe cactus needs water only once a month in winter, when it rests.\n\n## Light\n\n- The fern prefers indirect light.\n- The cactus wants full sun.\n',
    );
    await writeFile(path.join(vault, 'Music.md'), '# Music\n\nPractice scales slowly with a metronome before playing the piece at full tempo on the piano.\n');
    const configFile = path.join(root, 'config.toml');
    await writeFile(configFile, `[vault]\npath = "vault"\n\n[index]\ndata_dir = "data"\n\n[answer]\nmode = "auto"\n\n[llm]\nbase_url = "http://127.0.0.1:${llm.port}/v1"\nmodel = "test-model"\ntimeout_seconds = 5\n`);
    service = await CairnService.start({ configFile, watch: false, listener: (event) => events.push({ event, streaming: llm.finishedAt === 0 }) });
  });

  after(async () => {
    await service?.close();
    await llm.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('streams the model answer as answer-token events with the request id, then returns the checked answer', async () => {
    const answer = await service.ask({ question: QUESTION, requestId: 'llm-1' });
    assert.deepEqual(tokensOf('llm-1'), PIECES);
    const first = events.find(({ event }) => event.type === 'answer-token')!;
    assert.ok(first.streaming, 'the first token reached subscribers while the model was still writing');
    assert.equal(answer.mode, 'llm');
    assert.equal(answer.answer, PIECES.join(''));
    assert.equal(answer.confident, true);
    assert.deepEqual(
      answer.citations.map(({ n, path: notePath, headerPath }) => ({ n, notePath, headerPath })),
      [{ n: 1, notePath: 'Houseplants.md', headerPath: ['Houseplants', 'Watering'] }],
    );
    assert.ok(answer.citations[0].startLine <= 6 && answer.citations[0].endLine >= 6, 'the citation covers the line that answers');
    assert.ok(answer.sources.length >= 1);
    // The answer crosses the api as JSON.
    assert.deepEqual(JSON.parse(JSON.stringify(answer)), answer);
  });

  it('concurrent questions keep their tokens apart', async () => {
    await Promise.all([service.ask({ question: QUESTION, requestId: 'a' }), service.ask({ question: QUESTION, requestId: 'b' })]);
    assert.deepEqual(tokensOf('a'), PIECES);
    assert.deepEqual(tokensOf('b'), PIECES);
  });

  it('an extractive answer (per request, or from a saved [answer] mode) streams nothing and asks no model', async () => {
    const before = llm.requests;
    const answer = await service.ask({ question: QUESTION, mode: 'extractive', k: 3, requestId: 'ex-1' });
    assert.equal(answer.mode, 'extractive');
    assert.match(answer.answer, /once a month in winter/);
    assert.equal(answer.citations[0].path, 'Houseplants.md');
    assert.deepEqual(tokensOf('ex-1'), []);
    // Settings saved from the app apply to the next question, without reopening the vault.
    assert.deepEqual(await service.saveConfigValues({ 'answer.mode': 'extractive' }), { ok: true });
    assert.equal((await service.ask({ question: QUESTION, requestId: 'ex-2' })).mode, 'extractive');
    assert.deepEqual(tokensOf('ex-2'), []);
    assert.equal(llm.requests, before);
    assert.deepEqual(await service.saveConfigValues({ 'answer.mode': 'auto' }), { ok: true });
  });

  it('over HTTP, the tokens arrive on the event stream before the answer returns', async () => {
    const staticDir = path.join(root, 'static');
    await mkdir(staticDir, { recursive: true });
    await writeFile(path.join(staticDir, 'index.html'), '<!doctype html>');
    const server: RunningHttpServer = await startHttpServer({ api: service, staticDir, port: 0 });
    try {
      const streamed: Array<{ token: string; answered: boolean }> = [];
      let answered = false;
      const stream = http.get({ host: '127.0.0.1', port: server.port, path: `/api/events?token=${server.token}`, headers: { host: `127.0.0.1:${server.port}` } });
      const [response] = (await once(stream, 'response')) as [http.IncomingMessage];
      let buffer = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          const event = data ? (JSON.parse(data.slice(6)) as AppEvent) : null;
          if (event?.type === 'answer-token' && event.requestId === 'http-1') streamed.push({ token: event.token, answered });
        }
      });
      const reply = await fetch(`http://127.0.0.1:${server.port}/api/ask`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Cairn-Token': server.token },
        body: JSON.stringify([{ question: QUESTION, mode: 'llm', requestId: 'http-1' }]),
      });
      answered = true;
      assert.equal(reply.status, 200);
      const { result } = (await reply.json()) as { result: { answer: string; citations: Array<{ n: number }> } };
      assert.equal(result.answer, PIECES.join(''));
      assert.deepEqual(result.citations.map((c) => c.n), [1]);
      assert.deepEqual(streamed.map((s) => s.token), PIECES);
      assert.ok(streamed.every((s) => !s.answered), 'every token came before the answer');
      const refused = await fetch(`http://127.0.0.1:${server.port}/api/ask`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Cairn-Token': server.token },
        body: JSON.stringify([{ question: QUESTION, mode: 'oracle', requestId: 'http-2' }]),
      });
      assert.equal(refused.status, 400);
      assert.match(((await refused.json()) as { error: string }).error, /ask: mode/);
      stream.destroy();
    } finally {
      await server.close();
    }
  });
});
