// An open index whose files are deleted under it: another process (here a second vault on the same data folder)
// saves twice, which deletes every generation but the one before its last, or a person clears the data folder.
// The open index goes on showing its chunks' texts and saves again. Before, its next search failed every result
// with ENOENT (the text store was opened by path) and so did every later save, which copies the texts.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile, cp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';

const SAMPLE = new URL('../sample-vault', import.meta.url).pathname;

describe('an open index whose files are deleted under it', { skip: process.platform === 'win32' && 'Windows does not delete a file that is open', timeout: 120_000 }, () => {
  let root: string;
  let vaultDir: string;
  let dataDir: string;
  const opened: CairnVault[] = [];

  async function open(): Promise<CairnVault> {
    const config = defaultConfig();
    config.vault.path = vaultDir;
    config.index.data_dir = dataDir;
    config.embedding.adapt = false;
    const vault = await CairnVault.open(config);
    opened.push(vault);
    return vault;
  }

  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-generation-deleted-'));
    vaultDir = path.join(root, 'vault');
    dataDir = path.join(root, 'data');
    await cp(SAMPLE, vaultDir, { recursive: true });
    const first = await open();
    await first.index();
    await first.close();
  });
  after(async () => {
    for (const vault of opened) await vault.close().catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  it('shows its texts and saves after another process saved twice and deleted its generation', async () => {
    const app = await open();
    const loaded = (await readdir(app.dataDir)).filter((e) => /^g\d+$/.test(e));
    const other = await open();
    for (const word of ['first', 'second']) {
      await writeFile(path.join(vaultDir, `Other ${word}.md`), `# Other ${word}\n\nA note the other process indexed ${word}.\n`);
      await other.index();
    }
    await other.close();
    const now = (await readdir(app.dataDir)).filter((e) => /^g\d+$/.test(e));
    assert.ok(loaded.every((g) => !now.includes(g)), `the generation the app loaded (${loaded.join(', ')}) is gone: ${now.join(', ')}`);

    const { results } = await app.search({ query: 'privacy', k: 3 });
    assert.equal(results[0]?.path, 'Privacy.md');
    assert.match(results[0]!.text, /Cairn runs entirely on your/, 'the text of a chunk of the deleted generation');
    await writeFile(path.join(vaultDir, 'Mine.md'), '# Mine\n\nThe app indexed this note about kestrels.\n');
    await app.update(['Mine.md']);
    await app.persist();
    assert.equal(app.status().unsaved, undefined, 'the save copied the texts of the deleted generation');
    await app.close();
  });

  it('shows its texts and saves again after the whole data folder was deleted', async () => {
    const app = await open();
    // Up to date first (the app of the test before saved over the other process's notes: the last save wins, and
    // the next sync indexes what it left out).
    await app.index();
    await rm(dataDir, { recursive: true, force: true });
    const { results } = await app.search({ query: 'privacy', k: 3 });
    assert.match(results[0]?.text ?? '', /Cairn runs entirely on your/);
    await writeFile(path.join(vaultDir, 'Later.md'), '# Later\n\nA note about ospreys written after the folder went.\n');
    await app.update(['Later.md']);
    await app.persist();
    await app.close();

    const reopened = await open();
    const summary = await reopened.index();
    assert.equal(summary.changedNotes, 0, 'the saved index was whole: nothing to index again');
    assert.equal((await reopened.search({ query: 'ospreys', k: 1 })).results[0]?.path, 'Later.md');
    assert.match((await reopened.search({ query: 'privacy', k: 1 })).results[0]?.text ?? '', /Cairn runs entirely on your/);
  });
});
