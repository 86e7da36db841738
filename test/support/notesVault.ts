import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CairnVault } from '../../core/app/index.js';
import { defaultConfig } from '../../core/config/schema.js';

/**
 * A temporary vault of `notes` (vault-relative path → text), opened with the default config (the bundled model)
 * and indexed, its data folder beside it; `remove()` closes it and deletes both.
 */
export async function indexedNotesVault(prefix: string, notes: Record<string, string>): Promise<{ vault: CairnVault; remove(): Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), prefix));
  const dir = path.join(root, 'vault');
  for (const [note, text] of Object.entries(notes)) {
    await mkdir(path.dirname(path.join(dir, note)), { recursive: true });
    await writeFile(path.join(dir, note), text);
  }
  const config = defaultConfig();
  config.vault.path = dir;
  config.index.data_dir = path.join(root, 'data');
  const vault = await CairnVault.open(config);
  await vault.index();
  return {
    vault,
    async remove() {
      await vault.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
