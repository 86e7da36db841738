// Searches answered between the turns of a re-chunking (a `[chunking]` change): the keyword and vector indices
// never hold a chunk the note store does not, and a search drops keyword hits replaced while its query was
// embedded: no search fails.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';

const WORDS = ['harbour', 'lantern', 'granite', 'meadow', 'copper', 'willow', 'beacon', 'thistle', 'ember', 'quarry'];

/** Notes of short sections (chunked alike at either size) and one long one (split differently). */
function note(n: number): string {
  const sentence = (i: number) => `The ${WORDS[(n + i) % 10]} near the ${WORDS[(n * 3 + i) % 10]} keeps note ${n} line ${i}.`;
  const sections = Array.from({ length: 6 }, (_, s) => `## Part ${s}\n\n${Array.from({ length: 4 }, (_, i) => sentence(s * 4 + i)).join(' ')}\n`);
  const long = Array.from({ length: 6 }, (_, p) => Array.from({ length: 5 }, (_, i) => sentence(100 + p * 5 + i)).join(' ')).join('\n\n');
  return `# Note ${n}\n\n${sections.join('\n')}\n## Long part\n\n${long}\n`;
}

describe('searching while the chunking changes', { timeout: 300_000 }, () => {
  it('every search between the turns of a re-chunking answers', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-rechunk-search-'));
    const dir = path.join(root, 'vault');
    await mkdir(dir, { recursive: true });
    for (let n = 0; n < 600; n++) await writeFile(path.join(dir, `note-${n}.md`), note(n));
    const open = async (maxChunkChars: number) => {
      const config = defaultConfig();
      config.vault.path = dir;
      config.index.data_dir = path.join(root, 'data');
      config.chunking.max_chunk_chars = maxChunkChars;
      return CairnVault.open(config);
    };
    try {
      const first = await open(2000);
      await first.index();
      await first.close();
      const vault = await open(1500);
      assert.match(vault.status().pendingRebuild ?? '', /chunking config changed/);
      let done = false;
      const indexing = vault.index().finally(() => (done = true));
      let searches = 0;
      const failures: string[] = [];
      while (!done) {
        await nextTurn();
        for (const mode of ['keyword', 'hybrid'] as const) {
          try {
            const { results } = await vault.search({ query: `${WORDS[searches % 10]} note`, mode, k: 20 });
            if (results.length === 0 || results.some((r) => !r.text)) failures.push(`${mode}: ${results.length} results, some without text`);
          } catch (error) {
            failures.push(`${mode}: ${(error as Error).message}`);
          }
          searches++;
        }
      }
      try {
        const summary = await indexing;
        assert.deepEqual(failures.slice(0, 5), []);
        assert.ok(searches > 10, `only ${searches} searches ran during the re-chunking`);
        assert.ok(summary.indexed < summary.chunks / 2, 'most chunks came out as they were');
      } finally {
        await vault.close();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
