/**
 * Choosing a hub model: downloadHubModel against a local HTTP server in the hub's file layout
 * (<owner>/<name>/resolve/main/<file>, Range requests, x-linked-etag), then createEmbedder loading the result
 * offline; and the model-specific query / passage prefixes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createEmbedder, withPrefix, type EmbedderOptions, type TextRole } from '../core/embedding/embedder.js';
import { catalogModel, MODEL_CATALOG } from '../core/embedding/modelCatalog.js';
import type { ModelDownloadProgress } from '../core/contract/models.js';
import { defaultHubUrl, downloadHubModel, ModelDownloadError, stagingDirFor } from '../core/embedding/modelDownload.js';
import { prefixedFingerprint, readModelPrefixes } from '../core/embedding/modelFolder.js';
import { ApiArgumentError } from '../core/contract/validation.js';
import { validateApiCall } from '../core/server/hostValidation.js';
import { defaultConfig } from '../core/config/schema.js';
import type { AppEvent } from '../core/contract/appApi.js';
import { ModelChooser } from '../core/app/modelChoice.js';
import { answerQuestion, CairnService, CairnVault } from '../core/app/index.js';
import type { AnswerVault } from '../core/answer/types.js';
import { writeTinyModel } from '../scripts/models/make-tiny-model.js';

const HUB_ID = 'cairn-test/tiny-hub';
const ONNX = 'onnx/model_quantized.onnx';

let root: string;
let hubRoot: string;
let dataRoot: string;
let server: Server;
let hubUrl: string;
/** How the server behaves for the next requests (reset before each test). */
let mode: { ignoreRange?: boolean; stallOnnxAfter?: number; dropOnnxAfter?: number; wrongSha?: boolean } = {};
let requests: Array<{ url: string; range?: string }> = [];
const stalled: ServerResponse[] = [];

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function serve(req: IncomingMessage, res: ServerResponse) {
  requests.push({ url: req.url ?? '', range: req.headers.range });
  const match = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
  const body = match ? await readFile(path.join(hubRoot, match[1], match[2])).catch(() => undefined) : undefined;
  if (!body) {
    res.writeHead(404, { 'content-length': 0 }).end();
    return;
  }
  const isOnnx = match![2] === ONNX;
  const headers: Record<string, string | number> = {};
  if (isOnnx) headers['x-linked-etag'] = `"${mode.wrongSha ? sha256(Buffer.from('other')) : sha256(body)}"`;
  const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  let start = 0;
  if (range && !mode.ignoreRange) {
    start = Number(range[1]);
    if (start >= body.length) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    res.writeHead(206, { ...headers, 'content-length': body.length - start, 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` });
  } else {
    res.writeHead(200, { ...headers, 'content-length': body.length });
  }
  const rest = body.subarray(start);
  const cut = isOnnx ? (mode.stallOnnxAfter ?? mode.dropOnnxAfter) : undefined;
  if (cut === undefined || cut >= rest.length) {
    res.end(rest);
    return;
  }
  res.write(rest.subarray(0, cut));
  if (mode.dropOnnxAfter !== undefined) setTimeout(() => res.destroy(), 50);
  else stalled.push(res); // sends nothing more until the test ends it
}

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'cairn-model-download-'));
  hubRoot = path.join(root, 'hub');
  await writeTinyModel(path.join(hubRoot, HUB_ID), { variants: ['q8'] });
  server = createServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hubUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(async () => {
  for (const res of stalled) res.destroy();
  server?.closeAllConnections();
  server?.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  mode = {};
  requests = [];
  dataRoot = await mkdtemp(path.join(root, 'data-'));
});

const download = (overrides: Partial<Parameters<typeof downloadHubModel>[0]> = {}) =>
  downloadHubModel({ modelId: HUB_ID, onnxFile: ONNX, dataRoot, hubUrl, progressIntervalMs: 0, ...overrides });

async function assertSameFiles() {
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', ONNX]) {
    assert.deepEqual(await readFile(path.join(dataRoot, 'models', HUB_ID, f)), await readFile(path.join(hubRoot, HUB_ID, f)), f);
  }
  assert.equal(existsSync(stagingDirFor(dataRoot, HUB_ID)), false, 'no staging folder left');
}

describe('downloading a hub model (a local server in the hub layout)', () => {
  it('reports progress per file, checks and moves the files in, and createEmbedder then loads it offline', async () => {
    const events: ModelDownloadProgress[] = [];
    const dir = await download({ onProgress: (p) => events.push(p) });
    assert.equal(dir, path.join(dataRoot, 'models', HUB_ID));
    await assertSameFiles();
    const onnxSize = (await stat(path.join(hubRoot, HUB_ID, ONNX))).size;
    const onnxEvents = events.filter((e) => e.file === ONNX);
    assert.ok(onnxEvents.length >= 2, 'progress while the weights arrive');
    assert.deepEqual(onnxEvents.at(-1), { modelId: HUB_ID, file: ONNX, fileIndex: 4, fileCount: 5, loaded: onnxSize, size: onnxSize });
    assert.deepEqual([...new Set(events.map((e) => e.file))], ['config.json', 'tokenizer.json', 'tokenizer_config.json', ONNX]);
    // The optional external-data file was asked for and is absent (404), which is fine.
    assert.ok(requests.some((r) => r.url.endsWith(`${ONNX}_data`)));

    const options: EmbedderOptions = { model: HUB_ID, dtype: 'q8', batchSize: 0, maxTokens: 0, dataRoot, modelsDir: path.join(root, 'no-bundled'), hubUrl: 'http://127.0.0.1:9/' };
    const embedder = await createEmbedder(options);
    try {
      assert.equal(embedder.dims, 32);
      assert.equal((await embedder.embed(['the cat sat']))[0].length, 32);
    } finally {
      await embedder.close();
    }
  });

  it('cancel keeps the partial file aside; choosing the model again resumes it with a Range request', async () => {
    mode = { stallOnnxAfter: 4096 };
    const controller = new AbortController();
    await assert.rejects(
      download({ signal: controller.signal, onProgress: (p) => p.file === ONNX && p.loaded >= 4096 && controller.abort() }),
      (e: unknown) => e instanceof ModelDownloadError && e.reason === 'cancelled' && /resumes/.test(e.message),
    );
    assert.equal(existsSync(path.join(dataRoot, 'models', HUB_ID, ONNX)), false, 'nothing in the model folder');
    const part = path.join(stagingDirFor(dataRoot, HUB_ID), `${ONNX}.part`);
    assert.equal((await stat(part)).size, 4096);

    mode = {};
    requests = [];
    await download();
    assert.deepEqual(requests.find((r) => r.url.endsWith(ONNX))?.range, 'bytes=4096-');
    assert.ok(!requests.some((r) => r.url.endsWith('config.json')), 'finished files are not fetched again');
    await assertSameFiles();
  });

  it('an interrupted connection fails with "try again"; a server that ignores Range restarts the file cleanly', async () => {
    mode = { dropOnnxAfter: 3000 };
    await assert.rejects(download(), (e: unknown) => e instanceof ModelDownloadError && e.reason === 'failed' && /try again/.test(e.message));
    mode = { ignoreRange: true };
    requests = [];
    await download();
    assert.deepEqual(requests.find((r) => r.url.endsWith(ONNX))?.range, 'bytes=3000-');
    await assertSameFiles();
  });

  it('a file whose SHA-256 is not the one the hub names is deleted, never used', async () => {
    mode = { wrongSha: true };
    await assert.rejects(download(), (e: unknown) => e instanceof ModelDownloadError && e.reason === 'damaged' && /SHA-256/.test(e.message));
    assert.equal(existsSync(path.join(dataRoot, 'models', HUB_ID, ONNX)), false);
    assert.equal(existsSync(path.join(stagingDirFor(dataRoot, HUB_ID), `${ONNX}.part`)), false);
  });

  it('offline: says so at once', async () => {
    const started = performance.now();
    await assert.rejects(download({ hubUrl: 'http://127.0.0.1:9/' }), (e: unknown) => {
      assert.ok(e instanceof ModelDownloadError);
      assert.equal(e.reason, 'offline');
      assert.match(e.message, /offline\. The current model stays in use/);
      return true;
    });
    assert.ok(performance.now() - started < 5000, `took ${performance.now() - started} ms`);
    assert.equal(existsSync(path.join(dataRoot, 'models', HUB_ID)), false);
  });

  it('an unknown model is "not found", naming the file', async () => {
    await assert.rejects(download({ modelId: 'cairn-test/missing' }), (e: unknown) => e instanceof ModelDownloadError && e.reason === 'not-found' && /config\.json/.test(e.message));
  });

  it('CAIRN_HUB_URL sets the hub', () => {
    const saved = process.env.CAIRN_HUB_URL;
    try {
      delete process.env.CAIRN_HUB_URL;
      assert.equal(defaultHubUrl(), 'https://huggingface.co/');
      process.env.CAIRN_HUB_URL = 'http://127.0.0.1:1234';
      assert.equal(defaultHubUrl(), 'http://127.0.0.1:1234/');
    } finally {
      if (saved === undefined) delete process.env.CAIRN_HUB_URL;
      else process.env.CAIRN_HUB_URL = saved;
    }
  });
});

describe('a model id set by hand in config.toml', () => {
  /** A chooser over a config naming HUB_ID, downloading from `hub` (CAIRN_HUB_URL, as the app reads it). */
  async function ensureLocal(hub: string, events: AppEvent[] = []) {
    const config = defaultConfig();
    config.embedding.model = HUB_ID;
    config.index.data_dir = dataRoot;
    const chooser = new ModelChooser({
      config: () => config,
      emit: (event) => events.push(event),
      saveConfigValues: () => assert.fail('ensureLocal never saves the config'),
      modelsDir: path.join(root, 'no-bundled'),
    });
    const saved = process.env.CAIRN_HUB_URL;
    process.env.CAIRN_HUB_URL = hub;
    try {
      await chooser.ensureLocal(HUB_ID);
    } finally {
      if (saved === undefined) delete process.env.CAIRN_HUB_URL;
      else process.env.CAIRN_HUB_URL = saved;
    }
  }

  it("downloads through Cairn's downloader with the picker's progress events; once local, fetches nothing", async () => {
    const events: AppEvent[] = [];
    await ensureLocal(hubUrl, events);
    await assertSameFiles();
    const progress = events.filter((e) => e.type === 'model-download');
    assert.ok(progress.some((e) => e.file === ONNX && e.loaded === e.size && e.size > 0), 'the weights arrive with progress');
    requests = [];
    await ensureLocal(hubUrl);
    assert.deepEqual(requests, [], 'a model on disk is not fetched again');
  });

  it('offline: fails at once with one line saying so', async () => {
    await assert.rejects(ensureLocal('http://127.0.0.1:9/'), (e: unknown) => e instanceof Error && /offline/.test(e.message) && !e.message.includes('\n'));
    assert.equal(existsSync(path.join(dataRoot, 'models', HUB_ID)), false);
  });
});

describe('the app opening a vault whose config.toml names a hub model by hand', () => {
  it("downloads it with progress events before indexing, then indexes with it; offline, the open fails in one line", async () => {
    const vault = await mkdtemp(path.join(root, 'vault-'));
    await writeFile(path.join(vault, 'note.md'), '# Tides\n\nThe moon pulls the sea twice a day.\n');
    const configFile = path.join(root, 'hand-set.toml');
    await writeFile(configFile, `[embedding]\nmodel = "${HUB_ID}"\nadapt = false\n`);
    const events: AppEvent[] = [];
    const saved = process.env.CAIRN_HUB_URL;
    try {
      process.env.CAIRN_HUB_URL = 'http://127.0.0.1:9/';
      await assert.rejects(
        CairnService.start({ configFile, vault, dataDir: dataRoot, watch: false }),
        (e: unknown) => e instanceof Error && /offline/.test(e.message) && !e.message.includes('\n'),
      );
      process.env.CAIRN_HUB_URL = hubUrl;
      const service = await CairnService.start({ configFile, vault, dataDir: dataRoot, watch: false, listener: (e) => events.push(e) });
      try {
        const firstProgress = events.findIndex((e) => e.type === 'model-download');
        const firstIndexing = events.findIndex((e) => e.type === 'progress');
        assert.ok(firstProgress >= 0, 'the download reports progress');
        assert.ok(firstIndexing < 0 || firstProgress < firstIndexing, 'the model is fetched before indexing starts');
        const state = await service.getState();
        assert.equal(state.status?.model, HUB_ID);
        assert.equal(state.status?.chunks, 1);
      } finally {
        await service.close();
      }
    } finally {
      if (saved === undefined) delete process.env.CAIRN_HUB_URL;
      else process.env.CAIRN_HUB_URL = saved;
    }
  });
});

describe('model prefixes', () => {
  it('the catalog lists the bundled and hub models, with bge and e5 prefixes', () => {
    assert.deepEqual(MODEL_CATALOG.filter((m) => m.bundled).map((m) => m.id), ['cairn-glove-100d', 'cairn-retrieval-100d']);
    for (const id of ['Xenova/bge-small-en-v1.5', 'Xenova/all-MiniLM-L6-v2', 'Xenova/multilingual-e5-small']) assert.ok(catalogModel(id), id);
    assert.deepEqual(catalogModel('Xenova/bge-small-en-v1.5')?.prefixes, { query: 'Represent this sentence for searching relevant passages: ', passage: '' });
    assert.deepEqual(catalogModel('Xenova/multilingual-e5-small')?.prefixes, { query: 'query: ', passage: 'passage: ' });
    for (const m of MODEL_CATALOG) assert.ok(m.size && m.languages && m.speed && m.source, m.id);
  });

  it('withPrefix and the fingerprint: no prefix keeps the files’ fingerprint, prefixes change it', () => {
    assert.deepEqual(withPrefix(['a', 'b'], 'query: '), ['query: a', 'query: b']);
    const texts = ['a'];
    assert.equal(withPrefix(texts, ''), texts);
    assert.equal(prefixedFingerprint('abc', { query: '', passage: '' }), 'abc');
    const e5 = prefixedFingerprint('abc', { query: 'query: ', passage: 'passage: ' });
    assert.notEqual(e5, 'abc');
    assert.notEqual(prefixedFingerprint('abc', { query: 'query: ', passage: '' }), e5);
  });

  it('reads a model folder’s cairn.json prefixes, else the catalog’s', async () => {
    const dir = path.join(root, 'prefix-model');
    await writeTinyModel(dir, { variants: ['q8'] });
    assert.deepEqual(await readModelPrefixes(dir, 'Xenova/multilingual-e5-small'), { query: 'query: ', passage: 'passage: ' });
    assert.deepEqual(await readModelPrefixes(dir, 'someone/else'), { query: '', passage: '' });
    await writeFile(path.join(dir, 'cairn.json'), JSON.stringify({ prefixes: { query: 'q: ' } }));
    assert.deepEqual(await readModelPrefixes(dir, 'Xenova/multilingual-e5-small'), { query: 'q: ', passage: '' });
    await writeFile(path.join(dir, 'cairn.json'), JSON.stringify({ prefixes: { query: 1 } }));
    await assert.rejects(readModelPrefixes(dir, 'x'), /prefixes\.query must be a string/);
  });

  it('queries get the query prefix and chunk texts the passage prefix, through the real worker', async () => {
    const modelsDir = path.join(root, 'prefixed-models');
    await writeTinyModel(path.join(modelsDir, 'plain'), { variants: ['q8'] });
    await writeTinyModel(path.join(modelsDir, 'prefixed'), { variants: ['q8'] });
    // Tiny-model words, so the prefix visibly moves the vector.
    await writeFile(path.join(modelsDir, 'prefixed', 'cairn.json'), JSON.stringify({ prefixes: { query: 'search ', passage: 'note ' } }));
    const options = (model: string): EmbedderOptions => ({ model, dtype: 'q8', batchSize: 0, maxTokens: 0, dataRoot, modelsDir });
    const [plain, prefixed] = [await createEmbedder(options('plain')), await createEmbedder(options('prefixed'))];
    try {
      assert.deepEqual(prefixed.prefixes, { query: 'search ', passage: 'note ' });
      assert.notEqual(prefixed.fingerprint, plain.fingerprint);
      assert.equal(prefixed.tokens.window, plain.tokens.window - 1, 'the passage prefix takes one token of the window');
      const [q] = await prefixed.embed(['cat']);
      const [p] = await prefixed.embedPassages!(['cat']);
      assert.deepEqual(Array.from(q), Array.from((await plain.embed(['search cat']))[0]));
      assert.deepEqual(Array.from(p), Array.from((await plain.embed(['note cat']))[0]));
      assert.notDeepEqual(Array.from(q), Array.from((await plain.embed(['cat']))[0]));
    } finally {
      await plain.close();
      await prefixed.close();
    }
  });
});

describe('answers with a model trained with instructions', () => {
  it('embed the question as a query and the sentences they weigh as passages', async () => {
    const modelId = 'cairn-test/prefixed';
    await writeTinyModel(path.join(dataRoot, 'models', modelId), { variants: ['q8'] });
    await writeFile(path.join(dataRoot, 'models', modelId, 'cairn.json'), JSON.stringify({ prefixes: { query: 'search ', passage: 'note ' } }));
    const vaultDir = await mkdtemp(path.join(root, 'answer-vault-'));
    await writeFile(path.join(vaultDir, 'cats.md'), '# Cats\n\nThe cat sleeps on the warm mat all day long.\n');
    const config = defaultConfig();
    Object.assign(config.vault, { path: vaultDir });
    Object.assign(config.index, { data_dir: dataRoot });
    Object.assign(config.embedding, { model: modelId, adapt: false });
    const vault = await CairnVault.open(config);
    try {
      await vault.index();
      const calls: Array<{ texts: readonly string[]; as: TextRole | undefined }> = [];
      const recording: AnswerVault = {
        config: vault.config,
        search: (request) => vault.search(request),
        sectionChunks: (id) => vault.sectionChunks(id),
        embed: (texts, as) => {
          calls.push({ texts, as });
          return vault.embed(texts, as);
        },
      };
      await answerQuestion(recording, 'where does the cat sleep?', { mode: 'extractive' });
      const question = calls.find((c) => c.texts[0] === 'where does the cat sleep?');
      const sentences = calls.find((c) => c.texts.some((t) => t.includes('warm mat')));
      assert.ok(question && question.as !== 'passage', 'the question is embedded as a query');
      assert.equal(sentences?.as, 'passage', 'the sentences are embedded as passages');
      const [asPassage] = await vault.embed(['cat'], 'passage');
      const [asQuery] = await vault.embed(['cat']);
      assert.notDeepEqual(Array.from(asPassage), Array.from(asQuery), 'the passage prefix is applied');
    } finally {
      await vault.close();
    }
  });
});

describe('model choice over the API', () => {
  it('chooseModel takes a bundled name or a hub id, never a path; listModels and cancelModelDownload take nothing', () => {
    assert.deepEqual(validateApiCall('chooseModel', ['Xenova/bge-small-en-v1.5']), { method: 'chooseModel', args: ['Xenova/bge-small-en-v1.5'] });
    assert.deepEqual(validateApiCall('chooseModel', ['cairn-glove-100d']), { method: 'chooseModel', args: ['cairn-glove-100d'] });
    for (const bad of ['../etc', 'a/b/c', '/abs', 'a/..', '', 3]) assert.throws(() => validateApiCall('chooseModel', [bad]), ApiArgumentError, String(bad));
    assert.deepEqual(validateApiCall('listModels', []), { method: 'listModels', args: [] });
    assert.deepEqual(validateApiCall('cancelModelDownload', []), { method: 'cancelModelDownload', args: [] });
    assert.throws(() => validateApiCall('listModels', [1]), ApiArgumentError);
  });
});
