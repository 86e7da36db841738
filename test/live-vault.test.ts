import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, unlink, writeFile, cp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnService, CairnVault } from '../core/app/index.js';
import type { AppEvent } from '../core/contract/appApi.js';
import { defaultConfig } from '../core/config/schema.js';
import { eventually } from './support/eventually.js';

const SAMPLE = new URL('../sample-vault/', import.meta.url).pathname;

/** What a fresh full rebuild of the vault produces, in a data folder of its own. */
async function freshSnapshot(vault: string, root: string) {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = await mkdtemp(path.join(root, 'fresh-'));
  const fresh = await CairnVault.open(config);
  try {
    await fresh.index();
    return fresh.snapshot();
  } finally {
    await fresh.close();
  }
}

async function paths(service: CairnService, query: string): Promise<string[]> {
  return (await service.search({ query, mode: 'keyword', k: 20 })).results.map((r) => r.path);
}

describe('live vault: watcher, incremental updates, reconciliation', { timeout: 180_000 }, () => {
  let root: string;
  let vault: string;
  let service: CairnService;
  const events: AppEvent[] = [];

  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-live-'));
    vault = path.join(root, 'vault');
    await cp(SAMPLE, vault, { recursive: true });
    service = await CairnService.start({ vault, dataDir: path.join(root, 'data'), listener: (e) => events.push(e) });
    // The first indexing must be over: a note it picks up is indexed, but not announced as a live change.
    await service.idle();
  });
  after(async () => {
    await service?.close();
    await rm(root, { recursive: true, force: true });
  });

  const settled = async () => {
    await service.idle();
    const live = service.currentVault!.snapshot();
    const fresh = await freshSnapshot(vault, root);
    assert.deepEqual(live, fresh, 'the live index differs from a fresh full rebuild');
  };

  it('a created note becomes searchable', async () => {
    await writeFile(path.join(vault, 'Ferret facts.md'), '# Ferret facts\n\nFerrets sleep eighteen hours a day: aardvarks.\n');
    await eventually(async () => (await paths(service, 'aardvarks')).includes('Ferret facts.md'), 'the new note');
    // Keyword-searchable comes first; the change is announced once the update is whole (its vectors embedded).
    await eventually(() => events.some((e) => e.type === 'note-changed' && e.path === 'Ferret facts.md' && e.change === 'added'), 'the note-changed event');
  });

  it('a modified note is re-indexed with its new text only', async () => {
    await writeFile(path.join(vault, 'Ferret facts.md'), '# Ferret facts\n\nFerrets hoard socks under the sofa: pangolins.\n');
    await eventually(async () => (await paths(service, 'pangolins')).includes('Ferret facts.md'), 'the new text');
    assert.deepEqual(await paths(service, 'aardvarks'), [], 'the old text is still indexed');
  });

  it('an atomic rename-over save (write temp, rename over) is seen as a change', async () => {
    const temp = path.join(vault, '.Ferret facts.md.tmp~');
    await writeFile(temp, '# Ferret facts\n\nFerrets dance when happy: narwhals.\n');
    await rename(temp, path.join(vault, 'Ferret facts.md'));
    await eventually(async () => (await paths(service, 'narwhals')).includes('Ferret facts.md'), 'the renamed-over text');
  });

  it('rename and move between folders re-key chunks without re-embedding', async () => {
    await mkdir(path.join(vault, 'Animals'), { recursive: true });
    await service.idle();
    const embeddedBefore = events.filter((e) => e.type === 'indexing-finished').length;
    await rename(path.join(vault, 'Ferret facts.md'), path.join(vault, 'Animals', 'Ferrets.md'));
    await eventually(async () => (await paths(service, 'narwhals')).includes('Animals/Ferrets.md'), 'the moved note');
    await service.idle();
    assert.deepEqual(await paths(service, 'narwhals'), ['Animals/Ferrets.md']);
    const finished = events.filter((e) => e.type === 'indexing-finished').slice(embeddedBefore);
    assert.equal(finished.reduce((n, e) => n + (e.type === 'indexing-finished' ? e.summary.embedded : 0), 0), 0, 'a moved note must not be re-embedded');
  });

  it('deleting a note and deleting a folder remove them from every index', async () => {
    await unlink(path.join(vault, 'Glossary.md'));
    await rm(path.join(vault, 'Searching'), { recursive: true });
    await eventually(async () => !(await paths(service, 'reciprocal rank fusion')).some((p) => p.startsWith('Searching/')), 'the deleted folder gone');
    await settled();
  });

  it('a burst of 500 new files is applied as a few batches and matches a fresh rebuild', async () => {
    await mkdir(path.join(vault, 'burst'));
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => writeFile(path.join(vault, 'burst', `n${i}.md`), `# Burst note ${i}\n\nquokka${i} lives in burst note number ${i}.\n`)),
    );
    await eventually(async () => (await paths(service, 'quokka499')).includes('burst/n499.md'), 'the last burst file', 60_000);
    await settled();
  });

  it('a file that becomes unreadable is reported, and a binary file never indexed', async () => {
    await writeFile(path.join(vault, 'binary.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
    await eventually(async () => (await service.getState()).failedFiles.some((f) => f.path === 'binary.md' && f.state === 'failed'), 'the failure report');
    await settled();
  });

  it('a note deleted while it is being indexed leaves no stale entry', async () => {
    const notes = Array.from({ length: 60 }, (_, i) => path.join(vault, 'burst', `late${i}.md`));
    await Promise.all(notes.map((file, i) => writeFile(file, `# Late ${i}\n\n${'wombat '.repeat(200)}${i}\n`)));
    await new Promise((r) => setTimeout(r, 450));
    await Promise.all(notes.slice(0, 30).map((file) => unlink(file)));
    await eventually(async () => {
      await service.idle();
      const ids = service.currentVault!.snapshot().chunkIds;
      return !ids.some((id) => /burst\/late([0-9]|1[0-9]|2[0-9])\.md#/.test(id)) && ids.some((id) => id.startsWith('burst/late59.md#'));
    }, 'the deletions to land');
    await settled();
  });

  it('changes made while closed are caught up on open by touching only what changed', async () => {
    await service.close();
    await writeFile(path.join(vault, 'Offline.md'), '# Offline\n\nWritten while Cairn was closed: capybara.\n');
    await unlink(path.join(vault, 'burst', 'n0.md'));
    const reopened: AppEvent[] = [];
    service = await CairnService.start({ vault, dataDir: path.join(root, 'data'), listener: (e) => reopened.push(e) });
    const finished = reopened.find((e) => e.type === 'indexing-finished');
    assert.ok(finished && finished.type === 'indexing-finished');
    assert.equal(finished.summary.changedNotes, 1);
    assert.equal(finished.summary.removedNotes, 1);
    assert.equal(finished.summary.embedded, 1);
    assert.deepEqual(await paths(service, 'capybara'), ['Offline.md']);
    await settled();
  });
});
