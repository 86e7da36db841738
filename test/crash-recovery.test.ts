import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';

const CAIRN = new URL('../bin/cairn', import.meta.url).pathname;

async function open(vault: string, dataDir: string): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  return CairnVault.open(config);
}

/** Runs `cairn index` and kills it with SIGKILL as soon as its progress shows `phase`. */
function indexAndKill(vault: string, dataDir: string, phase: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN, 'index', '--vault', vault, '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => {
      stderr += data.toString();
      if (phase.test(stderr)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(`${signal ?? code}`));
  });
}

describe('a kill -9 at any moment leaves a loadable index that the next run completes', { timeout: 240_000 }, () => {
  let root: string;
  let vault: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-crash-'));
    vault = path.join(root, 'vault');
    await mkdir(path.join(vault, 'notes'), { recursive: true });
    for (let i = 0; i < 400; i++) {
      const body = Array.from({ length: 6 }, (_, p) => `Paragraph ${p} of note ${i} talks about topic${i % 37} and item${i}.`).join('\n\n');
      await writeFile(path.join(vault, 'notes', `note-${i}.md`), `# Note ${i}\n\n${body}\n\n## Links\n\nSee [[note-${(i + 1) % 400}]].\n`);
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  let fresh: ReturnType<CairnVault['snapshot']>;
  it('builds a reference index', async () => {
    const reference = await open(vault, path.join(root, 'reference'));
    try {
      await reference.index();
      fresh = reference.snapshot();
      assert.equal(Object.keys(fresh.links).length, 400);
    } finally {
      await reference.close();
    }
  });

  for (const phase of ['embedding', 'saving']) {
    it(`killed while ${phase}, the restart converges to the same index`, async () => {
      const dataDir = path.join(root, `data-${phase}`);
      // First a complete index, then a change, so the kill hits an update of an existing index.
      const first = await open(vault, dataDir);
      await first.index();
      await first.close();
      await writeFile(path.join(vault, 'notes', 'note-0.md'), `# Note 0\n\nRewritten before the crash test (${phase}).\n`);
      for (let i = 1; i < 60; i++) await writeFile(path.join(vault, 'notes', `note-${i}.md`), `# Note ${i}\n\nAlso rewritten (${phase}) with word${i}.\n`);
      const ended = await indexAndKill(vault, dataDir, new RegExp(`cairn: ${phase}`));
      assert.equal(ended, 'SIGKILL', 'the indexer finished before it could be killed');
      const restarted = await open(vault, dataDir);
      try {
        await restarted.index();
        const reference = await open(vault, path.join(root, `reference-${phase}`));
        try {
          await reference.index();
          assert.deepEqual(restarted.snapshot(), reference.snapshot());
        } finally {
          await reference.close();
        }
        assert.equal((await restarted.search({ query: `Rewritten before the crash test ${phase}`, mode: 'keyword', k: 1 })).results[0].path, 'notes/note-0.md');
      } finally {
        await restarted.close();
      }
    });
  }

  it('killed while saving a new generation, the index opens on one generation and shows its texts, from its own text store', async () => {
    const dataDir = path.join(root, 'data-texts');
    const first = await open(vault, dataDir);
    await first.index();
    await first.close();
    const note = (i: number) => path.join(vault, 'notes', `note-${i}.md`);
    const before = await Promise.all(Array.from({ length: 60 }, (_, i) => readFile(note(i), 'utf8')));
    for (let i = 0; i < 60; i++) await writeFile(note(i), `# Note ${i}\n\nRewritten for the text store test, marker${i}.\n\n${before[i]}`);
    const after = await Promise.all(Array.from({ length: 60 }, (_, i) => readFile(note(i), 'utf8')));
    assert.equal(await indexAndKill(vault, dataDir, /cairn: saving/), 'SIGKILL', 'the indexer finished before it could be killed');
    const lines = (text: string, result: { startLine: number; endLine: number }) => text.split('\n').slice(result.startLine - 1, result.endLine).join('\n');
    const restarted = await open(vault, dataDir);
    try {
      assert.equal(restarted.status().pendingRebuild, undefined, 'the generation the manifest names loads');
      // Before any re-indexing: each result shows the text of the one generation loaded, never a mix or a wrong range.
      const generation = new Set<string>();
      for (const query of ['Paragraph of note talks about topic', 'Rewritten for the text store test marker']) {
        const { results } = await restarted.search({ query, mode: 'keyword', k: 30 });
        for (const result of results.filter((r) => /^notes\/note-\d\.md$|^notes\/note-[1-5]\d\.md$/.test(r.path))) {
          const i = Number(/note-(\d+)/.exec(result.path)![1]);
          const seen = lines(before[i], result) === result.text ? 'before' : lines(after[i], result) === result.text ? 'after' : `neither (${result.chunkId})`;
          generation.add(seen);
        }
      }
      assert.equal(generation.size, 1, [...generation].join(', '));
      assert.ok(![...generation].some((g) => g.startsWith('neither')), [...generation].join(', '));
      await restarted.index();
      const { results } = await restarted.search({ query: 'Rewritten for the text store test marker7', mode: 'keyword', k: 1 });
      assert.equal(results[0].path, 'notes/note-7.md');
      assert.equal(results[0].text, lines(after[7], results[0]));
    } finally {
      await restarted.close();
    }
  });
});
