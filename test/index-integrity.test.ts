import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnVault, type IndexEvent } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';

const TOPICS = ['gardening tomatoes mulch', 'baking sourdough bread', 'mountain railway journey', 'piano scales metronome', 'bicycle chain lubrication'];

async function open(vault: string, dataRoot: string): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataRoot;
  return CairnVault.open(config);
}

/** The vault's index folder inside a data root (there is one vault per root here). */
async function indexDir(dataRoot: string): Promise<string> {
  const [name] = await readdir(path.join(dataRoot, 'vaults'));
  return path.join(dataRoot, 'vaults', name);
}

async function generationDir(dataRoot: string): Promise<string> {
  const dir = await indexDir(dataRoot);
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { generation: number };
  return path.join(dir, `g${String(manifest.generation).padStart(6, '0')}`);
}

/** Changes one byte of a file in place (its length stays), at the first occurrence of `near` or mid-file. */
async function flipByte(file: string, near?: string): Promise<void> {
  const bytes = await readFile(file);
  const at = near === undefined ? bytes.length >> 1 : bytes.indexOf(near) + near.length - 1;
  assert.ok(at >= 0 && at < bytes.length, `${near} not found in ${file}`);
  // A letter stays a letter (so text files stay valid JSON); other bytes are inverted.
  bytes[at] = bytes[at] >= 0x61 && bytes[at] < 0x7a ? bytes[at] + 1 : bytes[at] ^ 0xff;
  await writeFile(file, bytes);
}

/** Every result cites lines of its note that hold its text. */
async function assertCitations(vault: CairnVault, vaultDir: string, query: string, expectedPath: string): Promise<void> {
  const { results } = await vault.search({ query, k: 5 });
  assert.equal(results[0]?.path, expectedPath, `"${query}" should find ${expectedPath}`);
  for (const result of results) {
    const lines = (await readFile(path.join(vaultDir, result.path), 'utf8')).split('\n');
    assert.equal(lines.slice(result.startLine - 1, result.endLine).join('\n'), result.text, `citation of ${result.path}`);
  }
}

