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

/** A vault of these notes (path → text), indexed, in a temporary folder; `close` removes it. */
async function indexedVault(notes: Record<string, string>, beforeIndex: (dir: string) => Promise<void> = async () => {}): Promise<{ root: string; vault: CairnVault; close: () => Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-same-text-'));
  const dir = path.join(root, 'vault');
  for (const [note, text] of Object.entries(notes)) {
    await mkdir(path.dirname(path.join(dir, note)), { recursive: true });
    await writeFile(path.join(dir, note), text);
  }
  await beforeIndex(dir);
  const config = defaultConfig();
  config.vault.path = dir;
  config.index.data_dir = path.join(root, 'data');
  config.embedding.adapt = false;
  const vault = await CairnVault.open(config);
  await vault.index();
  return {
    root,
    vault,
    close: async () => {
      await vault.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

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
  let close: () => Promise<void>;
  const page = '# about_Remote\n\n## How to run a remote command\n\nTo run a command on a remote computer, use the Invoke-Command cmdlet with the ComputerName parameter.\n';
  const versions = ['5.1', '7.4', '7.5'];

  before(async () => {
    const notes: Record<string, string> = {
      'Sessions.md': '# Sessions\n\nA persistent session keeps a connection to a remote computer open between commands run with Invoke-Command.\n',
      'Jobs.md': '# Jobs\n\nA background job runs a command without waiting for it; Receive-Job collects what the command returned.\n',
    };
    for (const version of versions) notes[`${version}/about_Remote.md`] = page;
    // The newest copy is not the one chosen: the choice must not depend on when files were written.
    ({ root, vault, close } = await indexedVault(notes, async (dir) => {
      for (const [i, version] of versions.entries()) {
        const time = new Date(Date.UTC(2026, 0, [1, 3, 2][i]!));
        await utimes(path.join(dir, version, 'about_Remote.md'), time, time);
      }
    }));
  });

  after(() => close?.());

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

describe('a page kept per version, with more matching sections than the per-note cap', { timeout: 120_000 }, () => {
  let vault: CairnVault;
  let close: () => Promise<void>;
  const part = (name: string) =>
    `## ${name} a remote session\n\nTo ${name.toLowerCase()} a remote session, run the session cmdlet with the name of the remote session; the remote session ${name.toLowerCase()}s at once and stays listed. Each section is long enough to be a chunk of its own, not merged with the next.\n`;
  const page = `# about_Sessions\n\n${['Open', 'Close', 'Rename'].map(part).join('\n')}`;

  before(async () => {
    ({ vault, close } = await indexedVault({ '5.1/about_Sessions.md': page, '7.4/about_Sessions.md': page }));
  });

  after(() => close?.());

  for (const mode of ['hybrid', 'keyword'] as SearchMode[]) {
    it(`${mode}: a section the cap keeps out of its first copy's note is shown under its copy in another`, async () => {
      const { results } = await vault.search({ query: 'remote session', mode, k: 10 });
      const shown = results.map((r) => [r.headerPath.at(-1), r.path, r.sameText?.map((c) => c.path)]);
      assert.equal(results.length, 3, JSON.stringify(shown));
      assert.deepEqual(new Set(results.map((r) => r.headerPath.at(-1))), new Set(['Open a remote session', 'Close a remote session', 'Rename a remote session']));
      // Two under the first version's note (the cap), the third under the other version's, naming the first.
      assert.deepEqual(results.map((r) => r.path).sort(), ['5.1/about_Sessions.md', '5.1/about_Sessions.md', '7.4/about_Sessions.md']);
      const moved = results.find((r) => r.path === '7.4/about_Sessions.md')!;
      assert.deepEqual(moved.sameText?.map((c) => [c.path, c.headerPath.at(-1)]), [['5.1/about_Sessions.md', moved.headerPath.at(-1)]]);
      for (const r of results.filter((x) => x !== moved)) assert.deepEqual(r.sameText?.map((c) => c.path), ['7.4/about_Sessions.md']);
    });
  }
});
