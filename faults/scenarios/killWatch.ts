import { sleep } from '../cairnProcess.js';
import type { Scenario } from '../context.js';
import { randomEdit } from '../vaultGen.js';
import { settleAndStop, startWatch, watchLines } from './watchSession.js';

/** The watcher applies a batch 300 ms after the last event and saves 2 s after that: kills land up to here. */
const AFTER_BURST_MS = 3000;
const KILLS_PER_ROUND = 2;

/**
 * 2. kill -9 of `cairn watch` while it applies a burst of edits (adds, edits, deletes, renames, folder swaps, mass
 * rewrites) or while it saves; the edits go on while it is down; a restarted watcher must converge.
 */
export const killWatch: Scenario = {
  name: 'kill-watch',
  async run(ctx, rng) {
    for (let kill = 0; kill < KILLS_PER_ROUND; kill++) {
      await ctx.fault('kill-watch', async (rec) => {
        ctx.resetVault();
        const base = await ctx.reference();
        const dataDir = ctx.copyData(base.dataDir, 'kill-watch');
        rec.fault = 'kill -9 cairn watch (never started)';
        const watch = await startWatch(ctx, rec, dataDir, 'cairn watch');
        if (!watch) return;
        const edits = rng.int(5, 30);
        const burstMs = rng.between(0, 1500);
        const killAtMs = rng.between(0, burstMs + AFTER_BURST_MS);
        const start = Date.now();
        const log: string[] = [];
        let when = `${((killAtMs - burstMs) / 1000).toFixed(2)} s after a burst of ${edits} edits`;
        for (let i = 0; i < edits; i++) {
          if (watch.running && Date.now() - start >= killAtMs) {
            watch.signal('SIGKILL');
            when = `during a burst of ${edits} edits (after edit ${i})`;
          }
          log.push(randomEdit(rng)(ctx.vault, rng));
          await sleep(burstMs / edits);
        }
        if (watch.running) {
          await sleep(Math.max(0, killAtMs - (Date.now() - start)));
          watch.signal('SIGKILL');
        }
        const last = watchLines(watch).at(-1)?.slice(0, 60) ?? '';
        rec.fault = `kill -9 cairn watch ${when} (last line: "${last}")`;
        await ctx.checkOrphans(rec, watch);
        const restarted = await startWatch(ctx, rec, dataDir, 'restarted cairn watch');
        if (!restarted) return;
        await settleAndStop(ctx, rec, restarted, 'restarted cairn watch');
        // No `cairn index` first: what the restarted watcher saved must already be the fresh index.
        await ctx.converge(rec, dataDir, { reindex: false });
      });
    }
  },
};
