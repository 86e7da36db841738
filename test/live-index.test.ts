// The live loop on its own (core/live/liveIndex.ts) over a real vault, chokidar and all: each saved file is
// announced as added, changed or removed (told apart by the cheap hasNote), and a burst of changes is saved once.
import assert from 'node:assert/strict';
import { readdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AppEvent } from '../core/contract/appApi.js';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { LiveIndex, PERSIST_DELAY_MS, PERSIST_DELAY_PER_SAVE_TIME, persistDelay } from '../core/live/liveIndex.js';
import { eventually } from './support/eventually.js';
import { indexedNotesVault } from './support/notesVault.js';

describe('the live loop', { timeout: 120_000 }, () => {
  let vault: CairnVault;
  /** The vault the host serves, once a test replaces the first one. */
  let current: CairnVault | undefined;
  let remove: () => Promise<void>;
  let live: LiveIndex<CairnVault>;
  let closed = false;
  const events: AppEvent[] = [];
  let changes = 0;
  const saveProblems: string[] = [];

  before(async () => {
    ({ vault, remove } = await indexedNotesVault('cairn-live-index-', {
      'Otters.md': '# Otters\n\nOtters hold hands while they sleep in the river.\n',
      'Rivers.md': '# Rivers\n\nRivers carry water, fish and sleeping otters to the sea.\n',
      'Taxes.md': '# Taxes\n\nFile the quarterly return before the deadline.\n',
    }));
    live = new LiveIndex<CairnVault>({
      vault: () => current ?? vault,
      closed: () => closed,
      onIndexEvent: () => {},
      emit: (event) => events.push(event),
      indexChanged: async () => void changes++,
      saved: (problem) => void (problem && saveProblems.push(problem)),
    });
    const config = defaultConfig();
    config.index.debounce_ms = 50;
    await live.watch(vault, config);
  });
  after(async () => {
    closed = true;
    await live?.close();
    await remove?.();
  });

  const changeOf = (file: string) => events.filter((e) => e.type === 'note-changed' && e.path === file).map((e) => (e as { change: string }).change);

  it('hasNote tells an indexed note from an unknown path', () => {
    assert.equal(vault.hasNote('Otters.md'), true);
    assert.equal(vault.hasNote('Nowhere.md'), false);
  });

  it('announces a new note as added, an edit as changed and a deletion as removed', async () => {
    const file = path.join(vault.vaultPath, 'Beavers.md');
    await writeFile(file, '# Beavers\n\nBeavers build dams across the river.\n');
    await eventually(() => changeOf('Beavers.md').includes('added'), 'added');
    assert.equal(vault.hasNote('Beavers.md'), true);
    await writeFile(file, '# Beavers\n\nBeavers gnaw willow and aspen.\n');
    await eventually(() => changeOf('Beavers.md').includes('changed'), 'changed');
    await unlink(file);
    await eventually(() => changeOf('Beavers.md').includes('removed'), 'removed');
    assert.equal(vault.hasNote('Beavers.md'), false);
    assert.deepEqual(changeOf('Beavers.md'), ['added', 'changed', 'removed']);
    assert.ok(changes >= 3, 'each batch tells the host the index changed');
  });

  it('saves a burst of changes once, PERSIST_DELAY_MS after the last', async () => {
    const before = await readdir(vault.dataDir);
    await writeFile(path.join(vault.vaultPath, 'Otters.md'), '# Otters\n\nOtters juggle pebbles.\n');
    await eventually(() => changeOf('Otters.md').includes('changed'), 'changed');
    assert.deepEqual(await readdir(vault.dataDir), before, 'nothing is saved before the delay');
    await new Promise((resolve) => setTimeout(resolve, PERSIST_DELAY_MS + 500));
    await live.idle();
    assert.notDeepEqual(await readdir(vault.dataDir), before, 'the change is saved after the delay');
    assert.deepEqual(saveProblems, [], 'and the host is told it was saved');
  });

  it('waits longer after a slow save: saving takes at most a twentieth of the time while edits go on', () => {
    assert.equal(persistDelay(0), PERSIST_DELAY_MS);
    assert.equal(persistDelay(50), PERSIST_DELAY_MS, 'a quick save keeps the short delay');
    // A save of a million chunks (about a minute) is not repeated within twenty minutes of quiet.
    assert.equal(persistDelay(60_000), PERSIST_DELAY_PER_SAVE_TIME * 60_000);
    assert.ok(persistDelay(60_000) >= 20 * 60_000);
  });

  it('related notes name other notes, nearest by meaning first, at most as many as asked, never the note itself', () => {
    const related = vault.noteInfo('Rivers.md', 1)!.related;
    assert.equal(related.length, 1);
    // Otters share the river's animals; taxes share nothing with it.
    assert.equal(related[0], 'Otters.md');
    assert.deepEqual(vault.noteInfo('Rivers.md', 5)!.related.toSorted(), ['Otters.md', 'Taxes.md']);
    assert.equal(vault.noteInfo('Nowhere.md'), undefined);
  });

  // Replacing the vault (a config reload, a learned vocabulary) runs in the writers' queue and stops the watcher; a
  // save whose batch was already waiting in that queue made the stop wait for the batch, and the batch for the stop.
  it('stops watching from inside the queue while a save waits in it, then applies the save', async () => {
    const file = path.join(vault.vaultPath, 'Herons.md');
    const replaced = live.run(async () => {
      await writeFile(file, '# Herons\n\nHerons stand still in the shallows.\n');
      // The watcher's batch for the save now waits behind this job.
      await new Promise((resolve) => setTimeout(resolve, 600));
      await live.unwatch();
    });
    const outcome = await Promise.race([replaced.then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('deadlocked'), 10_000))]);
    assert.equal(outcome, 'stopped');
    await eventually(() => changeOf('Herons.md').includes('added'), 'the waiting save applied after the job');
  });

  it('while a replacement is built, a save is applied at once to the vault answering meanwhile, then to its successor', async () => {
    const config = structuredClone(vault.config);
    config.index.data_dir = path.join(path.dirname(vault.dataDir), 'data-successor');
    config.index.debounce_ms = 50;
    const successor = await CairnVault.open(config);
    const file = path.join(vault.vaultPath, 'Kingfishers.md');
    const found = async (v: CairnVault) => (await v.search({ query: 'kingfishers minnows', mode: 'keyword' })).results.some((r) => r.path === 'Kingfishers.md');
    try {
      await live.run(async () => {
        await live.unwatch();
        await live.watch(successor, config);
        live.mirrorWhileReplacing(vault);
        try {
          await successor.index();
          await writeFile(file, '# Kingfishers\n\nKingfishers dive for minnows.\n');
          // This job holds the queue: only the mirrored batch can bring the save in now.
          await eventually(() => found(vault), 'the save in the vault answering meanwhile');
          assert.equal(successor.hasNote('Kingfishers.md'), false, 'the successor is not written to before it is the vault');
        } finally {
          await live.replaced();
        }
        current = successor;
      });
      await eventually(() => found(successor), 'the save in the successor, after the replacement');
      assert.deepEqual(changeOf('Kingfishers.md').slice(0, 1), ['added']);
    } finally {
      await live.unwatch();
      current = undefined;
      await successor.close();
    }
  });
});
