import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnVault, type IndexEvent } from '../core/app/index.js';
import { defaultConfig, type CairnConfig } from '../core/config/schema.js';

const FILLER = [
  'Gardening',
  'The tomato plants need water every morning during the hot weeks of summer. Mulch keeps the soil moist and cool.',
  'Cooking',
  'Bake the bread at a high temperature for forty minutes, then let it rest on a rack before slicing it.',
  'Travel',
  'The train from the coast to the mountains leaves at dawn; book a window seat to see the valleys and lakes.',
  'Music',
  'Practice scales slowly with a metronome before playing the piece at full tempo on the piano.',
];

async function makeVault(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'topics'), { recursive: true });
  for (let i = 0; i < FILLER.length; i += 2) {
    await writeFile(path.join(dir, 'topics', `${FILLER[i]}.md`), `# ${FILLER[i]}\n\n${FILLER[i + 1]}\n\n## More\n\n${FILLER[i + 1]} See [[Qorvath setup]].\n`);
  }
  // An exact made-up name: keyword search finds it, word vectors know nothing of it.
  await writeFile(path.join(dir, 'Qorvath setup.md'), '---\naliases: [QVS]\ntags: [tools]\n---\n# Qorvath setup\n\nInstall qorvath from the internal registry and run it once to create its configuration file.\n');
  // A passage a paraphrased question should find although it shares no word with it.
  await writeFile(
    path.join(dir, 'Vehicle.md'),
    '# Vehicle\n\nThe automobile needs new tyres before winter; the mechanic also said the brakes are worn and the engine oil is dirty.\n',
  );
}

function configFor(vault: string, dataDir: string, overrides: (c: CairnConfig) => void = () => {}): CairnConfig {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  overrides(config);
  return config;
}

