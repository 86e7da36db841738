import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { copyWithSeededMtimes, seededMtimes } from '../core/search/seededMtimes.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 26);

describe('cairn eval --mtimes: seeded modification times', () => {
  it('gives about 5 % this week, 10 % this month, the rest over two years; the same for the same seed', () => {
    const paths = Array.from({ length: 4000 }, (_, i) => `notes/n${i}.md`);
    const times = seededMtimes(paths, 7, NOW);
    const ages = [...times.values()].map((t) => NOW - t);
    const share = (test: (age: number) => boolean) => ages.filter(test).length / ages.length;
    assert.ok(Math.abs(share((a) => a <= 7 * DAY) - 0.05) < 0.015);
    assert.ok(Math.abs(share((a) => a > 7 * DAY && a <= 30 * DAY) - 0.1) < 0.02);
    assert.ok(ages.every((a) => a >= 0 && a <= 730 * DAY));
    assert.deepEqual(seededMtimes([...paths].reverse(), 7, NOW), times, 'the listing order does not matter');
    assert.notDeepEqual(seededMtimes(paths, 8, NOW), times);
  });

  it('sets them on a temporary copy and leaves the vault alone', async () => {
    const vault = await mkdtemp(path.join(os.tmpdir(), 'cairn-mtimes-'));
    try {
      await mkdir(path.join(vault, 'sub'));
      await writeFile(path.join(vault, 'a.md'), '# A\n');
      await writeFile(path.join(vault, 'sub', 'b.md'), '# B\n');
      const before = (await stat(path.join(vault, 'a.md'))).mtimeMs;
      const copy = await copyWithSeededMtimes(vault, 3, NOW);
      const expected = seededMtimes(['a.md', path.join('sub', 'b.md')], 3, NOW);
      for (const [file, mtime] of expected) assert.equal(Math.round((await stat(path.join(copy.dir, file))).mtimeMs), mtime);
      assert.equal((await stat(path.join(vault, 'a.md'))).mtimeMs, before);
      await copy.remove();
      await assert.rejects(stat(copy.dir));
    } finally {
      await rm(vault, { recursive: true, force: true });
    }
  });
});
