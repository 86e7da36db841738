// Over 400 lines: the whole browser-mode contract (session, token, Host/Origin, routes, validation) in one place.
// The browser-mode HTTP server against a recording CairnApi (test/support/recordingApi.ts): who gets in (token, Host, Origin), what it sends
// (CSP, content types), and that api calls and events travel intact.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AppEvent } from '../core/contract/appApi.js';
import { PortInUseError, startHttpServer, type RunningHttpServer } from '../core/server/httpServer.js';
import { readCookie, sessionCookieName } from '../core/server/requestGuard.js';
import { CONTENT_SECURITY_POLICY } from '../core/server/securityHeaders.js';
import { StartingApi } from '../core/app/startingApi.js';
import { RecordingApi } from './support/recordingApi.js';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request (fetch may not set Host). */
function send(server: RunningHttpServer, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method: options.method ?? 'GET', path: options.path, headers: { host: `127.0.0.1:${server.port}`, ...options.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function call(server: RunningHttpServer, method: string, args: unknown, headers: Record<string, string> = {}) {
  return send(server, {
    method: 'POST',
    path: `/api/${method}`,
    headers: { 'content-type': 'application/json', 'x-cairn-token': server.token, ...headers },
    body: JSON.stringify(args),
  });
}

describe('browser-mode HTTP server', () => {
  const api = new RecordingApi();
  let server: RunningHttpServer;
  let staticDir: string;

  before(async () => {
    staticDir = await mkdtemp(path.join(tmpdir(), 'cairn-http-'));
    await mkdir(path.join(staticDir, 'assets'));
    await writeFile(path.join(staticDir, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script><link rel="stylesheet" href="/assets/app.css">');
    await writeFile(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
    await writeFile(path.join(staticDir, 'assets', 'app.css'), 'body{}');
    await writeFile(path.join(path.dirname(staticDir), 'cairn-http-secret.txt'), 'secret');
    server = await startHttpServer({ api, staticDir, port: 0 });
  });

  after(async () => {
    await server.close();
    await rm(staticDir, { recursive: true, force: true });
    await rm(path.join(path.dirname(staticDir), 'cairn-http-secret.txt'), { force: true });
  });

  test('binds to 127.0.0.1 only and prints a tokened URL', () => {
    assert.equal(server.address, '127.0.0.1');
    assert.match(server.url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[A-Za-z0-9_-]{20,}$`));
  });

  test('the page needs the token; served, its asset URLs carry it', async () => {
    assert.equal((await send(server, { path: '/' })).status, 403);
    assert.equal((await send(server, { path: '/?token=wrong' })).status, 403);
    const page = await send(server, { path: `/?token=${server.token}` });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.ok(page.body.includes(`src="/assets/app.js?token=${server.token}"`));
    assert.ok(page.body.includes(`href="/assets/app.css?token=${server.token}"`));
    assert.equal((await send(server, { path: '/assets/app.js' })).status, 403);
    const script = await send(server, { path: `/assets/app.js?token=${server.token}` });
    assert.equal(script.status, 200);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal((await send(server, { path: `/assets/app.css?token=${server.token}` })).headers['content-type'], 'text/css; charset=utf-8');
  });

  test('a bare URL, an old token or a foreign host name gets a page saying how to open the app, not JSON', async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      ['/', {}, 'no-token'],
      ['/index.html', {}, 'no-token'],
      ['/some/bookmarked/path', {}, 'no-token'],
      [`/?token=${'x'.repeat(server.token.length)}`, {}, 'wrong-token'],
      ['/', { cookie: `${sessionCookieName(server.port)}=from-an-earlier-run` }, 'wrong-token'],
      [`/?token=${server.token}`, { host: `0.0.0.0:${server.port}` }, 'host'],
    ];
    for (const [p, headers, kind] of cases) {
      const reply = await send(server, { path: p, headers });
      assert.equal(reply.status, 403, p);
      assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8', p);
      assert.equal(reply.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.equal(reply.headers['set-cookie'], undefined, p);
      assert.match(reply.body, new RegExp(`data-kind="${kind}"`), p);
      assert.match(reply.body, /Open the link that <code>cairn serve<\/code>/);
      assert.ok(!reply.body.includes(server.token), 'the page never carries the token');
      assert.ok(!/<script/i.test(reply.body), 'no script on the page');
    }
    assert.match((await send(server, { path: '/?token=old' })).body, /earlier run of Cairn/);
    // Api calls, assets and the event stream are still refused with a short JSON error.
    for (const p of ['/api/events', '/assets/app.js']) {
      const reply = await send(server, { path: p });
      assert.equal(reply.status, 403, p);
      assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8', p);
    }
    const head = await send(server, { method: 'HEAD', path: '/' });
    assert.equal(head.status, 403);
    assert.equal(head.body, '');
  });

  test('the printed URL sets an HttpOnly SameSite=Strict session cookie; with it a reload or a bookmark works', async () => {
    const page = await send(server, { path: `/?token=${server.token}` });
    assert.equal(page.status, 200);
    const setCookie = page.headers['set-cookie'] ?? [];
    assert.equal(setCookie.length, 1);
    const [pair, ...attributes] = setCookie[0].split(';').map((part) => part.trim());
    assert.equal(pair, `${sessionCookieName(server.port)}=${server.token}`);
    assert.deepEqual(attributes.sort(), ['HttpOnly', 'Path=/', 'SameSite=Strict']);
    const cookie = { cookie: `other=1; ${pair}` };
    // A bare URL (a bookmark, a new tab) or an earlier run's URL goes to this run's page, where the app takes its token.
    for (const p of ['/', '/index.html', '/?token=old']) {
      const reply = await send(server, { path: p, headers: cookie });
      assert.equal(reply.status, 303, p);
      assert.equal(reply.headers.location, `/?token=${server.token}`, p);
      assert.equal(reply.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    }
    assert.equal((await send(server, { path: `/?token=${server.token}`, headers: cookie })).status, 200);
    assert.equal((await send(server, { path: '/assets/app.js', headers: cookie })).status, 200);
    // The cookie opens pages only: api calls still need the header, and Host and Origin are checked as before.
    assert.equal((await send(server, { method: 'POST', path: '/api/getState', headers: { 'content-type': 'application/json', ...cookie }, body: '[]' })).status, 403);
    assert.equal((await call(server, 'getState', [], { ...cookie, 'x-cairn-token': 'nope' })).status, 403);
    assert.equal((await send(server, { path: '/', headers: { ...cookie, host: `evil.example:${server.port}` } })).status, 403);
    assert.equal((await send(server, { path: '/assets/app.js', headers: { ...cookie, origin: 'https://evil.example' } })).status, 403);
    // Another port's cookie (another Cairn) is not this server's session.
    const otherPort = await send(server, { path: '/', headers: { cookie: `${sessionCookieName(server.port + 1)}=${server.token}` } });
    assert.equal(otherPort.status, 403);
  });

  test('readCookie finds one cookie among several and survives junk', () => {
    assert.equal(readCookie({ cookie: 'a=1; cairn_session_1=tok%2Fen; b=2' }, 'cairn_session_1'), 'tok/en');
    assert.equal(readCookie({ cookie: 'xcairn_session_1=no' }, 'cairn_session_1'), null);
    assert.equal(readCookie({ cookie: 'cairn_session_1=%E0%A4%A' }, 'cairn_session_1'), null);
    assert.equal(readCookie({}, 'cairn_session_1'), null);
  });

  test('sends the strict CSP on pages, api replies and refusals', async () => {
    for (const reply of [await send(server, { path: `/?token=${server.token}` }), await call(server, 'getState', []), await send(server, { path: '/' })]) {
      assert.equal(reply.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.equal(reply.headers['x-content-type-options'], 'nosniff');
    }
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self';/);
    assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
  });

  test('api calls need the token in the header (not the query)', async () => {
    const noToken = await send(server, { method: 'POST', path: '/api/getState', headers: { 'content-type': 'application/json' }, body: '[]' });
    assert.equal(noToken.status, 403);
    const queryToken = await send(server, { method: 'POST', path: `/api/getState?token=${server.token}`, headers: { 'content-type': 'application/json' }, body: '[]' });
    assert.equal(queryToken.status, 403);
    assert.equal((await call(server, 'getState', [], { 'x-cairn-token': 'nope' })).status, 403);
  });

  test('a wrong Host header is refused (DNS rebinding)', async () => {
    for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, `0.0.0.0:${server.port}`]) {
      const reply = await send(server, { path: `/?token=${server.token}`, headers: { host } });
      assert.equal(reply.status, 403, host);
      assert.equal((await call(server, 'getState', [], { host })).status, 403, host);
    }
    assert.equal((await send(server, { path: `/?token=${server.token}`, headers: { host: `localhost:${server.port}` } })).status, 200);
  });

  test('a foreign Origin is refused; our own is accepted', async () => {
    assert.equal((await call(server, 'getState', [], { origin: 'https://evil.example' })).status, 403);
    assert.equal((await call(server, 'getState', [], { origin: 'null' })).status, 403);
    assert.equal((await call(server, 'getState', [], { origin: `http://localhost:${server.port + 1}` })).status, 403);
    assert.equal((await call(server, 'getState', [], { origin: `http://127.0.0.1:${server.port}` })).status, 200);
    assert.equal((await call(server, 'getState', [], { origin: `http://localhost:${server.port}` })).status, 200);
  });

  test('api calls round-trip their arguments and results', async () => {
    const reply = await call(server, 'search', [{ query: 'chunk size', k: 5, mode: 'keyword', filters: { tags: ['x'] } }]);
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { result: { query: 'chunk size', text: 'chunk size', filters: {}, operators: [], mode: 'keyword', results: [], expansions: [], highlightTerms: [], tookMs: 1, offset: 0, total: 0, more: false } });
    assert.deepEqual(api.calls.at(-1), { method: 'search', args: [{ query: 'chunk size', k: 5, mode: 'keyword', filters: { tags: ['x'] } }] });
    assert.deepEqual(JSON.parse((await call(server, 'listTags', [])).body), { result: [{ tag: 'idea', notes: 2 }] });
    assert.deepEqual(JSON.parse((await call(server, 'resolveLink', ['Known', 'Folder/A.md'])).body), { result: 'Known.md' });
    assert.deepEqual(JSON.parse((await call(server, 'resolveLink', ['Other', 'Folder/A.md'])).body), { result: null });
    assert.deepEqual(JSON.parse((await call(server, 'saveConfigValues', [{ 'chunking.max_chunk_chars': 800 }])).body), { result: { ok: true, rebuild: 'chunking changed' } });
    const asked = await call(server, 'ask', [{ question: 'overlap', mode: 'extractive', k: 4, requestId: 'r-1' }]);
    assert.equal(asked.status, 200);
    assert.deepEqual(JSON.parse(asked.body), { result: { answer: 'About overlap [1].', mode: 'extractive', confident: true, citations: [], sources: [], highlightTerms: [] } });
    assert.deepEqual(api.calls.at(-1), { method: 'ask', args: [{ question: 'overlap', mode: 'extractive', k: 4, requestId: 'r-1' }] });
  });

  test('errors of the core come back as 500 with their message', async () => {
    const reply = await call(server, 'getNote', ['Missing.md']);
    assert.equal(reply.status, 500);
    assert.equal(JSON.parse(reply.body).error, 'no note Missing.md in the index');
  });

  test('a request the core refuses for what it asks (a vault that is not a folder) is a 422 with the reason, not a 500', async () => {
    const reply = await call(server, 'openVault', ['/no/such/folder']);
    assert.equal(reply.status, 422);
    assert.deepEqual(JSON.parse(reply.body), { error: '/no/such/folder is not a folder', kind: 'refused' });
  });

  test('bad arguments, unknown methods and non-JSON bodies are rejected before the core sees them', async () => {
    const before = api.calls.length;
    const cases: Array<[string, unknown]> = [
      ['getNote', ['../../etc/passwd']],
      ['getNote', ['/etc/passwd']],
      ['getNote', [42]],
      ['search', [{ query: 1 }]],
      ['search', [{ query: 'x', evil: true }]],
      ['saveConfigValues', [{ 'chunking.max_chunk_chars': 'big' }]],
      ['ask', [{ question: '', requestId: 'r' }]],
      ['ask', [{ question: 'why', requestId: 'r', mode: 'guess' }]],
      ['ask', [{ question: 'why', requestId: 'r', k: 0 }]],
      ['ask', [{ question: 'why' }]],
      ['nosuchMethod', []],
      ['subscribe', []],
      ['getState', {}],
    ];
    for (const [method, args] of cases) {
      const reply = await call(server, method, args);
      assert.equal(reply.status, 400, `${method} ${JSON.stringify(args)}`);
      assert.ok(JSON.parse(reply.body).error);
    }
    const form = await send(server, { method: 'POST', path: '/api/getState', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-cairn-token': server.token }, body: 'a=1' });
    assert.equal(form.status, 415);
    const broken = await send(server, { method: 'POST', path: '/api/getState', headers: { 'content-type': 'application/json', 'x-cairn-token': server.token }, body: '[' });
    assert.equal(broken.status, 400);
    const huge = await send(server, { method: 'POST', path: '/api/saveConfigText', headers: { 'content-type': 'application/json', 'x-cairn-token': server.token }, body: JSON.stringify(['x'.repeat(3 * 1024 * 1024)]) });
    assert.equal(huge.status, 413);
    assert.equal(api.calls.length, before);
  });

  test('openInEditor is refused in browser mode with a clear reason', async () => {
    const reply = await call(server, 'openInEditor', ['Folder/A.md']);
    assert.equal(reply.status, 400);
    assert.match(JSON.parse(reply.body).error, /desktop app/);
    assert.ok(!api.calls.some((c) => c.method === 'openInEditor'));
  });

  test('static files never leave the build folder', async () => {
    for (const p of ['/%2e%2e/cairn-http-secret.txt', '/..%2fcairn-http-secret.txt', '/assets/..%2f..%2fcairn-http-secret.txt']) {
      const reply = await send(server, { path: `${p}?token=${server.token}` });
      assert.equal(reply.status, 404, p);
    }
  });

  test('the event stream needs the token and delivers AppEvents', async () => {
    assert.equal((await send(server, { path: '/api/events' })).status, 403);
    const events: AppEvent[] = [];
    const received = new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.port, path: `/api/events?token=${server.token}`, headers: { host: `127.0.0.1:${server.port}` } }, (res) => {
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame.split('\n').find((line) => line.startsWith('data: '));
            if (data) events.push(JSON.parse(data.slice(6)) as AppEvent);
            if (events.length === 3) {
              req.destroy();
              resolve();
            }
          }
        });
      });
      req.on('error', (error) => (events.length === 3 ? undefined : reject(error)));
      req.end();
    });
    // Wait until the server has subscribed, then emit.
    while (api.listeners.size === 0) await new Promise((r) => setTimeout(r, 5));
    for (const listener of api.listeners) {
      listener({ type: 'progress', phase: 'embed', done: 3, total: 10, etaSeconds: 2 });
      listener({ type: 'note-changed', path: 'New.md', change: 'added' });
      listener({ type: 'answer-token', requestId: 'r-1', token: 'Over' });
    }
    await received;
    assert.deepEqual(events, [
      { type: 'progress', phase: 'embed', done: 3, total: 10, etaSeconds: 2 },
      { type: 'note-changed', path: 'New.md', change: 'added' },
      { type: 'answer-token', requestId: 'r-1', token: 'Over' },
    ]);
    // Closing the stream unsubscribes.
    while (api.listeners.size > 0) await new Promise((r) => setTimeout(r, 5));
  });
});

