// The desktop app's IPC edge without Electron: the preload's surface (exactly the CairnApi plus chooseFolder),
// the shared argument validation that HTTP and IPC both use, the main-process dispatcher, and the small pure
// helpers of the main process. Electron's own ipcRenderer/contextBridge are stood in for: they are the system edge.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AppEvent, AskRequest, AskResponse, NoteView, SearchRequest, SearchResponse } from '../core/contract/appApi.js';
import { REMOTE_METHODS } from '../core/contract/remoteMethods.js';
import { ApiArgumentError, checkNotePath } from '../core/contract/validation.js';
import { validateApiCall } from '../core/server/hostValidation.js';
import { isAllowedExternalUrl } from '../electron/externalLinks.js';
import { CALL_CHANNEL, CHOOSE_FOLDER_CHANNEL, EVENT_CHANNEL } from '../electron/ipcChannels.js';
import { createIpcDispatcher } from '../electron/ipcDispatcher.js';
import { exposeDesktopApi, PRELOAD_METHODS, type IpcRendererLike } from '../electron/preloadBridge.js';
import { onScreen } from '../electron/windowState.js';
import { RecordingApi } from './support/recordingApi.js';

/** The shared recording api, with the answers this file's assertions were written against. */
class IpcRecordingApi extends RecordingApi {
  override async search(request: SearchRequest): Promise<SearchResponse> {
    return { ...(await super.search(request)), tookMs: 0 };
  }
  override async ask(request: AskRequest): Promise<AskResponse> {
    return { ...(await super.ask(request)), answer: 'A [1].' };
  }
  override async getNote(notePath: string): Promise<NoteView> {
    this.note('getNote', [notePath]);
    throw new Error(`${notePath} is not an indexed note`);
  }
}

const CAIRN_API_METHODS = Object.getOwnPropertyNames(RecordingApi.prototype).filter((name) => name !== 'constructor' && name !== 'note');

/** A stand-in for Electron's ipcRenderer: records invocations, answers with a canned reply, delivers events. */
class FakeIpcRenderer implements IpcRendererLike {
  readonly invoked: unknown[][] = [];
  reply: unknown = { ok: true, result: 'r' };
  readonly handlers = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  async invoke(channel: string, ...args: unknown[]) {
    this.invoked.push([channel, ...args]);
    return this.reply;
  }
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
    if (!this.handlers.has(channel)) this.handlers.set(channel, new Set());
    this.handlers.get(channel)!.add(listener);
  }
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void) {
    this.handlers.get(channel)?.delete(listener);
  }
  deliver(channel: string, payload: unknown) {
    for (const handler of this.handlers.get(channel) ?? []) handler({ sender: 'main' }, payload);
  }
}

function exposed(ipc: FakeIpcRenderer): Record<string, (...args: unknown[]) => unknown> {
  const worlds: Record<string, unknown> = {};
  exposeDesktopApi({ exposeInMainWorld: (key, api) => (worlds[key] = api) }, ipc);
  assert.deepEqual(Object.keys(worlds), ['cairn'], 'the preload exposes window.cairn and nothing else');
  return worlds.cairn as Record<string, (...args: unknown[]) => unknown>;
}

