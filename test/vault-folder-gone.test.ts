// The vault folder itself goes while Cairn follows it (moved, deleted, a drive unmounted): the index keeps every
// note and answers, the user is told once, and once the folder is back it is followed again and reconciled.
// chokidar alone stops watching for good when its folder goes, so before this the app went stale until restarted.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AppEvent } from '../core/contract/appApi.js';
import type { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { liveLoopOf } from './support/liveLoop.js';
import { VaultWatcher, type VaultChangeBatch } from '../core/live/vaultWatcher.js';
import { eventually } from './support/eventually.js';
import { indexedNotesVault } from './support/notesVault.js';

const NOTES = {
  'Otters.md': '# Otters\n\nOtters hold hands while they sleep in the river.\n',
  'Rivers/Deltas.md': '# Deltas\n\nA delta forms where a river meets the sea and drops its silt.\n',
  'Taxes.md': '# Taxes\n\nFile the quarterly return before the deadline.\n',
};

async function keywordPaths(vault: CairnVault, query: string): Promise<string[]> {
  return (await vault.search({ query, mode: 'keyword', k: 10 })).results.map((r) => r.path);
}

describe('the vault folder goes and comes back', { timeout: 120_000 }, () => {
  it('an update of notes that are missing because the whole folder is gone removes nothing, and says why', async () => {
    const { vault, remove } = await indexedNotesVault('cairn-folder-gone-', NOTES);
    const folder = vault.vaultPath;
    try {
      await rename(folder, `${folder}-moved`);
      await assert.rejects(vault.update(['Otters.md', 'Taxes.md']), /Vault root .* cannot be opened: no longer exists/);
      assert.equal(vault.hasNote('Otters.md'), true);
      assert.equal(vault.hasNote('Taxes.md'), true);
      assert.deepEqual(await keywordPaths(vault, 'otters sleep'), ['Otters.md']);
      // A note deleted while its folder is there is still removed.
      await rename(`${folder}-moved`, folder);
      await rm(path.join(folder, 'Taxes.md'));
      await vault.update(['Taxes.md']);
      assert.equal(vault.hasNote('Taxes.md'), false);
    } finally {
      await rm(`${folder}-moved`, { recursive: true, force: true });
      await remove();
    }
  });

  it('the live loop keeps the index while the folder is gone, tells it once, and follows the folder again once it is back', async () => {
    const { vault, remove } = await indexedNotesVault('cairn-folder-gone-live-', NOTES);
    const folder = vault.vaultPath;
    const events: AppEvent[] = [];
    const live = liveLoopOf(vault, events);
    const config = defaultConfig();
    config.index.debounce_ms = 50;
    const folderEvents = () => events.filter((e) => e.type === 'vault-folder').map((e) => (e as { present: boolean }).present);
    try {
      await live.watch(vault, config);
      await rename(folder, `${folder}-moved`);
      await eventually(() => folderEvents().length === 1, 'the folder reported gone');
      assert.deepEqual(folderEvents(), [false]);
      assert.equal(live.vaultFolderGone, true);
      // Long enough for every event of the folder's going to have been applied, had it been.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await live.idle();
      for (const note of Object.keys(NOTES)) assert.equal(vault.hasNote(note), true, `${note} is still indexed`);
      assert.deepEqual(await keywordPaths(vault, 'delta silt'), ['Rivers/Deltas.md']);
      assert.deepEqual(events.filter((e) => e.type === 'note-changed'), [], 'no note was reported removed');
      assert.deepEqual(events.filter((e) => e.type === 'error'), [], 'the going is told once, as that');

      // Back, with a note written while it was away: followed and reconciled.
      await writeFile(path.join(`${folder}-moved`, 'Beavers.md'), '# Beavers\n\nBeavers build dams of willow.\n');
      await rename(`${folder}-moved`, folder);
      await eventually(() => folderEvents().length === 2, 'the folder reported back');
      assert.deepEqual(folderEvents(), [false, true]);
      assert.equal(live.vaultFolderGone, false);
      await eventually(() => vault.hasNote('Beavers.md'), 'the note written while away is indexed');
      // And watched again: a save made now is applied.
      await writeFile(path.join(folder, 'Otters.md'), '# Otters\n\nOtters crack clams on their bellies.\n');
      await eventually(async () => (await keywordPaths(vault, 'clams bellies')).includes('Otters.md'), 'a save after the return applied');
      assert.equal(vault.hasNote('Taxes.md'), true);
    } finally {
      await live.close();
      await rm(`${folder}-moved`, { recursive: true, force: true });
      await remove();
    }
  });

  it('the watcher drops what a moved folder set off, looks for it, and asks for a reconcile once a new folder stands there', async () => {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cairn-folder-gone-watch-')));
    const folder = path.join(root, 'vault');
    await mkdir(path.join(folder, 'sub'), { recursive: true });
    await writeFile(path.join(folder, 'a.md'), '# A\n');
    await writeFile(path.join(folder, 'sub', 'b.md'), '# B\n');
    const batches: VaultChangeBatch[] = [];
    const changes: boolean[] = [];
    const errors: Error[] = [];
    const watcher = new VaultWatcher(folder, { include: ['**/*'], exclude: [], extensions: ['.md'] }, {
      debounceMs: 50,
      rootPollMs: 100,
      links: async () => [],
      onBatch: async (batch) => void batches.push(batch),
      onError: (error) => errors.push(error),
      onRootChange: (present) => changes.push(present),
    });
    try {
      await watcher.start();
      await rename(folder, `${folder}-moved`);
      await eventually(() => changes.length === 1, 'the folder reported gone');
      assert.equal(watcher.rootMissing, true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(batches.length, 0, 'no deletion of every note, no reconcile of a folder that is not there');
      // Another folder under the same name (a fresh clone, a remounted drive).
      await mkdir(folder);
      await writeFile(path.join(folder, 'c.md'), '# C\n');
      await eventually(() => changes.length === 2, 'the folder reported back');
      assert.deepEqual(changes, [false, true]);
      assert.equal(watcher.rootMissing, false);
      await eventually(() => batches.some((b) => b.folders), 'a reconcile asked for');
      await writeFile(path.join(folder, 'd.md'), '# D\n');
      await eventually(() => batches.some((b) => b.files.has('d.md')), 'a save in the new folder reported');
      assert.deepEqual(errors, []);
    } finally {
      await watcher.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