describe('a damaged index file is detected on open and rebuilt from cached embeddings', { timeout: 240_000 }, () => {
  let root: string;
  let vaultDir: string;
  let pristine: string;
  let cases = 0;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-integrity-'));
    vaultDir = path.join(root, 'vault');
    await mkdir(vaultDir, { recursive: true });
    for (const [i, topic] of TOPICS.entries()) {
      const [word] = topic.split(' ');
      await writeFile(path.join(vaultDir, `${word}.md`), `# ${word}\n\nNotes on ${topic}.\n\n## Details ${i}\n\nMore about ${topic}, see [[${TOPICS[(i + 1) % TOPICS.length].split(' ')[0]}]].\n`);
    }
    pristine = path.join(root, 'pristine');
    const vault = await open(vaultDir, pristine);
    try {
      await vault.index();
    } finally {
      await vault.close();
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  /** A copy of the good data root, damaged by `damage`; then opened: the damage is reported, and a rebuild reuses the cache. */
  async function expectRebuild(damage: (dataRoot: string) => Promise<void>, reported: RegExp): Promise<void> {
    const dataRoot = path.join(root, `case-${cases++}`);
    await cp(pristine, dataRoot, { recursive: true });
    await damage(dataRoot);
    const vault = await open(vaultDir, dataRoot);
    try {
      assert.match(vault.status().pendingRebuild ?? '(no rebuild)', reported);
      // Until the rebuild, searches answer from an empty index rather than crash or cite the wrong note.
      await vault.search({ query: 'sourdough', k: 5 });
      const events: IndexEvent[] = [];
      const summary = await vault.index((e) => events.push(e));
      assert.ok(events.some((e) => e.type === 'rebuild-started' && reported.test(e.reason)));
      assert.equal(summary.notes, TOPICS.length);
      assert.equal(summary.embedded, 0, 'the rebuild reuses the cached embeddings');
      await assertCitations(vault, vaultDir, 'sourdough bread', 'baking.md');
      await assertCitations(vault, vaultDir, 'metronome', 'piano.md');
    } finally {
      await vault.close();
    }
    const reopened = await open(vaultDir, dataRoot);
    try {
      assert.equal(reopened.status().pendingRebuild, undefined, 'the rebuilt index opens cleanly');
      await assertCitations(reopened, vaultDir, 'railway journey', 'mountain.md');
    } finally {
      await reopened.close();
    }
  }

  it('notes.jsonl: a chunk id changed in place', () =>
    expectRebuild(async (d) => flipByte(path.join(await generationDir(d), 'notes.jsonl'), '"id":"ba'), /index file notes\.jsonl is damaged \(checksum mismatch\): rebuilding from cached embeddings/));

  it('notes.jsonl: a note path changed in place', () =>
    expectRebuild(async (d) => flipByte(path.join(await generationDir(d), 'notes.jsonl'), '"path":"bak'), /notes\.jsonl is damaged \(checksum mismatch\)/));

  it('notes.texts.jsonl (the text store): a byte of a chunk text changed in place', () =>
    expectRebuild(async (d) => flipByte(path.join(await generationDir(d), 'notes.texts.jsonl'), 'sourdo'), /index file notes\.texts\.jsonl is damaged \(checksum mismatch\): rebuilding from cached embeddings/));

  it('notes.texts.jsonl missing', () =>
    expectRebuild(async (d) => rm(path.join(await generationDir(d), 'notes.texts.jsonl')), /notes\.texts\.jsonl is damaged \(missing\)/));

  it('keyword.jsonl: a byte changed in place', () =>
    expectRebuild(async (d) => flipByte(path.join(await generationDir(d), 'keyword.jsonl'), 'sourdo'), /keyword\.jsonl is damaged \(checksum mismatch\)/));

  it('notes.jsonl: a byte that breaks its JSON is reported as damage to the file, not as what its parse made of it', () =>
    expectRebuild(async (d) => flipByte(path.join(await generationDir(d), 'notes.jsonl'), '{"path"'), /index file notes\.jsonl is damaged \(checksum mismatch\)/));

  it('graph.json: a byte changed in place', () =>
    expectRebuild(async (d) => flipByte(path.join(await generationDir(d), 'graph.json'), 'piano'), /graph\.json is damaged \(checksum mismatch\)/));

  it('the vector files: a byte changed in place', async () => {
    const vectors = path.join(await generationDir(pristine), 'vectors');
    assert.deepEqual((await readdir(vectors)).map((name) => path.extname(name)).sort(), ['.f32', '.faiss', '.json']);
    for (const name of await readdir(vectors)) {
      await expectRebuild(async (d) => flipByte(path.join(await generationDir(d), 'vectors', name), name.endsWith('.json') ? '"count"' : undefined), new RegExp(`vectors/${name.replace(/\./g, '\\.')} is damaged`));
    }
  });

  it('a folder in place of an index file', () =>
    expectRebuild(async (d) => {
      const file = path.join(await generationDir(d), 'notes.jsonl');
      await rm(file);
      await mkdir(file);
    }, /notes\.jsonl is damaged \(a folder\)/));

  it('manifest.json damaged or a folder: no index, and the next save replaces it', async () => {
    await expectRebuild(async (d) => writeFile(path.join(await indexDir(d), 'manifest.json'), '{"generation": 1, "fi'), /manifest\.json is damaged \(not valid JSON/);
    await expectRebuild(async (d) => {
      const manifest = path.join(await indexDir(d), 'manifest.json');
      await rm(manifest);
      await mkdir(path.join(manifest, 'inside'), { recursive: true });
    }, /manifest\.json is damaged \(a folder\)/);
    await expectRebuild(async (d) => {
      const manifest = path.join(await indexDir(d), 'manifest.json');
      const value = JSON.parse(await readFile(manifest, 'utf8')) as { files: Record<string, unknown> };
      value.files['../../../outside.txt'] = value.files['graph.json'];
      await writeFile(manifest, JSON.stringify(value));
    }, /manifest\.json is damaged \(lists a file outside its folder/);
  });

  it('a link in place of an index file is not followed', () =>
    expectRebuild(async (d) => {
      const file = path.join(await generationDir(d), 'graph.json');
      const elsewhere = path.join(root, `graph-copy-${cases}.json`);
      await cp(file, elsewhere);
      await rm(file);
      await symlink(elsewhere, file);
    }, /graph\.json is damaged \(not a regular file\)/));

  it('a save recovers when manifest.json became a folder while the vault was open', async () => {
    const dataRoot = path.join(root, `case-${cases++}`);
    await cp(pristine, dataRoot, { recursive: true });
    const vault = await open(vaultDir, dataRoot);
    try {
      const manifest = path.join(await indexDir(dataRoot), 'manifest.json');
      await rm(manifest);
      await mkdir(path.join(manifest, 'inside'), { recursive: true });
      await writeFile(path.join(vaultDir, 'extra.md'), '# Extra\n\nKayaking on the lake.\n');
      await vault.update(['extra.md']);
      await vault.persist();
      assert.ok((await stat(manifest)).isFile());
    } finally {
      await vault.close();
      await rm(path.join(vaultDir, 'extra.md'));
    }
    const reopened = await open(vaultDir, dataRoot);
    try {
      assert.equal(reopened.status().pendingRebuild, undefined);
      assert.equal((await reopened.search({ query: 'kayaking', mode: 'keyword', k: 1 })).results[0]?.path, 'extra.md');
    } finally {
      await reopened.close();
    }
  });

  it('an embeddings.bin that cannot be read: the vault opens and answers, and indexing fails with the reason', async () => {
    const dataRoot = path.join(root, `case-${cases++}`);
    await cp(pristine, dataRoot, { recursive: true });
    const cacheFile = path.join(await indexDir(dataRoot), 'embeddings.bin');
    await rm(cacheFile);
    // A link to itself: reading it fails (ELOOP), which is neither "missing" nor "damaged" and is not papered over.
    await symlink(cacheFile, cacheFile);
    const vault = await open(vaultDir, dataRoot);
    try {
      await assertCitations(vault, vaultDir, 'sourdough bread', 'baking.md');
      await writeFile(path.join(vaultDir, 'kayak.md'), '# Kayak\n\nPaddling across the lake at dawn.\n');
      await assert.rejects(vault.update(['kayak.md']), /ELOOP|symbolic links/);
      await assertCitations(vault, vaultDir, 'sourdough bread', 'baking.md');
    } finally {
      await rm(path.join(vaultDir, 'kayak.md'));
      await vault.close().catch(() => {});
    }
  });

  it('embeddings.bin replaced by a folder: open and save recover, and the vectors are embedded again', async () => {
    const dataRoot = path.join(root, `case-${cases++}`);
    await cp(pristine, dataRoot, { recursive: true });
    const cacheFile = path.join(await indexDir(dataRoot), 'embeddings.bin');
    await rm(cacheFile);
    await mkdir(path.join(cacheFile, 'inside'), { recursive: true });
    const vault = await open(vaultDir, dataRoot);
    try {
      const summary = await vault.rebuild();
      assert.ok(summary.embedded > 0, 'what the cache lost is embedded again');
      await assertCitations(vault, vaultDir, 'sourdough bread', 'baking.md');
    } finally {
      await vault.close();
    }
    assert.ok((await stat(cacheFile)).isFile(), 'the save replaced the folder');
    const reopened = await open(vaultDir, dataRoot);
    try {
      assert.equal((await reopened.rebuild()).embedded, 0, 'the repaired cache serves the next rebuild');
    } finally {
      await reopened.close();
    }
  });
});