describe('preload surface', () => {
  test('window.cairn is exactly the CairnApi plus chooseFolder', () => {
    const api = exposed(new FakeIpcRenderer());
    const expected = [...CAIRN_API_METHODS, 'chooseFolder'].sort();
    assert.deepEqual(Object.keys(api).sort(), expected);
    assert.deepEqual([...PRELOAD_METHODS].sort(), expected);
    assert.deepEqual([...REMOTE_METHODS].sort(), CAIRN_API_METHODS.filter((m) => m !== 'subscribe').sort());
    for (const name of expected) assert.equal(typeof api[name], 'function', name);
  });

  test('calls travel on one channel with their arguments, and come back unwrapped', async () => {
    const ipc = new FakeIpcRenderer();
    const api = exposed(ipc);
    ipc.reply = { ok: true, result: { query: 'x' } };
    assert.deepEqual(await api.search({ query: 'x', k: 3 }), { query: 'x' });
    assert.deepEqual(ipc.invoked.at(-1), [CALL_CHANNEL, 'search', [{ query: 'x', k: 3 }]]);
    await api.resolveLink('Target', 'A.md');
    assert.deepEqual(ipc.invoked.at(-1), [CALL_CHANNEL, 'resolveLink', ['Target', 'A.md']]);
    await api.ask({ question: 'Why?', requestId: 'q1' });
    assert.deepEqual(ipc.invoked.at(-1), [CALL_CHANNEL, 'ask', [{ question: 'Why?', requestId: 'q1' }]]);
  });

  test("a refused call rejects with the main process's message", async () => {
    const ipc = new FakeIpcRenderer();
    ipc.reply = { ok: false, error: 'getNote: path: must not contain ".."' };
    await assert.rejects(async () => exposed(ipc).getNote('../x'), { message: 'getNote: path: must not contain ".."' });
  });

  test('subscribe listens on the event channel until unsubscribed', () => {
    const ipc = new FakeIpcRenderer();
    const api = exposed(ipc);
    const seen: AppEvent[] = [];
    const unsubscribe = api.subscribe((event: AppEvent) => seen.push(event)) as () => void;
    ipc.deliver(EVENT_CHANNEL, { type: 'note-changed', path: 'A.md', change: 'added' });
    unsubscribe();
    ipc.deliver(EVENT_CHANNEL, { type: 'error', message: 'late' });
    assert.deepEqual(seen, [{ type: 'note-changed', path: 'A.md', change: 'added' }]);
    assert.equal(ipc.handlers.get(EVENT_CHANNEL)?.size, 0);
  });

  test('chooseFolder asks the main process for the native dialog', async () => {
    const ipc = new FakeIpcRenderer();
    ipc.reply = '/home/me/notes';
    assert.equal(await exposed(ipc).chooseFolder(), '/home/me/notes');
    assert.deepEqual(ipc.invoked.at(-1), [CHOOSE_FOLDER_CHANNEL]);
  });
});

