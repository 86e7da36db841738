// A save that fails for want of space, on a real full disk: a 16 MB tmpfs as the data folder, filled to its last
// 16 kB by a file beside the index. Nothing saved before is lost, nothing half-written is left behind to take the
// space, the changes stay searchable, the live loop goes on (it used to end the process with an unhandled
// rejection), and the next save after space is freed writes everything. Mounting needs root: elsewhere it is skipped.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { liveLoopOf } from './support/liveLoop.js';
import { CairnService } from '../core/app/cairnApp.js';
import type { AppEvent } from '../core/contract/appApi.js';
import { eventually } from './support/eventually.js';

const CAIRN = new URL('../bin/cairn', import.meta.url).pathname;
const LEFT_FREE = 16 * 1024;

const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-save-failure-'));
const disk = path.join(root, 'disk');
await mkdir(disk);
const cannotMount = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', disk], { stdio: 'ignore' });
    return false;
  } catch {
    return 'mounting a small tmpfs needs root (this test fills a real disk)';
  }
})();

const vaultDir = path.join(root, 'vault');
const dataDir = path.join(disk, 'data');
const filler = path.join(disk, 'filler');

/** A note of its own words: each one's text is new to the index (and to the embedding cache). */
function noteText(i: number): string {
  const lines = [`# Field note ${i}`, ''];
  for (let p = 0; p < 6; p++) lines.push(`Observation ${i}.${p}: the heron number ${i} waded past marker ${p * 7 + i} looking for fish near the reeds, logged as quillwort${i}x${p}.`, '');
  return lines.join('\n');
}

async function fillDisk(): Promise<void> {
  const { bavail, bsize } = await statfs(disk);
  await writeFile(filler, Buffer.alloc(Math.max(0, bavail * bsize - LEFT_FREE)));
}

function open(): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vaultDir;
  config.index.data_dir = dataDir;
  config.index.debounce_ms = 50;
  // Adapting would write a table too: not what this test is about.
  config.embedding.adapt = false;
  return CairnVault.open(config);
}

const generations = async (vault: CairnVault) => (await readdir(vault.dataDir)).filter((e) => /^g\d+$/.test(e)).sort();
const manifestOf = async (vault: CairnVault) => JSON.parse(await readFile(path.join(vault.dataDir, 'manifest.json'), 'utf8')) as { generation: number; notes: number };

