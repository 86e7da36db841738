import type { Scenario } from '../context.js';
import { sleep } from '../cairnProcess.js';
import { randomEdit } from '../vaultGen.js';

const KILLS_PER_ROUND = 3;
const PHASE = /cairn: (scanning|chunking|embedding|indexing|saving)/g;

/** The phase the command last reported on stderr (before the first report it is still starting: config, model, files). */
export function lastPhase(stderr: string): string {
  return [...stderr.matchAll(PHASE)].at(-1)?.[1] ?? 'starting';
}

/**
 * 1. kill -9 of `cairn index` / `cairn rebuild` at a random moment, on a fresh data folder (cold), on an index with
 * changes to catch up (incremental), or during a rebuild; the next `cairn index` must converge to the fresh index.
 */
export const killIndex: Scenario = {
  name: 'kill-index',
  async run(ctx, rng) {
    for (let kill = 0; kill < KILLS_PER_ROUND; kill++) {
      await ctx.fault('kill-index', async (rec) => {
        ctx.resetVault();
        const base = await ctx.reference();
        const variant = rng.pick(['cold', 'incremental', 'rebuild'] as const);
        const dataDir = variant === 'cold' ? ctx.newDataDir('kill-index') : ctx.copyData(base.dataDir, 'kill-index');
        if (variant === 'incremental') for (let i = 0; i < 12; i++) randomEdit(rng)(ctx.vault, rng);
        const command = variant === 'rebuild' ? 'rebuild' : 'index';
        // Either any moment of the run, or just after a given phase began (so the short ones, like saving, get hit too).
        const target = rng.pick(['anytime', 'chunking', 'embedding', 'saving'] as const);
        const child = ctx.start(command, dataDir, ['--json']);
        if (target === 'anytime') await Promise.race([child.exited, sleep(rng.between(200, base.indexMs * 0.95))]);
        else if (await child.waitFor(new RegExp(`cairn: ${target}`), ctx.indexTimeoutMs, 'stderr')) await sleep(rng.between(0, 150));
        const phase = child.running ? lastPhase(child.stderr) : 'it had already finished';
        const atMs = child.elapsedMs;
        child.signal('SIGKILL');
        const exit = await child.waitExit(10_000);
        rec.fault = `kill -9 cairn ${command} (${variant}) at ${(atMs / 1000).toFixed(2)} s (${phase}${target === 'anytime' ? '' : `, aimed at ${target}`})`;
        if (!exit) rec.hangs.push('cairn did not die within 10 s of SIGKILL');
        if (exit && exit.signal !== 'SIGKILL' && exit.code !== 0) ctx.judge(rec, `cairn ${command} before the kill`, child.result(false));
        await ctx.checkOrphans(rec, child);
        await ctx.converge(rec, dataDir);
      });
    }
  },
};
