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
});
