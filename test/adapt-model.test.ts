// The adapted model folder (core/adapt/adaptStaticModel.ts): the shipped layout with a new table, loadable by the
// real embedder; an abort or a vault with too little text leaves nothing behind.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { adaptStaticModel, TooLittleTextError } from '../core/adapt/adaptStaticModel.js';
import { readStaticTable } from '../core/adapt/staticTable.js';
import { createEmbedder } from '../core/embedding/embedder.js';
import { generatedVault, indexedNotesFile } from './support/adaptVault.js';

const BASE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'models', 'cairn-glove-100d');

describe('an adapted model', () => {
  let notesFile: string;
  let fingerprint: string;
  let remove: () => Promise<void>;
  let out: string;
  before(async () => {
    ({ notesFile, fingerprint, remove } = await indexedNotesFile('cairn-adapt-model-', generatedVault(60)));
    out = await mkdtemp(path.join(os.tmpdir(), 'cairn-adapt-models-'));
  });
  after(async () => {
    await remove();
    await rm(out, { recursive: true, force: true });
  });

  test('has the shipped layout and files, a new table, and says what it is in config.json; the real embedder loads it', async () => {
    const outDir = path.join(out, 'models', 'adapted-vault');
    const phases = new Set<string>();
    const result = await adaptStaticModel({
      baseModelDir: BASE, baseModelId: 'cairn-glove-100d', baseFingerprint: fingerprint, notesFile, outDir, steps: 40,
      onProgress: (p) => phases.add(p.phase),
    });
    assert.deepEqual([...phases], ['mining', 'training', 'writing']);
    assert.equal(result.outDir, outDir);
    const files = (await readdir(outDir, { recursive: true })).sort();
    const shipped = (await readdir(BASE, { recursive: true })).filter((f) => !['README.md', 'ADAPT_GENERAL_PAIRS.md', 'adapt-general-pairs.jsonl.gz'].includes(f)).sort();
    assert.deepEqual(files, shipped);
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
      assert.ok((await readFile(path.join(outDir, f))).equals(await readFile(path.join(BASE, f))), `${f} is the shipped one`);
    }
    // The search defaults are those the shipped model gives for an adapted table.
    const shippedSearch = JSON.parse(await readFile(path.join(BASE, 'cairn.json'), 'utf8'));
    assert.deepEqual(JSON.parse(await readFile(path.join(outDir, 'cairn.json'), 'utf8')).fusion, shippedSearch.adaptedFusion);
    const config = JSON.parse(await readFile(path.join(outDir, 'config.json'), 'utf8'));
    const baseConfig = JSON.parse(await readFile(path.join(BASE, 'config.json'), 'utf8'));
    assert.deepEqual(config.cairn.adapted, {
      base: 'cairn-glove-100d', baseFingerprint: fingerprint, tableHash: result.tableHash, seed: 12, steps: result.steps,
      pairs: result.pairs, heldOutMrr: result.heldOutMrr,
    });
    delete config.cairn.adapted;
    assert.deepEqual(config, baseConfig, 'otherwise the shipped config.json');
    const [a, b] = await Promise.all([readStaticTable(outDir), readStaticTable(BASE)]);
    assert.deepEqual(a.vocab, b.vocab);
    assert.equal(a.hidden, b.hidden);
    assert.notDeepEqual(a.rows, b.rows);

    const embedder = await createEmbedder({ model: 'adapted-vault', dtype: 'q8', batchSize: 0, maxTokens: 0, dataRoot: '', modelsDir: path.join(out, 'models') });
    try {
      const [v, empty] = await embedder.embed(['how to plant a tomato seed in compost', '']);
      assert.equal(v.length, 101);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-3);
      assert.ok(Math.abs(empty[100] - 1) < 1e-3, 'empty text keeps its own axis');
      assert.notEqual(embedder.fingerprint, fingerprint, 'a new table is a new model fingerprint');
      assert.deepEqual(embedder.searchDefaults, shippedSearch.adaptedFusion, 'the search loads the adapted fusion defaults');
    } finally {
      await embedder.close();
    }
  });

  test('an abort kills the child and leaves no folder, not even a temporary one', async () => {
    const parent = path.join(out, 'aborted');
    const outDir = path.join(parent, 'adapted');
    const controller = new AbortController();
    const started = adaptStaticModel({
      baseModelDir: BASE, baseModelId: 'cairn-glove-100d', baseFingerprint: fingerprint, notesFile, outDir, steps: 100_000, signal: controller.signal,
      tuning: { patience: 100_000 },
      onProgress: (p) => p.phase === 'training' && controller.abort(new Error('stop')),
    });
    await assert.rejects(started, /stop/);
    assert.equal(existsSync(outDir), false);
    assert.deepEqual(existsSync(parent) ? await readdir(parent) : [], []);
  });

  test('a failure in the child rejects and leaves no folder; an earlier model at outDir stays as it was', async () => {
    const parent = path.join(out, 'failing');
    const outDir = path.join(parent, 'adapted');
    await mkdir(outDir, { recursive: true });
    await writeFile(path.join(outDir, 'config.json'), '{"earlier":true}');
    await assert.rejects(
      adaptStaticModel({ baseModelDir: BASE, baseModelId: 'cairn-glove-100d', baseFingerprint: fingerprint, notesFile: path.join(out, 'no-such-notes.jsonl'), outDir }),
      /vault adaptation failed: .*no-such-notes/,
    );
    assert.deepEqual(await readdir(parent), ['adapted']);
    assert.equal(await readFile(path.join(outDir, 'config.json'), 'utf8'), '{"earlier":true}');
  });

  test('a vault with too little text is refused with TooLittleTextError, and nothing is written', async () => {
    const tiny = await indexedNotesFile('cairn-adapt-tiny-', { 'a.md': '# A\n\nOne short note about tomatoes in the garden. It has two sentences.\n' });
    try {
      const outDir = path.join(out, 'tiny');
      await assert.rejects(
        adaptStaticModel({ baseModelDir: BASE, baseModelId: 'cairn-glove-100d', baseFingerprint: tiny.fingerprint, notesFile: tiny.notesFile, outDir }),
        (e: unknown) => e instanceof TooLittleTextError && e.pairs < e.minimum,
      );
      assert.equal(existsSync(outDir), false);
    } finally {
      await tiny.remove();
    }
  });
});
