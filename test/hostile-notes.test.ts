// A vault with notes built to break the indexer: every other note is still indexed, each bad one is named.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';

const deepDashes = `# N\n\n${'- '.repeat(10_000)}deep item\n`;
// About 4 MB: a list indented one level deeper on each of 2,000 lines.
const deepIndented = `# Deep\n\n${Array.from({ length: 2000 }, (_, i) => `${' '.repeat(2 * i)}- item ${i}`).join('\n')}\n`;
const good = (name: string) => `# ${name}\n\nThe note ${name} talks about granite and cairns.\n`;

async function open(vault: string, dataDir: string, maxNoteMb?: number): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  if (maxNoteMb !== undefined) config.vault.max_note_mb = maxNoteMb;
  return CairnVault.open(config);
}

const notesOf = (vault: CairnVault) => new Set(vault.snapshot().chunkIds.map((id) => id.slice(0, id.indexOf('#'))));
const reasonOf = (vault: CairnVault, note: string) => vault.status().failed.find((f) => f.path === note)?.reason ?? '';

describe('notes that break the Markdown parser', { timeout: 180_000 }, () => {
  let root: string;
  let vault: string;
  let cairn: CairnVault;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-hostile-'));
    vault = path.join(root, 'vault');
    await import('node:fs/promises').then((fs) => fs.mkdir(vault));
    await writeFile(path.join(vault, 'a-good.md'), good('alpha'));
    await writeFile(path.join(vault, 'b-deep-dashes.md'), deepDashes);
    await writeFile(path.join(vault, 'c-deep-indented.md'), deepIndented);
    await writeFile(path.join(vault, 'd-good.md'), good('delta'));
    cairn = await open(vault, path.join(root, 'data'));
  });
  after(async () => {
    await cairn?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a full index indexes the other notes, and the deep ones as plain text, each reported by name', async () => {
    const failed: string[] = [];
    const summary = await cairn.index((event) => {
      if (event.type === 'file-failed') failed.push(`${event.path}: ${event.reason}`);
    });
    const indexed = notesOf(cairn);
    for (const note of ['a-good.md', 'd-good.md', 'b-deep-dashes.md', 'c-deep-indented.md']) assert.ok(indexed.has(note), note);
    assert.match(failed.find((f) => f.startsWith('b-deep-dashes.md: ')) ?? '', /nested 10000 levels deep .*indexed as plain text/);
    assert.match(failed.find((f) => f.startsWith('c-deep-indented.md: ')) ?? '', /nested 2000 levels deep .*indexed as plain text/);
    assert.equal(summary.failed, 2);
    assert.match(reasonOf(cairn, 'b-deep-dashes.md'), /plain text/);
    assert.equal((await cairn.search({ query: 'granite', mode: 'keyword' })).results.length, 2);
  });

  it('notes added after them are indexed, by the watcher path (update) and by a full index', async () => {
    await writeFile(path.join(vault, 'e-later.md'), good('echo'));
    await writeFile(path.join(vault, 'f-deep-again.md'), deepDashes);
    await writeFile(path.join(vault, 'g-after.md'), good('golf'));
    const failed: string[] = [];
    await cairn.update(['e-later.md', 'f-deep-again.md', 'g-after.md'], (event) => {
      if (event.type === 'file-failed') failed.push(event.path);
    });
    assert.deepEqual(failed, ['f-deep-again.md']);
    for (const note of ['e-later.md', 'g-after.md']) assert.ok(notesOf(cairn).has(note), note);

    await writeFile(path.join(vault, 'h-full.md'), good('hotel'));
    await cairn.index();
    assert.ok(notesOf(cairn).has('h-full.md'));
    // The plain-text warnings outlive a run that did not re-chunk those notes.
    assert.match(reasonOf(cairn, 'c-deep-indented.md'), /plain text/);
    assert.equal((await cairn.search({ query: 'granite', mode: 'keyword' })).results.length, 5);
  });
});

describe('[vault] max_note_mb', { timeout: 120_000 }, () => {
  it('a note over the limit is reported by name and not indexed; the others are', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-big-'));
    const vault = path.join(root, 'vault');
    await import('node:fs/promises').then((fs) => fs.mkdir(vault));
    await writeFile(path.join(vault, 'small.md'), good('small'));
    await writeFile(path.join(vault, 'big.md'), `# Big\n\n${'granite '.repeat(5000)}\n`);
    const cairn = await open(vault, path.join(root, 'data'), 0.02);
    try {
      const failed: string[] = [];
      await cairn.index((event) => {
        if (event.type === 'file-failed') failed.push(`${event.path}: ${event.reason}`);
      });
      assert.deepEqual(failed, ['big.md: 0.04 MB, over the 0.02 MB limit set by [vault] max_note_mb: not indexed']);
      assert.deepEqual([...notesOf(cairn)], ['small.md']);
    } finally {
      await cairn.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('indexing a large note', { timeout: 180_000 }, () => {
  it('never holds the event loop for long (the chunking is in a worker thread)', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-large-'));
    const vault = path.join(root, 'vault');
    await import('node:fs/promises').then((fs) => fs.mkdir(vault));
    // ~3 MB: long lines without punctuation (once quadratic) and a deep list, in sections.
    const sections = Array.from({ length: 12 }, (_, s) => `## Part ${s}\n\n${Array.from({ length: 2500 }, (_, i) => `word${(i * 7 + s) % 113} stone`).join(' ')}\n\n${deepIndented.slice(0, 150_000)}\n`);
    await writeFile(path.join(vault, 'large.md'), `# Large\n\n${sections.join('\n')}`);
    const cairn = await open(vault, path.join(root, 'data'));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    try {
      delay.enable();
      const summary = await cairn.index();
      delay.disable();
      assert.equal(summary.notes, 1);
      const worstMs = delay.max / 1e6;
      // Chunking this note takes seconds; what is left on the event loop is reading, hashing and indexing in slices.
      assert.ok(worstMs < 1000, `event loop held for ${worstMs.toFixed(0)} ms`);
      console.log(`# worst event-loop delay while indexing a ${(sections.join('').length / 1e6).toFixed(1)} MB note: ${worstMs.toFixed(0)} ms`);
    } finally {
      await cairn.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