describe('search engine on a generated vault', { timeout: 120_000 }, () => {
  let root: string;
  let vaultDir: string;
  let dataDir: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-engine-'));
    vaultDir = path.join(root, 'vault');
    dataDir = path.join(root, 'data');
    await makeVault(vaultDir);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('a missing vault folder, or a data folder inside the vault, is a clear error', async () => {
    await assert.rejects(CairnVault.open(configFor(path.join(root, 'nope'), dataDir)), /the vault .*nope does not exist/);
    await assert.rejects(CairnVault.open(configFor(vaultDir, path.join(vaultDir, '.cairn'))), /is inside the vault/);
  });

  it('indexes every note, with faiss as the vector backend', async () => {
    const vault = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      const events: IndexEvent[] = [];
      const summary = await vault.index((e) => events.push(e));
      assert.equal(summary.notes, 6);
      assert.ok(summary.chunks >= 6);
      assert.equal(summary.embedded, summary.chunks, 'a first index embeds every chunk text');
      assert.ok(events.some((e) => e.type === 'rebuild-started' && e.reason === 'no index yet'));
      assert.ok(events.some((e) => e.type === 'progress' && e.phase === 'embed'));
      assert.equal(vault.status().vectorBackend, 'faiss');
    } finally {
      await vault.close();
    }
  });

  it('hybrid finds an exact name that vector search misses, and a paraphrase that keyword search misses', async () => {
    const vault = await CairnVault.open(configFor(vaultDir, dataDir, (c) => (c.search.query_expansion = false)));
    try {
      const name = 'qorvath';
      const inVector = (await vault.search({ query: name, mode: 'vector', k: 3 })).results.map((r) => r.path);
      const inHybrid = (await vault.search({ query: name, mode: 'hybrid', k: 3 })).results.map((r) => r.path);
      assert.deepEqual(inVector, [], 'the vector model knows nothing of the made-up name');
      assert.equal(inHybrid[0], 'Qorvath setup.md');

      const question = 'replacing the car wheels';
      const byKeyword = (await vault.search({ query: question, mode: 'keyword', k: 3 })).results.map((r) => r.path);
      const byHybrid = (await vault.search({ query: question, mode: 'hybrid', k: 3 })).results.map((r) => r.path);
      assert.ok(!byKeyword.includes('Vehicle.md'), `keyword search should miss the paraphrase, got ${byKeyword}`);
      assert.ok(byHybrid.includes('Vehicle.md'), `hybrid should find the paraphrase, got ${byHybrid}`);
    } finally {
      await vault.close();
    }
  });

  it('an exact alias ranks first, and results cite lines that hold the text', async () => {
    const vault = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      const { results } = await vault.search({ query: 'QVS' });
      assert.equal(results[0].path, 'Qorvath setup.md');
      assert.equal(results[0].explain.exactTitle, true);
      for (const result of (await vault.search({ query: 'bread temperature' })).results) {
        const lines = (await readFile(path.join(vaultDir, result.path), 'utf8')).split('\n');
        assert.equal(lines.slice(result.startLine - 1, result.endLine).join('\n'), result.text);
      }
    } finally {
      await vault.close();
    }
  });

  it('filters typed into the query narrow the search; filters alone list what they admit, newest first', async () => {
    const vault = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      const all = await vault.search({ query: 'water seat piano bread', k: 10 });
      assert.ok(new Set(all.results.map((r) => r.path)).size >= 3);
      const narrowed = await vault.search({ query: 'water seat piano bread path:topics/M', k: 10 });
      assert.equal(narrowed.text, 'water seat piano bread');
      assert.deepEqual(narrowed.filters, { pathPrefix: 'topics/M' });
      assert.deepEqual([...new Set(narrowed.results.map((r) => r.path))], ['topics/Music.md']);

      const tagged = await vault.search({ query: 'tag:#tools' });
      assert.deepEqual(tagged.results.map((r) => r.path), ['Qorvath setup.md']);
      assert.equal(tagged.results[0].explain.keywordRank, null);
      // Tags add up: no note carries both.
      assert.deepEqual((await vault.search({ query: 'install', filters: { tags: ['tools'] } })).results.map((r) => r.path), ['Qorvath setup.md']);
      assert.deepEqual((await vault.search({ query: 'install tag:music', filters: { tags: ['tools'] } })).results, []);

      // Leaving out: a folder, a tag.
      const withoutMusic = await vault.search({ query: 'water seat piano bread -path:topics/Music', k: 10 });
      assert.ok(withoutMusic.results.length > 0 && withoutMusic.results.every((r) => r.path !== 'topics/Music.md'));
      assert.ok(!(await vault.search({ query: 'install registry -tag:tools', k: 10 })).results.some((r) => r.path === 'Qorvath setup.md'));

      const future = await vault.search({ query: 'bread after:2999-01-01' });
      assert.deepEqual(future.results, []);
      const byDate = (await vault.search({ query: 'path:topics/ before:2999', k: 10 })).results;
      assert.equal(byDate.length, 4, 'one result per note under topics/');
      const times = await Promise.all(byDate.map(async (r) => (await stat(path.join(vaultDir, r.path))).mtimeMs));
      assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');

      const bad = await vault.search({ query: 'bread after:someday' });
      assert.deepEqual(bad.problems, ['after:someday is not a date like 2026-11-25, 2026-11 or 2026']);
      assert.equal(bad.results[0].path, 'topics/Cooking.md', 'the search runs without the bad operator');
    } finally {
      await vault.close();
    }
  });

  it('restarting loads the persisted index without embedding anything', async () => {
    const vault = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      assert.equal(vault.status().pendingRebuild, undefined);
      const events: IndexEvent[] = [];
      const summary = await vault.index((e) => events.push(e));
      assert.equal(summary.embedded, 0);
      assert.equal(summary.changedNotes, 0);
      assert.ok(!events.some((e) => e.type === 'rebuild-started'));
      assert.equal((await vault.search({ query: 'tomato mulch' })).results[0].path, 'topics/Gardening.md');
    } finally {
      await vault.close();
    }
  });

  it('a reconciliation that finds nothing new writes nothing; one after a live update saves it', async () => {
    const vault = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      await vault.index();
      const before = (await vault.statusWithManifest()).manifest!;
      const summary = await vault.index();
      assert.equal(summary.changedNotes + summary.removedNotes, 0);
      assert.equal(summary.phaseSeconds.persist, 0);
      assert.equal((await vault.statusWithManifest()).manifest!.generation, before.generation, 'no new generation written');

      const note = path.join(vaultDir, 'Live note.md');
      await writeFile(note, '# Live note\n\nThe zyxwort blooms at dusk.\n');
      await vault.update(['Live note.md']);
      assert.equal((await vault.statusWithManifest()).manifest!.generation, before.generation, 'updates are not saved one by one');
      // The reconciliation finds the file already indexed, but the update is not on disk yet: it saves.
      const after = await vault.index();
      assert.equal(after.changedNotes, 0);
      assert.ok((await vault.statusWithManifest()).manifest!.generation > before.generation);
      await unlink(note);
      await vault.index();
    } finally {
      await vault.close();
    }
    const reopened = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      assert.equal(reopened.status().pendingRebuild, undefined);
      assert.equal((await reopened.search({ query: 'zyxwort', mode: 'keyword' })).results.length, 0, 'the deletion was saved too');
    } finally {
      await reopened.close();
    }
  });

  it('a faiss index built afresh on opening is saved by the first index run, then opens as saved', async () => {
    const otherData = path.join(root, 'data-backend-change');
    const generation = async (vault: CairnVault) => (await vault.statusWithManifest()).manifest!.generation;
    // Saved by the TypeScript backend: no faiss file for faiss to open next time.
    const plain = await CairnVault.open(configFor(vaultDir, otherData, (c) => (c.index.vector_backend = 'flat')));
    await plain.index().finally(() => plain.close());
    const vault = await CairnVault.open(configFor(vaultDir, otherData));
    try {
      assert.equal(vault.status().vectorBackend, 'faiss');
      assert.equal(vault.status().pendingRebuild, undefined);
      const before = await generation(vault);
      const summary = await vault.index();
      assert.equal(summary.changedNotes + summary.removedNotes, 0);
      assert.ok((await generation(vault)) > before, 'the rebuilt faiss index was saved');
      const saved = await generation(vault);
      await vault.index();
      assert.equal(await generation(vault), saved, 'and only once');
    } finally {
      await vault.close();
    }
    const reopened = await CairnVault.open(configFor(vaultDir, otherData));
    try {
      const before = await generation(reopened);
      await reopened.index();
      assert.equal(await generation(reopened), before, 'opened with its saved faiss index: nothing to save');
    } finally {
      await reopened.close();
    }
  });

  it('deleting a note removes all its chunks from the keyword, vector and graph indices', async () => {
    await unlink(path.join(vaultDir, 'Qorvath setup.md'));
    const vault = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      const summary = await vault.index();
      assert.equal(summary.removedNotes, 1);
      for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
        const { results } = await vault.search({ query: 'qorvath internal registry configuration file', mode, k: 20 });
        assert.ok(!results.some((r) => r.path === 'Qorvath setup.md'), `${mode} still returns the deleted note`);
      }
      const status = vault.status();
      assert.equal(status.notes, 5);
      // The graph: links to the deleted note are unresolved now, so it lifts nothing.
      const { results } = await vault.search({ query: 'tomato plants water', k: 10 });
      assert.ok(results.every((r) => r.explain.graph?.from !== 'Qorvath setup.md'));
    } finally {
      await vault.close();
    }
  });

  it('changing max_chunk_chars rebuilds, re-embedding only texts never embedded, into what a fresh index would be', async () => {
    const smaller = (c: CairnConfig) => (c.chunking.max_chunk_chars = 150);
    const vault = await CairnVault.open(configFor(vaultDir, dataDir, smaller));
    const freshDir = await mkdtemp(path.join(os.tmpdir(), 'cairn-fresh-'));
    const fresh = await CairnVault.open(configFor(vaultDir, freshDir, smaller));
    try {
      assert.match(vault.status().pendingRebuild ?? '', /chunking config changed \(max_chunk_chars: 2000 → 150\)/);
      const events: IndexEvent[] = [];
      const summary = await vault.index((e) => events.push(e));
      assert.ok(events.some((e) => e.type === 'rebuild-started'));
      assert.ok(summary.indexed > 0 && summary.indexed < summary.chunks, 'chunks that came out as they were kept their entries');
      assert.ok(summary.embedded > 0 && summary.embedded < summary.chunks);
      // Only the chunks indexed anew needed a vector: embedded now or read from the cache, nothing else read.
      assert.equal(summary.embedded + summary.cached, summary.indexed);
      // Re-chunked into the loaded index (chunks that came out unchanged kept their entries): the same index as a fresh build.
      await fresh.index();
      assert.deepEqual(vault.snapshot(), fresh.snapshot());
      for (const query of ['photosynthesis light', 'Alias Zeta', 'how do plants grow']) {
        const hits = async (v: CairnVault) => (await v.search({ query, k: 10 })).results.map((r) => [r.chunkId, r.score.toFixed(6)]);
        assert.deepEqual(await hits(vault), await hits(fresh), query);
      }
    } finally {
      await vault.close();
      await fresh.close();
      await rm(freshDir, { recursive: true, force: true });
    }
    // Back to the default: every text was embedded before.
    const again = await CairnVault.open(configFor(vaultDir, dataDir));
    try {
      const summary = await again.index();
      assert.equal(summary.embedded, 0);
      assert.ok(summary.indexed > 0);
      assert.equal(summary.cached, summary.indexed);
    } finally {
      await again.close();
    }
  });

  it('search options never trigger a rebuild', async () => {
    const vault = await CairnVault.open(configFor(vaultDir, dataDir, (c) => Object.assign(c.search, { k: 3, rrf_k: 10, graph_multiplier: 0, max_chunks_per_note: 1 })));
    try {
      assert.equal(vault.status().pendingRebuild, undefined);
      assert.ok((await vault.search({ query: 'train mountains' })).results.length <= 3);
    } finally {
      await vault.close();
    }
  });

  it('a truncated or damaged index file is detected and rebuilt, never a crash', async () => {
    const vaultData = path.join(dataDir, 'vaults', (await readdir(path.join(dataDir, 'vaults')))[0]);
    for (const damage of [
      (gen: string) => truncate(path.join(gen, 'keyword.jsonl'), 100),
      (gen: string) => appendFile(path.join(gen, 'notes.jsonl'), '{"broken'),
      async (gen: string) => truncate(path.join(gen, 'vectors', (await readdir(path.join(gen, 'vectors'))).find((f) => f.endsWith('.f32'))!), 64),
      () => truncate(path.join(vaultData, 'manifest.json'), 10),
    ]) {
      const { generation } = JSON.parse(await readFile(path.join(vaultData, 'manifest.json'), 'utf8')) as { generation: number };
      const current = path.join(vaultData, `g${String(generation).padStart(6, '0')}`);
      assert.ok((await stat(current)).isDirectory());
      await damage(current);
      const vault = await CairnVault.open(configFor(vaultDir, dataDir));
      try {
        assert.ok(vault.status().pendingRebuild, 'the damage went unnoticed');
        const summary = await vault.index();
        assert.equal(summary.notes, 5);
        assert.equal(summary.embedded, 0, 'the embedding cache survives index damage');
        assert.ok((await vault.search({ query: 'piano scales metronome' })).results[0].path === 'topics/Music.md');
      } finally {
        await vault.close();
      }
    }
  });
});

