// A section added above others moves their chunk ids (ids count sections): the chunks that come out as they were
// keep their keyword and vector entries under the new ids, and the index is what a fresh build would be.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';

const TOPICS = ['Compost', 'Pruning', 'Irrigation', 'Seedlings', 'Greenhouse', 'Harvest'];

function section(topic: string, i: number): string {
  const body = `${topic} notes, part ${i}: the ${topic.toLowerCase()} routine changes with the season. `.repeat(3);
  return `## ${topic}\n\n${body}Keep a log of what worked for ${topic.toLowerCase()} and what did not, week by week.\n`;
}

const INTRO = 'This handbook collects what the allotment committee learned over ten years of shared beds: one section per job, each with the routine that worked and the mistakes we made.\n';
const LONG = (sections: string[]) => `# Garden handbook\n\n${INTRO}\n${sections.join('\n')}`;

describe('chunks moved to new ids by an edit above them', { timeout: 120_000 }, () => {
  let root: string;
  let vaultDir: string;
  const config = (dataDir: string) => {
    const c = defaultConfig();
    c.vault.path = vaultDir;
    c.index.data_dir = dataDir;
    return c;
  };
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-moved-'));
    vaultDir = path.join(root, 'vault');
    await mkdir(vaultDir, { recursive: true });
    await writeFile(path.join(vaultDir, 'Garden handbook.md'), LONG(TOPICS.map(section)));
    await writeFile(path.join(vaultDir, 'Kitchen.md'), '# Kitchen\n\nBake the bread at a high temperature for forty minutes, then let it rest on a rack.\n');
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('keep their entries under the new ids, and search as a fresh index of the edited vault', async () => {
    const dataDir = path.join(root, 'data');
    const vault = await CairnVault.open(config(dataDir));
    const freshDir = path.join(root, 'fresh');
    try {
      await vault.index();
      const before = (await vault.search({ query: 'harvest routine log', mode: 'keyword', k: 1 })).results[0]!;
      // A new first section: every section after it moves one place down.
      await writeFile(path.join(vaultDir, 'Garden handbook.md'), LONG([section('Mulching', 0), ...TOPICS.map(section)]));
      const summary = await vault.index();
      assert.equal(summary.changedNotes, 1);
      // New texts: the new section (which takes the note's title and introduction, too short to stand alone) and
      // the one that had them; the five below it moved, and are not indexed again.
      assert.equal(summary.embedded, 2);
      assert.equal(summary.indexed, 2);
      const moved = (await vault.search({ query: 'harvest routine log', mode: 'keyword', k: 1 })).results[0]!;
      assert.notEqual(moved.chunkId, before.chunkId, 'the section has a new id');
      assert.deepEqual([moved.headerPath, moved.startLine - before.startLine], [before.headerPath, section('Mulching', 0).split('\n').length]);

      const fresh = await CairnVault.open(config(freshDir));
      try {
        await fresh.index();
        assert.deepEqual(vault.snapshot(), fresh.snapshot());
        for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
          for (const query of ['harvest routine log', 'greenhouse season', 'compost', 'mulching week by week', 'bread']) {
            const hits = async (v: CairnVault) => (await v.search({ query, mode, k: 10 })).results.map((r) => [r.chunkId, r.score.toFixed(6), r.startLine]);
            assert.deepEqual(await hits(vault), await hits(fresh), `${mode}: ${query}`);
          }
        }
      } finally {
        await fresh.close();
      }
    } finally {
      await vault.close();
    }
    // Saved that way: a restart opens the same index and embeds nothing.
    const again = await CairnVault.open(config(dataDir));
    try {
      const summary = await again.index();
      assert.deepEqual([summary.embedded, summary.indexed], [0, 0]);
      const { results } = await again.search({ query: 'harvest routine log', mode: 'hybrid', k: 3 });
      assert.equal(results[0]!.headerPath.at(-1), 'Harvest');
    } finally {
      await again.close();
    }
  });
});