describe('api argument validation (shared by HTTP and IPC)', () => {
  test('vault-relative note paths pass', () => {
    for (const ok of ['Note.md', 'Folder/Note.md', 'Daily/2026-11-20.md', 'Ünïcode/日本語.md', 'a..b.md', '.hidden/Note.md', 'Folder name/With spaces.md', 'Tab\tname.md', 'New\nline.md']) {
      assert.equal(checkNotePath(ok), ok);
    }
  });

  test('paths that could leave the vault are refused', () => {
    const bad = ['../secret.md', 'a/../../b.md', '..', 'a/..', '/etc/passwd', 'C:\\Windows\\win.ini', 'C:/Windows/win.ini', 'c:x.md', '\\\\server\\share\\x.md', 'a\\..\\b.md', './a.md', 'a//b.md', 'a/', '', 'a\u0000b.md'];
    for (const path of bad) assert.throws(() => checkNotePath(path), ApiArgumentError, JSON.stringify(path));
    for (const method of ['getNote', 'openInEditor']) {
      assert.throws(() => validateApiCall(method, ['../../etc/passwd']), ApiArgumentError);
    }
    assert.throws(() => validateApiCall('resolveLink', ['Target', '../outside.md']), ApiArgumentError);
    assert.throws(() => validateApiCall('search', [{ query: 'x', filters: { pathPrefix: '../' } }]), ApiArgumentError);
  });

  test('wrong types and shapes are refused', () => {
    const bad: Array<[string, unknown]> = [
      ['getNote', [42]],
      ['getNote', [null]],
      ['getNote', []],
      ['getNote', ['A.md', 'extra']],
      ['getState', ['unexpected']],
      ['getState', 'not an array'],
      ['openVault', ['relative/folder']],
      ['openVault', [{}]],
      ['search', ['a string']],
      ['search', [{}]],
      ['search', [{ query: 'x', k: 0 }]],
      ['search', [{ query: 'x', k: 1.5 }]],
      ['search', [{ query: 'x', mode: 'fuzzy' }]],
      ['search', [{ query: 'x', neighbours: 'yes' }]],
      ['search', [{ query: 'x', filters: { modifiedAfter: 'yesterday' } }]],
      ['search', [{ query: 'x', filters: { tags: 'x' } }]],
      ['search', [{ query: 'x', filters: { tags: [1] } }]],
      ['search', [{ query: 'x', filters: { tag: 'x' } }]],
      ['search', [{ query: 'x', filters: { excludePaths: ['../x'] } }]],
      ['search', [{ query: 'x', filters: { excludeTags: 'draft' } }]],
      ['search', [{ query: 'x', extra: 1 }]],
      ['search', [{ query: 'x'.repeat(5000) }]],
      ['ask', [{ question: 'Why?' }]],
      ['ask', [{ question: '', requestId: 'q1' }]],
      ['ask', [{ question: '   ', requestId: 'q1' }]],
      ['ask', [{ question: 'x'.repeat(2001), requestId: 'q1' }]],
      ['ask', [{ question: 'Why?', requestId: 'q1', k: 51 }]],
      ['ask', [{ question: 'Why?', requestId: 'q1', mode: 'hybrid' }]],
      ['ask', [{ question: 'Why?', requestId: 'x'.repeat(65) }]],
      ['ask', [{ question: 'Why?', requestId: 'a b' }]],
      ['resolveLink', ['', 'A.md']],
      ['saveConfigText', [17]],
      ['saveConfigValues', [{}]],
      ['saveConfigValues', [[]]],
      ['saveConfigValues', [{ 'chunking.max_chunk_chars': '400' }]],
      ['saveConfigValues', [{ 'chunking.max_chunk_chars': 4.5 }]],
      ['saveConfigValues', [{ 'chunking.no_such_key': 1 }]],
      ['saveConfigValues', [{ 'no_section.key': 1 }]],
      ['saveConfigValues', [{ chunking: { max_chunk_chars: 1 } }]],
      ['saveConfigValues', [{ 'vault.exclude': ['ok', 3] }]],
      ['saveConfigValues', [JSON.parse('{"__proto__.polluted": 1}')]],
      ['saveConfigValues', [JSON.parse('{"constructor.prototype": 1}')]],
    ];
    for (const [method, args] of bad) assert.throws(() => validateApiCall(method, args), ApiArgumentError, `${method} ${JSON.stringify(args).slice(0, 80)}`);
  });

  test('unknown methods are refused, subscribe included (events have their own channel)', () => {
    for (const method of ['subscribe', 'close', 'constructor', '__proto__', 'toString', 'currentVault', 42, undefined]) {
      assert.throws(() => validateApiCall(method, []), ApiArgumentError, String(method));
    }
  });

  test('good calls come back typed and unchanged', () => {
    assert.deepEqual(validateApiCall('search', [{ query: 'chunk size', k: 5, mode: 'vector', neighbours: true, filters: { pathPrefix: 'Projects/', tags: ['x', 'y/z'], modifiedAfter: 0 } }]), {
      method: 'search',
      args: [{ query: 'chunk size', k: 5, mode: 'vector', neighbours: true, filters: { pathPrefix: 'Projects/', tags: ['x', 'y/z'], modifiedAfter: 0 } }],
    });
    assert.deepEqual(validateApiCall('saveConfigValues', [{ 'chunking.max_chunk_chars': 400, 'search.recency_boost': false, 'vault.exclude': ['.git/**'], 'search.keyword_weight': 0.5 }]).args, [
      { 'chunking.max_chunk_chars': 400, 'search.recency_boost': false, 'vault.exclude': ['.git/**'], 'search.keyword_weight': 0.5 },
    ]);
    assert.deepEqual(validateApiCall('saveConfigText', ['[chunking]\nmax_chunk_chars = 400\n']).args, ['[chunking]\nmax_chunk_chars = 400\n']);
    assert.deepEqual(validateApiCall('openVault', ['/home/me/notes']).args, ['/home/me/notes']);
    assert.deepEqual(validateApiCall('ask', [{ question: 'What does overlap_chars do?', k: 8, mode: 'llm', requestId: 'c0ffee-1' }]).args, [
      { question: 'What does overlap_chars do?', k: 8, mode: 'llm', requestId: 'c0ffee-1' },
    ]);
  });
});

