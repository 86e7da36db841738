// Copies of one passage in several notes are one result, which lists where else its passage is
// (core/search/ranking/sameText.ts).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import type { SearchMode } from '../core/contract/search.js';
import { collapseCopies } from '../core/search/ranking/sameText.js';
import { firstRelevantRank } from '../core/search/evaluation.js';

describe('copies of a passage in rankings', () => {
  const texts: Record<string, string> = { 'a#0': 'X', 'b#0': 'Y', 'c#0': 'X', 'd#0': 'Z', 'e#0': 'W', 'f#0': 'X' };
  const context = { textOf: (id: string) => texts[id]! };

  it('keeps each text once, at its best rank, under its first copy by id, the same in both rankings', () => {
    const keyword = [{ id: 'c#0', score: 9 }, { id: 'b#0', score: 8 }, { id: 'a#0', score: 8 }, { id: 'd#0', score: 7 }];
    const vector = [{ id: 'f#0', score: 0.9 }, { id: 'e#0', score: 0.8 }, { id: 'c#0', score: 0.7 }];
    const { lists, copies } = collapseCopies([keyword, vector], context);
    assert.deepEqual(lists[0]!.map((h) => [h.id, h.score]), [['a#0', 9], ['b#0', 8], ['d#0', 7]]);
    assert.deepEqual(lists[1]!.map((h) => h.id), ['a#0', 'e#0']);
    assert.deepEqual([...copies], [['a#0', ['c#0', 'f#0']]]);
    // Each ranking gives back at most `depth` texts.
    assert.deepEqual(collapseCopies([keyword], context, 2).lists[0]!.map((h) => h.id), ['a#0', 'b#0']);
  });

  it('an exact title match among the copies makes the kept entry one; rankings without copies are left as they are', () => {
    const { lists } = collapseCopies([[{ id: 'a#0', score: 5 }, { id: 'c#0', score: 5, exactTitle: true }]], context);
    assert.deepEqual(lists[0], [{ id: 'a#0', score: 5, exactTitle: true }]);
    const plain = [{ id: 'b#0', score: 2 }, { id: 'd#0', score: 1 }];
    assert.deepEqual(collapseCopies([plain], context), { lists: [plain], copies: new Map() });
  });
});

describe('search over a vault that keeps a page per version', { timeout: 120_000 }, () => {
  let root: string;
  let vault: CairnVault;
  const page = '# about_Remote\n\n## How to run a remote command\n\nTo run a command on a remote computer, use the Invoke-Command cmdlet with the ComputerName parameter.\n';
  const versions = ['5.1', '7.4', '7.5'];

  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-same-text-'));
    const dir = path.join(root, 'vault');
    const notes: Record<string, string> = {
      'Sessions.md': '# Sessions\n\nA persistent session keeps a connection to a remote computer open between commands run with Invoke-Command.\n',
      'Jobs.md': '# Jobs\n\nA background job runs a command without waiting for it; Receive-Job collects what the command returned.\n',
    };
    for (const version of versions) notes[`${version}/about_Remote.md`] = page;
    for (const [note, text] of Object.entries(notes)) {
      await mkdir(path.dirname(path.join(dir, note)), { recursive: true });
      await writeFile(path.join(dir, note), text);
    }
    // The newest copy is not the one chosen: the choice must not depend on when files were written.
    for (const [i, version] of versions.entries()) {
      const time = new Date(Date.UTC(2026, 0, [1, 3, 2][i]!));
      await utimes(path.join(dir, version, 'about_Remote.md'), time, time);
    }
    const config = defaultConfig();
    config.vault.path = dir;
    config.index.data_dir = path.join(root, 'data');
    config.embedding.adapt = false;
    vault = await CairnVault.open(config);
    await vault.index();
  });

  after(async () => {
    await vault?.close();
    await rm(root, { recursive: true, force: true });
  });

  for (const mode of ['hybrid', 'keyword', 'vector'] as SearchMode[]) {
    it(`${mode}: one result for the three copies, naming the other two, and the other passages below it`, async () => {
      const response = await vault.search({ query: 'run a command on a remote computer with Invoke-Command', mode, k: 10 });
      const copies = response.results.filter((r) => r.path.endsWith('about_Remote.md'));
      assert.equal(copies.length, 1, JSON.stringify(response.results.map((r) => r.path)));
      assert.equal(copies[0]!.path, '5.1/about_Remote.md');
      assert.deepEqual(copies[0]!.sameText?.map((c) => [c.path, c.headerPath.at(-1), c.startLine, c.endLine]), [
        ['7.4/about_Remote.md', 'How to run a remote command', copies[0]!.startLine, copies[0]!.endLine],
        ['7.5/about_Remote.md', 'How to run a remote command', copies[0]!.startLine, copies[0]!.endLine],
      ]);
      assert.equal(new Set(response.results.map((r) => r.chunkId)).size, response.results.length);
      assert.equal(response.total, response.results.length);
      assert.ok(response.results.some((r) => r.path === 'Sessions.md'), 'the next passage moves up into the results');
      // A question whose labelled section is one copy finds it in the result that names it.
      const question = { id: 'q', q: '', kind: 'keyword', relevant: [{ path: '7.5/about_Remote.md', heading: 'How to run a remote command' }] };
      assert.equal(firstRelevantRank(response.results, question), response.results.indexOf(copies[0]!) + 1);
    });
  }

  it('a copy edited so that it reads differently is a result of its own again', async () => {
    const edited = path.join(root, 'vault', '5.1', 'about_Remote.md');
    await writeFile(edited, page.replace('use the Invoke-Command cmdlet', 'use the Invoke-Command cmdlet (Windows PowerShell 5.1)'));
    await vault.update(['5.1/about_Remote.md']);
    const { results } = await vault.search({ query: 'run a command on a remote computer with Invoke-Command', mode: 'keyword', k: 10 });
    assert.deepEqual(results.filter((r) => r.path.endsWith('about_Remote.md')).map((r) => [r.path, r.sameText?.map((c) => c.path) ?? []]).sort(), [
      ['5.1/about_Remote.md', []],
      ['7.4/about_Remote.md', ['7.5/about_Remote.md']],
    ]);
  });
});
