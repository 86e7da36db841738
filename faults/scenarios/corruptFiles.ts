import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Scenario } from '../context.js';
import type { Random } from '../random.js';
import { editNote, QUERIES } from '../vaultGen.js';

type Damage = 'truncate' | 'flip a byte of' | 'replace by a folder' | 'delete' | 'empty';
const DAMAGES: Damage[] = ['truncate', 'flip a byte of', 'replace by a folder', 'delete', 'empty'];

/** Every file of an index folder, relative to it (what the other fixes add, such as checksums, is found as it comes). */
export function indexFiles(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    return entry.isDirectory() ? indexFiles(dir, child) : [child];
  });
}

/**
 * Damages one file in place. Same-length damage keeps the mtime, so only the content can give it away. A missing
 * write.lock (the usual case) is created broken instead.
 */
function damage(file: string, how: Damage, rng: Random): string {
  const exists = statSync(file, { throwIfNoEntry: false });
  if (!exists) {
    if (how === 'replace by a folder') mkdirSync(file);
    else writeFileSync(file, how === 'empty' || how === 'delete' ? '' : 'not a pid\n');
    return how === 'replace by a folder' ? 'a folder' : how === 'empty' || how === 'delete' ? 'an empty file' : 'garbage';
  }
  switch (how) {
    case 'truncate': {
      const size = Math.floor(exists.size / 2);
      truncateSync(file, size);
      return `${size} of ${exists.size} bytes`;
    }
    case 'flip a byte of': {
      const bytes = readFileSync(file);
      if (bytes.length === 0) return 'nothing (empty file)';
      const at = rng.int(0, bytes.length - 1);
      bytes[at] = bytes[at]! ^ 0xff;
      writeFileSync(file, bytes);
      utimesSync(file, exists.atime, exists.mtime);
      return `byte ${at} of ${bytes.length}`;
    }
    case 'replace by a folder':
      rmSync(file);
      mkdirSync(file);
      return 'a folder';
    case 'delete':
      rmSync(file);
      return 'gone';
    case 'empty':
      truncateSync(file, 0);
      utimesSync(file, exists.atime, exists.mtime);
      return '0 bytes';
  }
}

/**
 * 3. Each file of the index folder (manifest, note store, keyword index, graph, vectors, embedding cache, and a
 * write.lock) damaged in turn, a different way each round: `cairn search` and `cairn index` must not crash (exit 0 or
 * one clear error line), the search must not serve a damaged index, and the index must converge.
 */
export const corruptFiles: Scenario = {
  name: 'corrupt-files',
  async run(ctx, rng, round) {
    ctx.resetVault();
    const base = await ctx.reference();
    const files = [...new Set([...indexFiles(ctx.indexDir(base.dataDir)), 'write.lock'])].sort();
    const offset = rng.int(0, DAMAGES.length - 1);
    for (const [i, rel] of files.entries()) {
      const how = DAMAGES[(offset + round + i) % DAMAGES.length]!;
      await ctx.fault('corrupt-files', async (rec) => {
        const dataDir = ctx.copyData(base.dataDir, 'corrupt');
        const what = damage(path.join(ctx.indexDir(dataDir), rel), how, rng);
        // A lock only matters to a write, so a note changes too; other files sometimes get a write on top of the damage.
        const edited = rel === 'write.lock' || rng.chance(0.3) ? `, then ${editNote(ctx.vault, rng)}` : '';
        rec.fault = `${how} ${rel} (${what})${edited}`;
        // The vault as it is now: an earlier fault of this round may have edited a note (references are cached per state).
        const wantedRef = await ctx.reference(rec);
        const query = rng.pick(QUERIES);
        const search = await ctx.run('search', dataDir, ['--json', query]);
        if (ctx.judge(rec, 'cairn search on the damaged index', search)) {
          const got = (JSON.parse(search.stdout) as { results: Array<{ chunkId: string }> }).results.map((r) => r.chunkId);
          const wanted = wantedRef.probe.searches[`hybrid: ${query}`]!.map(([id]) => id);
          const found = wanted.findIndex((id, k) => got[k] !== id);
          const at = found === -1 ? wanted.length : found;
          if (at < Math.max(got.length, wanted.length)) rec.mismatches.push(`cairn search "${query}" on the damaged index: rank ${at + 1} is ${got[at] ?? 'nothing'}, fresh index ${wanted[at] ?? 'nothing'}`);
        }
        await ctx.converge(rec, dataDir);
      });
    }
  },
};