describe('main-process IPC dispatcher', () => {
  test('forwards valid calls and returns their results', async () => {
    const api = new IpcRecordingApi();
    const dispatch = createIpcDispatcher(api, { openInEditor: async () => {} });
    assert.deepEqual(await dispatch('search', [{ query: 'x' }]), { ok: true, result: { query: 'x', text: 'x', filters: {}, operators: [], mode: 'hybrid', results: [], expansions: [], highlightTerms: [], tookMs: 0, offset: 0, total: 0, more: false } });
    assert.deepEqual(await dispatch('resolveLink', ['T', 'A.md']), { ok: true, result: null });
    assert.deepEqual(await dispatch('ask', [{ question: 'Why?', requestId: 'q1' }]), { ok: true, result: { answer: 'A [1].', mode: 'extractive', confident: true, citations: [], sources: [], highlightTerms: [] } });
    assert.deepEqual(api.calls.map((c) => c.method), ['search', 'resolveLink', 'ask']);
  });

  test('invalid calls never reach the core', async () => {
    const api = new IpcRecordingApi();
    const opened: string[] = [];
    const dispatch = createIpcDispatcher(api, { openInEditor: async (p) => void opened.push(p) });
    for (const [method, args] of [
      ['getNote', ['../../.ssh/id_rsa']],
      ['openInEditor', ['/etc/passwd']],
      ['openInEditor', ['..\\..\\x.md']],
      ['nope', []],
      ['search', [{ query: 1 }]],
      ['ask', [{ question: 'Why?', requestId: 'q1', mode: 'oracle' }]],
    ] as const) {
      const reply = await dispatch(method, args);
      assert.equal(reply.ok, false, `${method} ${JSON.stringify(args)}`);
    }
    assert.deepEqual(api.calls, []);
    assert.deepEqual(opened, []);
  });

  test('openInEditor is handled by the main process, not the core', async () => {
    const api = new IpcRecordingApi();
    const opened: string[] = [];
    const dispatch = createIpcDispatcher(api, { openInEditor: async (p) => void opened.push(p) });
    assert.deepEqual(await dispatch('openInEditor', ['Folder/Note.md']), { ok: true, result: null });
    assert.deepEqual(opened, ['Folder/Note.md']);
    assert.deepEqual(api.calls, []);
  });

  test("the core's errors come back as messages", async () => {
    const dispatch = createIpcDispatcher(new IpcRecordingApi(), { openInEditor: async () => {} });
    assert.deepEqual(await dispatch('getNote', ['Missing.md']), { ok: false, error: 'Missing.md is not an indexed note' });
  });
});

describe('main-process helpers', () => {
  test('only web, mail and Obsidian "open" links leave the app', () => {
    for (const url of ['https://example.com/a', 'http://localhost:3000/', 'mailto:me@example.com', 'obsidian://open?vault=Notes&file=Welcome']) assert.ok(isAllowedExternalUrl(url), url);
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,<script>1</script>', 'obsidian://advanced-uri?eval=1', 'smb://server/share', 'cairn://app/index.html', 'not a url', 'http://']) {
      assert.ok(!isAllowedExternalUrl(url), url);
    }
  });

  test('saved window bounds are restored only when they are on a screen', () => {
    const screens = [{ x: 0, y: 0, width: 1920, height: 1080 }];
    assert.deepEqual(onScreen({ x: 100, y: 100, width: 800, height: 600 }, screens), { x: 100, y: 100, width: 800, height: 600 });
    assert.equal(onScreen({ x: 3000, y: 100, width: 800, height: 600 }, screens), undefined);
    assert.equal(onScreen({ x: 1880, y: 100, width: 800, height: 600 }, screens), undefined);
    assert.equal(onScreen(undefined, screens), undefined);
  });
});
