import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { IndexLockedError, withWriteLock } from '../core/indexing/writeLock.js';

describe('index write lock', () => {
  let dir: string;
  after(() => rm(dir, { recursive: true, force: true }));

  it('writers take turns, and the lock is released after an error', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-lock-'));
    const order: string[] = [];
    const slow = (name: string) => async () => {
      order.push(`${name} in`);
      await new Promise((r) => setTimeout(r, 100));
      order.push(`${name} out`);
    };
    await Promise.all([withWriteLock(dir, slow('a')), withWriteLock(dir, slow('b'))]);
    assert.deepEqual(order, ['a in', 'a out', 'b in', 'b out']);
    await assert.rejects(withWriteLock(dir, async () => { throw new Error('boom'); }), /boom/);
    assert.equal(await withWriteLock(dir, async () => 'free again'), 'free again');
  });

  it('a lock left by a dead process is taken over; a live holder makes others wait, then time out', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => dead.on('exit', () => resolve(dead.pid!)));
    await writeFile(path.join(dir, 'write.lock'), String(deadPid));
    assert.equal(await withWriteLock(dir, async () => 'taken over'), 'taken over');

    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)']);
    try {
      await writeFile(path.join(dir, 'write.lock'), String(live.pid));
      await assert.rejects(withWriteLock(dir, async () => 'never', 300), IndexLockedError);
      assert.equal(await readFile(path.join(dir, 'write.lock'), 'utf8'), String(live.pid));
    } finally {
      live.kill();
    }
  });
});