describe('citations inside a chunk of merged small sections', { timeout: 60_000 }, () => {
  let root: string;
  let vault: CairnVault;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-parts-'));
    const vaultDir = path.join(root, 'vault');
    await mkdir(vaultDir, { recursive: true });
    await writeFile(
      path.join(vaultDir, 'Kitchen.md'),
      '# Kitchen\n\n## Knives\n\nHone the chef knife on a whetstone weekly.\n\n## Pans\n\nSeason the cast iron pan with oil after every wash, never soak it, and store it dry with a paper towel inside.\n',
    );
    await writeFile(path.join(vaultDir, 'Garden.md'), '# Garden\n\nThe tomato plants need water every morning during the hot weeks of summer.\n');
    vault = await CairnVault.open(configFor(vaultDir, path.join(root, 'data')));
    await vault.index();
  });
  after(async () => {
    await vault?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('the passage is cited by the heading of the part the query matched, with the whole passage\'s lines', async () => {
    const [byKnife] = (await vault.search({ query: 'sharpen with a whetstone' })).results;
    assert.equal(byKnife.path, 'Kitchen.md');
    assert.deepEqual(byKnife.parts?.map((p) => [p.startLine, p.headerPath.at(-1)]), [[1, 'Kitchen'], [3, 'Knives'], [7, 'Pans']], 'the three sections are one chunk');
    assert.deepEqual(byKnife.headerPath, ['Kitchen', 'Knives']);
    assert.equal(byKnife.anchor, 'knives');
    assert.deepEqual([byKnife.startLine, byKnife.endLine], [1, 9]);
    const [byPan] = (await vault.search({ query: 'cast iron pan' })).results;
    assert.equal(byPan.chunkId, byKnife.chunkId);
    assert.deepEqual(byPan.headerPath, ['Kitchen', 'Pans']);
    // The note's top heading is over every part: a query naming only it keeps the chunk's own citation, whose
    // header path holds it (a subsection is under its parents' headings too).
    assert.deepEqual((await vault.search({ query: 'kitchen' })).results[0].headerPath, ['Kitchen', 'Pans']);
  });
});
