import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { IndexLockedError, withWriteLock } from '../core/indexing/writeLock.js';

const LOCK_MODULE = fileURLToPath(new URL('../core/indexing/writeLock.ts', import.meta.url));

/** Runs a child process that takes the lock `rounds` times, logging "<tag> in" / "<tag> out" lines around a pause. */
function lockingProcess(dir: string, log: string, tag: string, rounds: number): Promise<number | null> {
  const script = `
    import { appendFileSync } from 'node:fs';
    import { withWriteLock } from ${JSON.stringify(LOCK_MODULE)};
    for (let i = 0; i < ${rounds}; i++) {
      await withWriteLock(${JSON.stringify(dir)}, async () => {
        appendFileSync(${JSON.stringify(log)}, '${tag} in\\n');
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
        appendFileSync(${JSON.stringify(log)}, '${tag} out\\n');
      });
    }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: 'inherit' });
  return new Promise((resolve) => child.on('exit', resolve));
}

describe('index write lock', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-lock-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('writers take turns, and the lock is released after an error', async () => {
    const order: string[] = [];
    const slow = (name: string) => async () => {
      order.push(`${name} in`);
      await new Promise((r) => setTimeout(r, 100));
      order.push(`${name} out`);
    };
    await Promise.all([withWriteLock(dir, slow('a')), withWriteLock(dir, slow('b')), withWriteLock(dir, slow('c'))]);
    assert.deepEqual(order, ['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
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

  it('a lock whose pid now belongs to another process is stale and taken over at once', { skip: process.platform !== 'linux' && 'process start times are read from /proc' }, async () => {
    const lock = path.join(dir, 'write.lock');
    const promptly = async (what: string) => {
      const started = Date.now();
      assert.equal(await withWriteLock(dir, async () => 'saved', 10_000), 'saved', what);
      assert.ok(Date.now() - started < 2000, `${what}: took ${Date.now() - started} ms`);
    };
    // A previous version wrote bare pids; pid 1 is alive (init) but is not a Cairn process.
    await writeFile(lock, '1');
    await promptly('a bare pid 1');
    // Our own pid, written by an earlier process that had it (a container restarted): the lock predates us.
    await writeFile(lock, String(process.pid));
    const beforeWeStarted = new Date(Date.now() - process.uptime() * 1000 - 60_000);
    await utimes(lock, beforeWeStarted, beforeWeStarted);
    await promptly('a bare pid of ours, older than this process');
    // The current format, with our pid but another process start time (the pid was reused).
    const ours = JSON.parse(await withWriteLock(dir, () => readFile(lock, 'utf8'))) as Record<string, unknown>;
    assert.equal(ours.pid, process.pid);
    await writeFile(lock, JSON.stringify({ ...ours, start: String(Number(ours.start) + 12345) }));
    await promptly('our pid with another start time');
    // The same from a previous boot.
    await writeFile(lock, JSON.stringify({ ...ours, boot: '00000000-0000-0000-0000-000000000000' }));
    await promptly('our pid from another boot');
    // Garbage (a damaged lock) or a folder in its place never blocks or spins.
    await writeFile(lock, 'not a lock');
    await promptly('an unreadable lock');
    await mkdir(path.join(lock, 'inside'), { recursive: true });
    await promptly('a folder in place of the lock');
  });

  it('a live holder in the current format makes others wait', async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      import { withWriteLock } from ${JSON.stringify(LOCK_MODULE)};
      await withWriteLock(${JSON.stringify(dir)}, async () => { console.log('in'); await new Promise((r) => setTimeout(r, 4000)); });`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      await assert.rejects(withWriteLock(dir, async () => 'never', 500), IndexLockedError);
    } finally {
      holder.kill();
      await new Promise((resolve) => holder.on('exit', resolve));
      await rm(path.join(dir, 'write.lock'), { force: true });
    }
  });

  it('processes contending for one index never hold the lock at the same time', async () => {
    const log = path.join(dir, 'turns.log');
    await writeFile(log, '');
    const codes = await Promise.all(['p1', 'p2', 'p3'].map((tag) => lockingProcess(dir, log, tag, 8)));
    assert.deepEqual(codes, [0, 0, 0]);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    assert.equal(lines.length, 3 * 8 * 2);
    for (let i = 0; i < lines.length; i += 2) {
      const tag = lines[i].split(' ')[0];
      assert.deepEqual([lines[i], lines[i + 1]], [`${tag} in`, `${tag} out`], `turns interleave at line ${i + 1}`);
    }
    assert.deepEqual((await readdir(dir)).filter((f) => f.startsWith('write.lock')), [], 'no lock or draft file is left behind');
  });
});
