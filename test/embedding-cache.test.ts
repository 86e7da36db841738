import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { EmbeddingCache } from '../core/embedding/embeddingCache.js';
import { seededRandom } from '../core/random/seededRandom.js';

const KEY = 'cairn-glove-100d|q8|d35d3fd35535d135';
const DIMS = 4;

const hash = (n: number) => n.toString(16).padStart(16, '0');
const vector = (n: number, dims = DIMS) => Float32Array.from({ length: dims }, (_, k) => Math.sin(n * 31 + k));

let dir: string;
let counter = 0;
const freshFile = () => path.join(dir, `cache-${counter++}.bin`);

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-embedding-cache-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A saved cache file holding entries 0..n-1. */
async function savedCache(n: number, file = freshFile()): Promise<string> {
  const cache = await EmbeddingCache.open(file, KEY, DIMS);
  for (let i = 0; i < n; i++) cache.set(hash(i), vector(i));
  await cache.save();
  return file;
}

describe('EmbeddingCache', () => {
  it('starts empty when the file does not exist, without a recovery note', async () => {
    const cache = await EmbeddingCache.open(freshFile(), KEY, DIMS);
    assert.equal(cache.size, 0);
    assert.equal(cache.recovered, undefined);
    assert.equal((await cache.read([hash(1)]))[0], undefined);
  });

  it('round-trips vectors bit for bit, and misses unknown hashes', async () => {
    const file = await savedCache(3);
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    assert.equal(cache.recovered, undefined);
    assert.equal(cache.size, 3);
    for (let i = 0; i < 3; i++) assert.deepEqual((await cache.read([hash(i)]))[0], vector(i));
    assert.equal((await cache.read([hash(99)]))[0], undefined);
  });

  it('adds to and overwrites a loaded cache, counting each hash once', async () => {
    const file = await savedCache(3);
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    cache.set(hash(1), vector(101));
    cache.set(hash(7), vector(7));
    cache.set(hash(7), vector(8));
    assert.equal(cache.size, 4);
    assert.deepEqual((await cache.read([hash(1)]))[0], vector(101));
    await cache.save();
    const reopened = await EmbeddingCache.open(file, KEY, DIMS);
    assert.equal(reopened.size, 4);
    assert.deepEqual((await reopened.read([hash(1)]))[0], vector(101));
    assert.deepEqual((await reopened.read([hash(7)]))[0], vector(8));
    assert.deepEqual((await reopened.read([hash(2)]))[0], vector(2));
  });

  it('copies the vectors it is given (callers pass views into shared buffers)', async () => {
    const cache = await EmbeddingCache.open(freshFile(), KEY, DIMS);
    const shared = new Float32Array(2 * DIMS).fill(1);
    cache.set(hash(1), shared.subarray(0, DIMS));
    shared.fill(5);
    assert.deepEqual((await cache.read([hash(1)]))[0], new Float32Array(DIMS).fill(1));
  });

  it('rejects malformed hashes and vectors of the wrong size', async () => {
    const cache = await EmbeddingCache.open(freshFile(), KEY, DIMS);
    assert.throws(() => cache.set('abc', vector(1)), RangeError);
    assert.throws(() => cache.set(hash(1).toUpperCase().replace('0', 'G'), vector(1)), RangeError);
    assert.throws(() => cache.set(hash(1), vector(1, DIMS + 1)), RangeError);
  });

  it('starts empty, saying why, when the file belongs to another model or another width', async () => {
    const file = await savedCache(3);
    const other = await EmbeddingCache.open(file, 'Xenova/bge-small-en-v1.5|q8|0123456789abcdef', DIMS);
    assert.equal(other.size, 0);
    assert.match(other.recovered!, /written for another model \(cairn-glove-100d\|q8\|d35d3fd35535d135, now Xenova\/bge-small-en-v1\.5\|q8\|0123456789abcdef\)/);
    const wider = await EmbeddingCache.open(file, KEY, DIMS + 1);
    assert.equal(wider.size, 0);
    assert.match(wider.recovered!, /written for 4-d vectors, the model has 5/);
  });

  it('starts empty, saying why, when the header is unusable: empty, not a cache, truncated, a newer version', async () => {
    const cases: Array<[string, (file: string) => Promise<void>, RegExp]> = [
      ['truncated header', async (f) => truncate(f, 12), /not an embedding cache file|truncated/],
      ['empty file', async (f) => writeFile(f, ''), /not an embedding cache file/],
      ['other file', async (f) => writeFile(f, '{"json": true}\n'.repeat(20)), /not an embedding cache file/],
      ['newer version', async (f) => { const b = await readFile(f); b.writeUInt32LE(3, 8); await writeFile(f, b); }, /unsupported cache version 3/],
    ];
    for (const [name, damage, reason] of cases) {
      const file = await savedCache(5);
      await damage(file);
      const cache = await EmbeddingCache.open(file, KEY, DIMS);
      assert.equal(cache.size, 0, name);
      assert.match(cache.recovered ?? '', reason, name);
      // The next save replaces the damaged file with a good one.
      cache.set(hash(1), vector(1));
      await cache.save();
      const repaired = await EmbeddingCache.open(file, KEY, DIMS);
      assert.equal(repaired.recovered, undefined, name);
      assert.equal(repaired.size, 1, name);
    }
  });

  it('keeps the good entries of a truncated, padded or damaged file and drops the damaged ones, saying so', async () => {
    const header = (56 + KEY.length + 3) & ~3; // fixed header, key, padding to 4
    const record = 8 + 4 * DIMS + 8;
    const flip = (at: (f: Buffer) => number) => async (f: string) => {
      const b = await readFile(f);
      b[at(b)] ^= 0x10;
      await writeFile(f, b);
    };
    const cases: Array<[string, (file: string) => Promise<void>, number[], RegExp]> = [
      ['truncated record', async (f) => truncate(f, (await readFile(f)).length - 3), [0, 1, 2, 3], /4 complete entries of the 5 listed/],
      ['trailing bytes', async (f) => writeFile(f, Buffer.concat([await readFile(f), Buffer.from([1, 2, 3, 4])])), [0, 1, 2, 3, 4], /5 complete entries of the 5 listed/],
      ['a float changed', flip(() => header + 2 * record + 8 + 5), [0, 1, 3, 4], /1 damaged entries dropped/],
      ['a hash changed', flip(() => header + 3 * record + 2), [0, 1, 2, 4], /1 damaged entries dropped/],
      ['a record check changed', flip(() => header + 1 * record + record - 1), [0, 2, 3, 4], /1 damaged entries dropped/],
      ['the file digest changed', flip(() => 30), [0, 1, 2, 3, 4], /file checksum mismatch, every entry checked and kept/],
      ['the count changed', flip(() => 16), [0, 1, 2, 3, 4], /complete entries of the/],
    ];
    for (const [name, damage, kept, reason] of cases) {
      const file = await savedCache(5);
      await damage(file);
      const cache = await EmbeddingCache.open(file, KEY, DIMS);
      assert.match(cache.recovered ?? '(nothing reported)', reason, name);
      assert.equal(cache.size, kept.length, name);
      for (let i = 0; i < 5; i++) assert.deepEqual((await cache.read([hash(i)]))[0], kept.includes(i) ? vector(i) : undefined, `${name}: entry ${i}`);
      await cache.save();
      const repaired = await EmbeddingCache.open(file, KEY, DIMS);
      assert.equal(repaired.recovered, undefined, name);
      assert.equal(repaired.size, kept.length, name);
    }
  });

  it('never throws on damaged content and never returns a wrong vector: any truncation or byte change', async () => {
    const file = await savedCache(6);
    const good = await readFile(file);
    const onlyRightVectors = async (cache: EmbeddingCache) => {
      let found = 0;
      for (let i = 0; i < 6; i++) {
        const v = (await cache.read([hash(i)]))[0];
        if (v) assert.deepEqual(v, vector(i), `entry ${i}`);
        if (v) found++;
      }
      assert.equal(cache.size, found, 'no entry under another key');
    };
    await fc.assert(
      fc.asyncProperty(fc.nat(good.length - 1), fc.nat(good.length - 1), fc.integer({ min: 1, max: 255 }), async (cut, at, xor) => {
        const damaged = path.join(dir, 'damaged.bin');
        await writeFile(damaged, good.subarray(0, cut));
        const truncated = await EmbeddingCache.open(damaged, KEY, DIMS);
        assert.ok(truncated.recovered);
        await onlyRightVectors(truncated);
        const flipped = Buffer.from(good);
        flipped[at] ^= xor;
        await writeFile(damaged, flipped);
        const changed = await EmbeddingCache.open(damaged, KEY, DIMS);
        await onlyRightVectors(changed);
        // Only the key's zero padding may change unnoticed (it carries nothing).
        if (changed.recovered === undefined) assert.equal(changed.size, 6, `byte ${at}`);
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('reads a version 1 file (no checks) as written by earlier versions, and saves version 2', async () => {
    const file = freshFile();
    const key = Buffer.from(KEY);
    const head = Buffer.alloc((24 + key.length + 3) & ~3);
    head.write('CAIRNEMB', 0, 'latin1');
    [1, DIMS, 3, key.length].forEach((n, i) => head.writeUInt32LE(n, 8 + 4 * i));
    key.copy(head, 24);
    const records = [0, 1, 2].map((i) => Buffer.concat([Buffer.from(hash(i), 'hex'), Buffer.from(vector(i).buffer)]));
    await writeFile(file, Buffer.concat([head, ...records]));
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    assert.equal(cache.recovered, undefined);
    assert.equal(cache.size, 3);
    for (let i = 0; i < 3; i++) assert.deepEqual((await cache.read([hash(i)]))[0], vector(i));
    await cache.save();
    const saved = await readFile(file);
    assert.equal(saved.readUInt32LE(8), 2);
    assert.equal((await EmbeddingCache.open(file, KEY, DIMS)).size, 3);
  });

  it('keeps vectors set while a save is running', async () => {
    const file = await savedCache(3);
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    cache.set(hash(4), vector(4));
    const saving = cache.save();
    cache.set(hash(5), vector(5));
    cache.set(hash(4), vector(44));
    await saving;
    assert.equal(cache.size, 5);
    assert.deepEqual((await cache.read([hash(4)]))[0], vector(44));
    assert.deepEqual((await cache.read([hash(5)]))[0], vector(5));
    await cache.save();
    const reopened = await EmbeddingCache.open(file, KEY, DIMS);
    assert.deepEqual((await reopened.read([hash(4)]))[0], vector(44));
    assert.deepEqual((await reopened.read([hash(5)]))[0], vector(5));
  });

  it('reads back the last vector set for each hash across its slabs of added vectors, in memory or written out, through a save begun and awaited later', async () => {
    const file = freshFile();
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    const expected = new Map<string, Float32Array>();
    const random = seededRandom(3);
    const next = (n: number) => Math.floor(random() * n);
    let saving: Promise<void> | undefined;
    for (let step = 0; step < 30_000; step++) {
      // Mostly new hashes (the slabs fill past their 4,096 vectors), some set again.
      const h = hash(next(10) < 8 ? step : next(step + 1));
      const v = vector(step);
      cache.set(h, v);
      expected.set(h, v);
      // The indexer yields between its turns: slabs are written out meanwhile.
      if (step % 1000 === 999) await new Promise((resolve) => setTimeout(resolve, 5));
      if (step === 22_000) saving = cache.save();
      if (step === 23_000) await saving;
      if (step % 3000 === 2999) {
        const sample = [...expected.keys()].filter(() => next(20) === 0);
        assert.deepEqual(await cache.read(sample), sample.map((k) => expected.get(k)), `step ${step}`);
      }
    }
    await saving;
    assert.equal(cache.size, expected.size);
    const all = [...expected.keys()];
    assert.deepEqual(await cache.read(all), all.map((k) => expected.get(k)));
    await cache.save();
    const reopened = await EmbeddingCache.open(file, KEY, DIMS);
    assert.equal(reopened.size, expected.size);
    assert.deepEqual(await reopened.read(all), all.map((k) => expected.get(k)));
  });

  it('a large save lets reads and sets run in every turn until it ends (kept or pruned): each reads the vector last set', async () => {
    // Kept: 80,000 added to 20,000 saved, numbered and forgotten in turns after the file is written. Pruned: 15,000
    // referenced (0..4,999 and the added ones), 35,000 not, so the saved records are numbered anew.
    for (const { saved, added, prune } of [{ saved: 20_000, added: 80_000, prune: false }, { saved: 40_000, added: 10_000, prune: true }]) {
      const total = saved + added;
      const file = await savedCache(saved);
      const cache = await EmbeddingCache.open(file, KEY, DIMS);
      const expected = new Map<string, Float32Array>(Array.from({ length: saved }, (_, i) => [hash(i), vector(i)]));
      for (let i = saved; i < total; i++) {
        cache.set(hash(i), vector(i));
        expected.set(hash(i), vector(i));
      }
      const keep = prune ? new Set([...expected.keys()].filter((h) => parseInt(h, 16) < 5_000 || parseInt(h, 16) >= saved)) : undefined;
      if (keep) for (const h of [...expected.keys()]) if (!keep.has(h)) expected.delete(h);
      let done = false;
      const saving = cache.save(keep).then(() => (done = true));
      const random = seededRandom(prune ? 2 : 1);
      let turns = 0;
      for (let step = total; !done; step++) {
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
        const sample = [...Array(20)].map(() => hash(Math.floor(random() * total))).filter((h) => expected.has(h));
        assert.deepEqual(await cache.read(sample), sample.map((h) => expected.get(h)), `turn ${turns}${prune ? ', pruning' : ''}`);
        // A new vector, and one set again (of a kept hash), while the save goes on.
        for (const h of [hash(step), hash(saved + (step % added))]) {
          cache.set(h, vector(step + 1_000_000));
          expected.set(h, vector(step + 1_000_000));
          keep?.add(h);
        }
      }
      await saving;
      assert.ok(turns >= 3, `the save gave ${turns} turns`);
      assert.equal(cache.size, expected.size);
      const all = [...expected.keys()];
      assert.deepEqual(await cache.read(all), all.map((h) => expected.get(h)));
      await cache.save(keep);
      const reopened = await EmbeddingCache.open(file, KEY, DIMS);
      assert.equal(reopened.size, expected.size);
      assert.deepEqual(await reopened.read(all), all.map((h) => expected.get(h)));
    }
  });

  it('saves atomically: no temporary files left, parent folders created', async () => {
    const nested = path.join(dir, 'a', 'b');
    const file = path.join(nested, 'embeddings.bin');
    await savedCache(10, file);
    await savedCache(12, file);
    assert.deepEqual(await readdir(nested), ['embeddings.bin']);
    assert.equal((await EmbeddingCache.open(file, KEY, DIMS)).size, 12);
  });

  it('a folder in place of the file: opens empty, saying so, and the next save replaces it', async () => {
    const folder = path.join(dir, 'blocked');
    const file = path.join(folder, 'embeddings.bin');
    await mkdir(path.join(file, 'inside'), { recursive: true });
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    assert.equal(cache.size, 0);
    assert.match(cache.recovered ?? '', /embeddings\.bin is a folder/);
    cache.set(hash(1), vector(1));
    await cache.save();
    assert.deepEqual(await readdir(folder), ['embeddings.bin']);
    assert.deepEqual((await (await EmbeddingCache.open(file, KEY, DIMS)).read([hash(1)]))[0], vector(1));
  });

  it('throws other I/O errors, and keeps its entries when a save fails', async () => {
    const notAFolder = path.join(dir, 'plain-file');
    await writeFile(notAFolder, 'x');
    const file = path.join(notAFolder, 'embeddings.bin');
    await assert.rejects(EmbeddingCache.open(file, KEY, DIMS), { code: 'ENOTDIR' });
    const cache = await EmbeddingCache.open(freshFile(), KEY, DIMS);
    cache.set(hash(1), vector(1));
    Object.defineProperty(cache, 'file', { value: file });
    await assert.rejects(cache.save());
    assert.equal(cache.size, 1, 'the entries survive a failed save');
  });

  it('prunes unreferenced entries only when they outnumber referenced ones', async () => {
    const file = await savedCache(10);
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    // 4 unreferenced, 6 referenced: everything stays.
    await cache.save(new Set([0, 1, 2, 3, 4, 5].map(hash)));
    assert.equal(cache.size, 10);
    assert.equal((await EmbeddingCache.open(file, KEY, DIMS)).size, 10);
    // 5 against 5 (a config flipped to another chunking of the same size): still everything.
    await cache.save(new Set([0, 1, 2, 3, 4].map(hash)));
    assert.equal((await EmbeddingCache.open(file, KEY, DIMS)).size, 10);
    // 6 unreferenced, 4 referenced: the 6 go, in memory and on disk.
    await cache.save(new Set([0, 1, 2, 3, 42].map(hash)));
    assert.equal(cache.size, 4);
    assert.equal((await cache.read([hash(5)]))[0], undefined);
    const reopened = await EmbeddingCache.open(file, KEY, DIMS);
    assert.equal(reopened.size, 4);
    for (let i = 0; i < 4; i++) assert.deepEqual((await reopened.read([hash(i)]))[0], vector(i));
  });

  it('holds only hashes in memory: 50,000 entries open quickly, and any of them are read back at once', async () => {
    const dims = 101;
    const file = freshFile();
    const cache = await EmbeddingCache.open(file, KEY, dims);
    for (let i = 0; i < 50_000; i++) cache.set(hash(i * 7919), vector(i, dims));
    await cache.save();
    const started = performance.now();
    const loaded = await EmbeddingCache.open(file, KEY, dims);
    const ms = performance.now() - started;
    assert.equal(loaded.size, 50_000);
    // Scattered, clustered and unknown hashes in one request, in any order.
    const picks = [49_999, 123, 124, 125, 40_000, 7, 0, 31_337];
    const read = await loaded.read([...picks.map((i) => hash(i * 7919)), hash(1)]);
    picks.forEach((i, k) => assert.deepEqual(read[k], vector(i, dims), `entry ${i}`));
    assert.equal(read[picks.length], undefined);
    const all = await loaded.read(Array.from({ length: 50_000 }, (_, i) => hash(i * 7919)));
    assert.ok(all.every((v, i) => v !== undefined && v[0] === vector(i, dims)[0]));
    assert.ok(ms < 2000, `open took ${ms.toFixed(0)} ms`);
  });

  it('reads a record damaged or replaced after opening as a miss, never as another vector', async () => {
    const file = await savedCache(6);
    const cache = await EmbeddingCache.open(file, KEY, DIMS);
    const header = (56 + KEY.length + 3) & ~3;
    const record = 8 + 4 * DIMS + 8;
    const bytes = await readFile(file);
    bytes[header + 2 * record + 9] ^= 0x20;
    await writeFile(file, bytes);
    const read = await cache.read([0, 1, 2, 3].map(hash));
    assert.deepEqual(read, [vector(0), vector(1), undefined, vector(3)]);
    // Another save in the file's place, in another order: what no longer matches is a miss.
    const other = await EmbeddingCache.open(freshFile(), KEY, DIMS);
    for (const i of [5, 4, 3]) other.set(hash(i), vector(i));
    await other.save();
    await writeFile(file, await readFile(other.file));
    const after = await cache.read([0, 3, 4, 5].map(hash));
    after.forEach((v, k) => v && assert.deepEqual(v, vector([0, 3, 4, 5][k]!)));
    assert.equal(after[0], undefined);
    // Saving copies only what still checks out.
    await cache.save();
    const reopened = await EmbeddingCache.open(file, KEY, DIMS);
    assert.equal(reopened.recovered, undefined);
    for (let i = 0; i < 6; i++) {
      const v = (await reopened.read([hash(i)]))[0];
      if (v) assert.deepEqual(v, vector(i));
    }
  });
});

describe('an opened vault reads its embedding cache only when needed', { timeout: 120_000 }, () => {
  /** Every file EmbeddingCache.open is asked for while `run` runs (the real open still does the work). */
  async function cacheOpens(run: (opened: string[]) => Promise<void>): Promise<void> {
    const opened: string[] = [];
    const original = EmbeddingCache.open;
    EmbeddingCache.open = (file, key, dims) => {
      opened.push(path.basename(file));
      return original.call(EmbeddingCache, file, key, dims);
    };
    try {
      await run(opened);
    } finally {
      EmbeddingCache.open = original;
    }
  }

  it('not for a first search; at once for an edit, or a moment after opening', async () => {
    const vaultDir = path.join(dir, 'vault');
    const dataRoot = path.join(dir, 'data');
    await mkdir(vaultDir, { recursive: true });
    await writeFile(path.join(vaultDir, 'bread.md'), '# Bread\n\nSourdough needs a starter fed daily.\n');
    const openVault = () => {
      const config = defaultConfig();
      config.vault.path = vaultDir;
      config.index.data_dir = dataRoot;
      return CairnVault.open(config);
    };
    const first = await openVault();
    await first.index();
    await first.close();

    await cacheOpens(async (opened) => {
      const vault = await openVault();
      try {
        const { results } = await vault.search({ query: 'sourdough starter', k: 3 });
        assert.equal(results[0]?.path, 'bread.md');
        assert.deepEqual(opened, [], 'the first search did not read the cache');
        await writeFile(path.join(vaultDir, 'kayak.md'), '# Kayak\n\nPaddling across the lake at dawn.\n');
        const summary = await vault.update(['kayak.md']);
        assert.equal(summary.embedded, 1);
        assert.deepEqual(opened, ['embeddings.bin'], 'the edit read it, once');
      } finally {
        await vault.close();
      }
    });

    await cacheOpens(async (opened) => {
      const vault = await openVault();
      try {
        await vault.search({ query: 'kayak', k: 3 });
        await new Promise((resolve) => setTimeout(resolve, 1500));
        assert.deepEqual(opened, ['embeddings.bin'], 'read a second after opening, ready for the first edit');
      } finally {
        await vault.close();
      }
    });
  });
});