describe('the port', () => {
  async function occupy(): Promise<{ blocker: NetServer; port: number }> {
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    return { blocker, port: (blocker.address() as { port: number }).port };
  }
  const api = new RecordingApi();

  test('a port in use moves on to the next free one and says which it asked for', async () => {
    const { blocker, port } = await occupy();
    try {
      const server = await startHttpServer({ api, staticDir: tmpdir(), port, portAttempts: 10 });
      try {
        assert.ok(server.port > port && server.port <= port + 10, `${server.port}`);
        assert.equal(server.portInUse, port);
        assert.match(server.url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=`));
        assert.equal((await send(server, { path: '/' })).status, 403, 'the guard knows the port it got');
      } finally {
        await server.close();
      }
    } finally {
      blocker.close();
    }
  });

  test('without attempts a port in use is one clear error, not a raw EADDRINUSE', async () => {
    const { blocker, port } = await occupy();
    try {
      await assert.rejects(startHttpServer({ api, staticDir: tmpdir(), port }), (error: Error) => {
        assert.ok(error instanceof PortInUseError);
        assert.equal(error.message, `port ${port} on 127.0.0.1 is in use (another Cairn, or another program): choose another with --port, or --port 0 for any free port`);
        return true;
      });
    } finally {
      blocker.close();
    }
  });

  test('a free port is used as asked, with no note', async () => {
    const { blocker, port } = await occupy();
    await new Promise((resolve) => blocker.close(resolve));
    const server = await startHttpServer({ api, staticDir: tmpdir(), port, portAttempts: 10 });
    assert.equal(server.port, port);
    assert.equal(server.portInUse, undefined);
    await server.close();
  });
});

/** A StartingApi for /notes whose core (a RecordingApi) is ready when the test calls `finishStart`. */
function startingOverCore() {
  const core = new RecordingApi();
  let finishStart!: () => void;
  let coreListener!: (event: AppEvent) => void;
  const starting = new StartingApi('/notes', (listener) => {
    coreListener = listener;
    return new Promise((resolve) => (finishStart = () => resolve(core)));
  });
  return { core, starting, coreListener: (event: AppEvent) => coreListener(event), finishStart: () => finishStart() };
}

describe('StartingApi (the api while the core starts)', () => {
  test('events flow from the start, getState shows the progress, other calls wait for the core', async () => {
    const { core, starting, coreListener, finishStart } = startingOverCore();
    const seen: AppEvent[] = [];
    starting.subscribe((event) => seen.push(event));
    coreListener({ type: 'rebuild-started', reason: 'no index yet' });
    coreListener({ type: 'progress', phase: 'embed', done: 5, total: 50 });
    const interim = await starting.getState();
    assert.equal(interim.vault, '/notes');
    assert.equal(interim.status, null);
    assert.deepEqual(interim.indexing, { type: 'progress', phase: 'embed', done: 5, total: 50 });
    assert.equal(interim.rebuilding, 'no index yet');
    const searched = starting.search({ query: 'x' });
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(core.calls.length, 0, 'the call waits for the core');
    finishStart();
    assert.equal((await searched).query, 'x');
    // Once ready it tells subscribers the real state (their earlier getState was only the interim one).
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen.map((e) => e.type), ['rebuild-started', 'progress', 'state']);
    assert.deepEqual(await starting.getState(), core.state);
  });

  test('after the first indexing, getState waits for the core instead of answering out of date', async () => {
    const { core, starting, coreListener, finishStart } = startingOverCore();
    coreListener({ type: 'indexing-finished', summary: { notes: 1, chunks: 1, changedNotes: 1, removedNotes: 0, embedded: 1, cached: 0, indexed: 1, failed: 0, seconds: 0, phaseSeconds: { scan: 0, chunk: 0, embed: 0, index: 0, persist: 0 } } });
    const state = starting.getState();
    finishStart();
    assert.equal(await state, core.state);
  });

  test('a core that cannot start fails every call with its reason, and says so as an event', async () => {
    const seen: AppEvent[] = [];
    const starting = new StartingApi(null, async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('/nowhere is not a folder');
    });
    starting.subscribe((event) => seen.push(event));
    await assert.rejects(starting.search({ query: 'x' }), /not a folder/);
    assert.deepEqual(seen, [{ type: 'error', message: 'Cairn could not start: /nowhere is not a folder' }]);
  });
});