describe('a save that fails for want of space', { skip: cannotMount, timeout: 180_000 }, () => {
  let vault: CairnVault;

  before(async () => {
    await mkdir(vaultDir, { recursive: true });
    for (let i = 0; i < 4; i++) await writeFile(path.join(vaultDir, `Note ${i}.md`), noteText(i));
    vault = await open();
    const first = await vault.index();
    assert.equal(first.unsaved, undefined, 'the first index fits');
  });
  after(async () => {
    await vault?.close();
    if (!cannotMount) execFileSync('umount', [disk]);
    await rm(root, { recursive: true, force: true });
  });

  it('keeps the index saved before, leaves no part of the new one, and answers from memory', async () => {
    const before = { generations: await generations(vault), manifest: await manifestOf(vault) };
    for (let i = 4; i < 40; i++) await writeFile(path.join(vaultDir, `Note ${i}.md`), noteText(i));
    await fillDisk();
    const summary = await vault.index();
    assert.match(summary.unsaved ?? '', /the index could not be saved in .+ \(writing .+: no space left on device \(ENOSPC\)\); the index saved before is kept/);
    assert.ok(summary.unsaved!.includes(vault.dataDir), 'it names the folder');
    assert.deepEqual(await generations(vault), before.generations, 'no half-written generation is left to take the space');
    assert.deepEqual(await manifestOf(vault), before.manifest, 'the manifest still names the index saved before');
    assert.equal(summary.notes, 40);
    const { results } = await vault.search({ query: 'quillwort37x3', k: 3 });
    assert.equal(results[0]?.path, 'Note 37.md', 'a note indexed since is found');
    assert.match(vault.status().unsaved ?? '', /no space left on device/);
  });

  it('writes everything with the next save once there is space, and clears the problem', async () => {
    await rm(filler);
    await vault.persist();
    assert.equal(vault.status().unsaved, undefined);
    assert.equal((await manifestOf(vault)).notes, 40);
    await vault.close();
    vault = await open();
    assert.equal(vault.status().notes, 40, 'a fresh open reads all 40 notes from the saved index');
    const { results } = await vault.search({ query: 'quillwort37x3', k: 3 });
    assert.equal(results[0]?.path, 'Note 37.md');
  });

  it('the live loop reports a failed save once, keeps the edit searchable, and saves after the next change', async () => {
    const saves: Array<string | undefined> = [];
    const events: AppEvent[] = [];
    const live = liveLoopOf(vault, events, saves);
    const config = defaultConfig();
    config.index.debounce_ms = 50;
    config.index.reconcile_interval_seconds = 0;
    await live.watch(vault, config);
    try {
      await fillDisk();
      for (let i = 40; i < 60; i++) await writeFile(path.join(vaultDir, `Note ${i}.md`), noteText(i));
      await eventually(async () => (await vault.search({ query: 'quillwort59x2', k: 1 })).results[0]?.path === 'Note 59.md', 'the new notes are searchable');
      await eventually(() => saves.length > 0, 'a save was tried', 20_000);
      assert.match(saves[0] ?? '', /the index could not be saved in .+no space left on device \(ENOSPC\)/);
      assert.equal((await manifestOf(vault)).notes, 40, 'the index saved before is kept');

      await rm(filler);
      await writeFile(path.join(vaultDir, 'Note 60.md'), noteText(60));
      await eventually(() => saves.at(-1) === undefined, 'the save after the next change succeeded', 20_000);
      assert.equal((await manifestOf(vault)).notes, 61);
      assert.equal(vault.status().unsaved, undefined);
    } finally {
      await live.close();
    }
  });

  it('the app tells of a failed save once, shows it in its status until a save succeeds, and keeps working', async () => {
    await vault.close();
    const configFile = path.join(root, 'config.toml');
    await writeFile(configFile, `[vault]\npath = ${JSON.stringify(vaultDir)}\n[index]\ndata_dir = ${JSON.stringify(dataDir)}\ndebounce_ms = 50\n[embedding]\nadapt = false\n`);
    const events: AppEvent[] = [];
    const service = await CairnService.start({ configFile, listener: (event) => events.push(event) });
    try {
      await fillDisk();
      const errors = () => events.filter((e): e is Extract<AppEvent, { type: 'error' }> => e.type === 'error');
      for (let i = 61; i < 70; i++) await writeFile(path.join(vaultDir, `Note ${i}.md`), noteText(i));
      await eventually(() => errors().length > 0, 'the failed save is told', 20_000);
      assert.match(errors()[0]!.message, /could not be saved .+no space left on device \(ENOSPC\).+Your notes stay searchable, and saving is tried again\./);
      assert.match((await service.getState()).status?.unsaved ?? '', /no space left on device/);
      const { results } = await service.search({ query: 'quillwort68x1', k: 1 });
      assert.equal(results[0]?.path, 'Note 68.md');
      await writeFile(path.join(vaultDir, 'Note 70.md'), noteText(70));
      await eventually(async () => (await service.search({ query: 'quillwort70x1', k: 1 })).results[0]?.path === 'Note 70.md', 'a later edit is searchable');
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.equal(errors().length, 1, 'a save failing again for the same reason is not told again');

      await rm(filler);
      await writeFile(path.join(vaultDir, 'Note 71.md'), noteText(71));
      await eventually(async () => (await service.getState()).status?.unsaved === undefined, 'the status clears once a save succeeds', 20_000);
      assert.equal((await manifestOf(vault)).notes, 72);

      await fillDisk();
      await writeFile(path.join(vaultDir, 'Note 60.md'), noteText(600));
      await eventually(() => errors().length === 2, 'a save failing after one succeeded is told again', 20_000);
      await rm(filler);
      await writeFile(path.join(vaultDir, 'Note 60.md'), noteText(60));
      await eventually(async () => (await service.getState()).status?.unsaved === undefined, 'and clears again', 20_000);
    } finally {
      await service.close();
      vault = await open();
    }
  });

  it('`cairn index` fails naming the folder and the cause; `cairn search` warns and answers', async () => {
    await vault.close();
    await writeFile(path.join(vaultDir, 'Note 72.md'), noteText(72));
    await fillDisk();
    const index = await cairn(['index', '--vault', vaultDir, '--data-dir', dataDir]);
    assert.equal(index.code, 1);
    assert.match(index.stderr, /cairn: error: the index could not be saved in .+no space left on device \(ENOSPC\)\); the index saved before is kept/);
    const search = await cairn(['search', 'quillwort72x4', '--vault', vaultDir, '--data-dir', dataDir, '--k', '1']);
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /^1\. Note 72\.md/m);
    assert.match(search.stderr, /cairn: warning: the index could not be saved .+; this command answers from the index in memory/);
    await rm(filler);
    vault = await open();
  });
});

function cairn(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
