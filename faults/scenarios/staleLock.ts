import { spawn, spawnSync } from 'node:child_process';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sleep } from '../cairnProcess.js';
import type { Context, Scenario } from '../context.js';
import type { FaultRecord } from '../report.js';
import { editNote } from '../vaultGen.js';
import { settleAndStop, startWatch } from './watchSession.js';

/** "Within a few seconds": a stale lock may cost a poll or two, never the 60 s wait for a live writer. */
const LOCK_BOUND_MS = 10_000;
/** A watcher saves 2 s after applying a change (debounce 300 ms); with a stale lock in the way it has this long. */
const SAVE_BOUND_MS = LOCK_BOUND_MS + 2300;

interface Holder {
  label: string;
  pid: number;
  release: () => void;
}

/** Pids that are not a Cairn writer: pid 1 (alive, never ours), a process that has exited, a live unrelated one. */
const HOLDERS: Array<() => Holder> = [
  () => ({ label: 'pid 1 (alive, not cairn)', pid: 1, release: () => {} }),
  () => {
    const gone = spawnSync('true');
    return { label: `dead pid ${gone.pid}`, pid: gone.pid ?? 999_999, release: () => {} };
  },
  () => {
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    return { label: `live unrelated pid ${sleeper.pid} (sleep)`, pid: sleeper.pid!, release: () => sleeper.kill('SIGKILL') };
  },
];

function plantLock(ctx: Context, dataDir: string, holder: Holder): string {
  const lock = path.join(ctx.indexDir(dataDir), 'write.lock');
  writeFileSync(lock, String(holder.pid));
  return lock;
}

/**
 * 4. A write.lock left by a process that is not writing: the next `cairn index`, and the next save of a running
 * `cairn watch`, must go through within a few seconds (not wait out the lock timeout) and converge.
 */
export const staleLock: Scenario = {
  name: 'stale-lock',
  async run(ctx, rng) {
    ctx.resetVault();
    const base = await ctx.reference();
    for (const makeHolder of HOLDERS) {
      await ctx.fault('stale-lock', async (rec) => {
        const holder = makeHolder();
        try {
          const dataDir = ctx.copyData(base.dataDir, 'stale-lock');
          ctx.resetVault();
          const edit = editNote(ctx.vault, rng);
          const lock = plantLock(ctx, dataDir, holder);
          rec.fault = `write.lock of ${holder.label}, ${edit}, cairn index`;
          const result = await ctx.run('index', dataDir, ['--json'], LOCK_BOUND_MS);
          if (result.timedOut) {
            rec.hangs.push(`cairn index still waiting for the lock after ${LOCK_BOUND_MS / 1000} s`);
            rmSync(lock, { force: true }); // so the recovery below measures convergence, not the same wait again
          } else {
            ctx.judge(rec, 'cairn index', result);
            rec.notes.push(`went through in ${(result.ms / 1000).toFixed(1)} s`);
          }
          await ctx.converge(rec, dataDir);
        } finally {
          holder.release();
        }
      });
    }
    await ctx.fault('stale-lock', (rec) => staleLockUnderWatch(ctx, rec, rng.pick(HOLDERS)(), rng));
  },
};

async function staleLockUnderWatch(ctx: Context, rec: FaultRecord, holder: Holder, rng: Parameters<typeof editNote>[1]): Promise<void> {
  try {
    ctx.resetVault();
    const dataDir = ctx.copyData((await ctx.reference()).dataDir, 'stale-lock-watch');
    rec.fault = `write.lock of ${holder.label} under a running cairn watch`;
    const watch = await startWatch(ctx, rec, dataDir, 'cairn watch');
    if (!watch) return;
    const lock = plantLock(ctx, dataDir, holder);
    const manifest = path.join(ctx.indexDir(dataDir), 'manifest.json');
    const before = statSync(manifest).mtimeMs;
    const edit = editNote(ctx.vault, rng);
    rec.fault = `write.lock of ${holder.label} under a running cairn watch, ${edit}`;
    const start = Date.now();
    while (Date.now() - start < SAVE_BOUND_MS && (statSync(manifest, { throwIfNoEntry: false })?.mtimeMs ?? before) === before) await sleep(100);
    if ((statSync(manifest, { throwIfNoEntry: false })?.mtimeMs ?? before) === before) {
      rec.hangs.push(`the watcher's save did not go through within ${SAVE_BOUND_MS / 1000} s of the edit`);
      rmSync(lock, { force: true });
    } else rec.notes.push(`saved ${((Date.now() - start) / 1000).toFixed(1)} s after the edit`);
    await settleAndStop(ctx, rec, watch, 'cairn watch');
    await ctx.converge(rec, dataDir, { reindex: false });
  } finally {
    holder.release();
  }
}
