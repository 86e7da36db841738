// The desktop shell's build, checked without the Electron binary (not installable here): electron/dist is built
// with Vite, the built core host runs tsx-free in plain Node (with Node's IPC standing in for Electron's parentPort)
// against a real vault copy and temp data folder, and the built sandboxed preload exposes exactly the api.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import type { AppEvent, AppState, AskResponse, SearchResponse } from '../core/contract/appApi.ts';
import { ELECTRON_DIST } from '../electron/build.ts';
import type { FromCore, ToCore } from '../electron/coreProtocol.ts';
import { createWorkspace, type Workspace } from './support/workspace.ts';
import { REMOTE_METHODS } from '../core/contract/remoteMethods.ts';

const HARNESS = fileURLToPath(new URL('./support/coreHostHarness.mjs', import.meta.url));
let dist: string;
let workspace: Workspace;
let host: ChildProcess;
const events: AppEvent[] = [];
const waiters = new Map<number, (reply: Extract<FromCore, { kind: 'reply' }>) => void>();
let nextId = 1;

function call<T>(method: Extract<ToCore, { kind: 'call' }>['method'], args: unknown[]): Promise<T> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiters.set(id, (reply) => (reply.ok ? resolve(reply.result as T) : reject(new Error(reply.error))));
    host.send({ kind: 'call', id, method, args } satisfies ToCore);
  });
}

describe('the Electron build', { timeout: 120_000 }, () => {
  before(async () => {
    // Built the way `npm run build:electron` (and `npm start`) builds it: the UI, then the shell.
    const built = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/start.mjs', import.meta.url)), '--build-only'], { encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    dist = ELECTRON_DIST;
    workspace = await createWorkspace();
  });

  after(async () => {
    if (host && host.exitCode === null) {
      const exited = new Promise((resolve) => host.once('exit', resolve));
      host.send({ kind: 'shutdown' } satisfies ToCore);
      await exited;
    }
    await workspace?.remove();
  });

  test('builds main, core host, embedding worker, HNSW graph worker and preload', () => {
    for (const file of ['main.js', 'coreHost.js', 'embeddingWorker.js', 'hnswGraphWorker.js', 'adaptWorker.js', 'preload.cjs']) assert.ok(existsSync(path.join(dist, file)), file);
    for (const file of ['main.js', 'coreHost.js', 'embeddingWorker.js', 'hnswGraphWorker.js', 'adaptWorker.js']) {
      const check = spawnSync(process.execPath, ['--check', path.join(dist, file)], { encoding: 'utf8' });
      assert.equal(check.status, 0, check.stderr);
    }
    assert.doesNotMatch(readFileSync(path.join(dist, 'main.js'), 'utf8'), /from "tsx|\.ts"/);
  });

  test('the built HNSW graph worker runs without tsx, takes rows in slices, writes a graph faiss reads, and reports its size and SHA-256', async () => {
    const dims = 8;
    const rows = Float32Array.from({ length: 300 * dims }, (_, i) => Math.sin(i * 12.9898) % 1);
    for (let r = 0; r < 300; r++) {
      const row = rows.subarray(r * dims, (r + 1) * dims);
      const norm = Math.hypot(...row);
      row.forEach((x, j) => (row[j] = x / norm));
    }
    const file = path.join(workspace.root, 'graph.faiss');
    const worker = fork(path.join(dist, 'hnswGraphWorker.js'), [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const reply = await new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.send({ type: 'start', dims, file });
      worker.send({ type: 'rows', rows: rows.slice(0, 100 * dims) });
      worker.send({ type: 'rows', rows: rows.slice(100 * dims) });
      worker.send({ type: 'end' });
    });
    const written = readFileSync(file);
    assert.deepEqual(reply, { ok: true, bytes: written.length, sha256: createHash('sha256').update(written).digest('hex') });
    const faiss = createRequire(import.meta.url)('faiss-node') as typeof import('faiss-node');
    const graph = faiss.Index.read(file);
    assert.equal(graph.ntotal(), 300);
    // Labels follow the rows in the order sent, across slices.
    assert.deepEqual(graph.search(Array.from(rows.subarray(150 * dims, 151 * dims)), 1).labels, [150]);
    assert.equal(graph.getDimension(), dims);
  });

  test('the built core host runs without tsx: it indexes, searches (keyword and vector) and reads notes', async () => {
    host = fork(HARNESS, [path.join(dist, 'coreHost.js')], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, CAIRN_CORE_OPTIONS: JSON.stringify({ configFile: workspace.configFile, vault: workspace.vault, dataDir: workspace.dataDir, stateFile: path.join(workspace.root, 'recent.json') }) },
    });
    host.on('message', (message: FromCore) => {
      if (message.kind === 'event') events.push(message.event);
      else if (message.kind === 'reply') waiters.get(message.id)?.(message);
    });
    let state = await call<AppState>('getState', []);
    for (let i = 0; !state.status && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = await call<AppState>('getState', []);
    }
    assert.equal(state.status?.notes, 15);
    assert.ok(events.some((e) => e.type === 'indexing-finished'));
    const response = await call<SearchResponse>('search', [{ query: 'chunk size' }]);
    assert.equal(response.results[0]?.path, 'Configuration/Chunking.md');
    assert.ok(response.results.some((r) => r.explain.vectorRank !== null), 'the embedding worker (built JS) answered');
    const note = await call<{ title: string }>('getNote', ['Configuration/Chunking.md']);
    assert.equal(note.title, 'Chunking');
    await assert.rejects(call('getNote', ['Nope.md']), /not an indexed note/);
    const answer = await call<AskResponse>('ask', [{ question: 'What does overlap_chars do?', requestId: 'e2e-1' }]);
    assert.equal(answer.mode, 'extractive');
    assert.ok(answer.citations.some((c) => c.path.startsWith('Configuration/')), 'the answer cites the configuration notes');
  });

  test('the built preload, run as Electron runs a sandboxed preload, exposes exactly the api', () => {
    const exposed: Record<string, unknown> = {};
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, value: unknown) => (exposed[key] = value) },
      ipcRenderer: { invoke: async () => ({ ok: true, result: null }), on: () => {}, removeListener: () => {} },
    };
    const required: string[] = [];
    const sandboxRequire = (name: string) => {
      required.push(name);
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
      return electron;
    };
    const source = readFileSync(path.join(dist, 'preload.cjs'), 'utf8');
    vm.runInNewContext(`(function (require, module, exports) {${source}\n})`, {})(sandboxRequire, { exports: {} }, {});
    assert.deepEqual(required, ['electron']);
    assert.deepEqual(Object.keys(exposed), ['cairn']);
    // Every remote method (core/contract/remoteMethods.ts), the folder picker and the event subscription; nothing else.
    assert.deepEqual(Object.keys(exposed.cairn as object).sort(), [...REMOTE_METHODS, 'chooseFolder', 'subscribe'].sort());
  });
});
