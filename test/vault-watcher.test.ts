import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { VaultWatcher, type VaultChangeBatch } from '../core/live/vaultWatcher.js';
import type { VaultScanOptions } from '../core/vault/scanVault.js';
import { eventually } from './support/eventually.js';

const OPTIONS: VaultScanOptions = { include: ['**/*'], exclude: ['.git/**'], extensions: ['.md'] };
/** Long enough that a batch sent at once is told apart from one sent after the debounce, whatever the load. */
const DEBOUNCE_MS = 3000;

async function watching(run: (vault: string, batches: Array<VaultChangeBatch & { at: number }>) => Promise<void>): Promise<void> {
  const vault = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-watcher-')));
  await fs.writeFile(path.join(vault, 'a.md'), '# A\n');
  const batches: Array<VaultChangeBatch & { at: number }> = [];
  const errors: Error[] = [];
  const watcher = new VaultWatcher(vault, OPTIONS, { links: async () => [], debounceMs: DEBOUNCE_MS, onBatch: async (b) => void batches.push({ ...b, at: performance.now() }), onError: (e) => errors.push(e) });
  try {
    await watcher.start();
    await run(vault, batches);
    assert.deepEqual(errors, []);
  } finally {
    await watcher.close();
    await fs.rm(vault, { recursive: true, force: true });
  }
}

describe('the vault watcher batches changes', { timeout: 30_000 }, () => {
  it('a lone save after a quiet spell is sent at once, not after the debounce', async () => {
    await watching(async (vault, batches) => {
      const saved = performance.now();
      await fs.writeFile(path.join(vault, 'a.md'), '# A\n\nEdited.\n');
      await eventually(() => batches.length === 1, 'the batch', DEBOUNCE_MS * 2);
      assert.deepEqual([...batches[0]!.files], ['a.md']);
      assert.ok(batches[0]!.at - saved < DEBOUNCE_MS, `sent ${(batches[0]!.at - saved).toFixed(0)} ms after the save`);
    });
  });

  it('a burst of saves comes as few batches: the first at once, the rest together once the burst pauses', async () => {
    await watching(async (vault, batches) => {
      for (let i = 0; i < 20; i++) {
        await fs.writeFile(path.join(vault, `n${i}.md`), `# N${i}\n`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await eventually(() => batches.reduce((n, b) => n + b.files.size, 0) === 20, 'every file', DEBOUNCE_MS * 3);
      assert.ok(batches.length <= 3, `${batches.length} batches`);
      assert.deepEqual(new Set(batches.flatMap((b) => [...b.files])), new Set(Array.from({ length: 20 }, (_, i) => `n${i}.md`)));
    });
  });

  it('closing while it starts ends the start too (a vault replaced or the app closed as it opens), and nothing is watched after', async () => {
    // Enough folders that chokidar's first walk takes a while: the close lands before it is ready.
    const vault = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-watcher-')));
    for (let d = 0; d < 300; d++) {
      await fs.mkdir(path.join(vault, `d${d}`, 'inner'), { recursive: true });
      await fs.writeFile(path.join(vault, `d${d}`, 'inner', 'n.md'), '# N\n');
    }
    try {
      for (const delayMs of [0, 10, 30, 60]) {
        const batches: VaultChangeBatch[] = [];
        const watcher = new VaultWatcher(vault, OPTIONS, { links: async () => [], debounceMs: 20, onBatch: async (b) => void batches.push(b), onError: () => {} });
        const started = watcher.start();
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        await watcher.close();
        const outcome = await Promise.race([started.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5000))]);
        assert.equal(outcome, 'ended', `closed ${delayMs} ms into start`);
        await fs.writeFile(path.join(vault, 'after.md'), `# After ${delayMs}\n`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(batches, [], `closed ${delayMs} ms into start, yet a change was reported`);
      }
    } finally {
      await fs.rm(vault, { recursive: true, force: true });
    }
  });
});
