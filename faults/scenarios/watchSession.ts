import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CairnChild } from '../cairnProcess.js';
import type { Context } from '../context.js';
import type { FaultRecord } from '../report.js';

/** How long a started watcher may take to print "watching": its first index plus a margin. */
export const READY_BOUND_MS = 30_000;
/** A watcher that is told to stop (SIGTERM) must save and exit within this. */
export const STOP_BOUND_MS = 20_000;
/** No output for this long means the watcher applied what it saw (debounce 300 ms, save 2 s later). */
const QUIET_MS = 2500;

/** Starts `cairn watch` and waits for its "watching" line; undefined (recorded) when it does not come. */
export async function startWatch(ctx: Context, rec: FaultRecord, dataDir: string, what: string): Promise<CairnChild | undefined> {
  const watch = ctx.start('watch', dataDir);
  const bound = Math.max(READY_BOUND_MS, ctx.indexTimeoutMs / 2);
  if (await watch.waitFor(/ watching /, bound, 'stdout')) return watch;
  if (watch.running) rec.hangs.push(`${what}: no "watching" line within ${bound / 1000} s`);
  else ctx.judge(rec, what, watch.result(false));
  watch.killGroup();
  return undefined;
}

/** Lets the watcher apply what is pending, then stops it with SIGTERM; it must exit 0 within the bound. */
export async function settleAndStop(ctx: Context, rec: FaultRecord, watch: CairnChild, what: string): Promise<void> {
  await watch.waitQuiet(QUIET_MS, 60_000);
  watch.signal('SIGTERM');
  const exit = await watch.waitExit(STOP_BOUND_MS);
  if (!exit) rec.hangs.push(`${what}: did not exit within ${STOP_BOUND_MS / 1000} s of SIGTERM`);
  else ctx.judge(rec, what, watch.result(false));
  const errors = watchLines(watch).filter((line) => /^(error|failed) /.test(line));
  if (errors.length) rec.notes.push(`${what} reported: ${errors[0]!.slice(0, 160)}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}`);
}

/** The watcher's stdout lines without their local-time stamps ("6:48:12 AM  changed notes/a.md" → "changed notes/a.md"). */
export function watchLines(watch: CairnChild): string[] {
  return watch.stdout
    .split('\n')
    .map((line) => line.replace(/^\d{1,2}[:.]\d{2}[:.]\d{2}(\s?[AP]M)?\s+/i, '').trim())
    .filter(Boolean);
}

/** Saves a note holding `word` while a watcher runs; it must become searchable from another process within `boundMs`. */
export async function expectSearchable(ctx: Context, rec: FaultRecord, dataDir: string, rel: string, word: string, boundMs: number): Promise<void> {
  writeFileSync(path.join(ctx.vault, rel), `# ${path.basename(rel, '.md')}\n\nSaved while the watcher runs: ${word}.\n`);
  const start = Date.now();
  while (Date.now() - start < boundMs) {
    const result = await ctx.run('search', dataDir, ['--json', '--no-update', '--mode', 'keyword', word], boundMs);
    if (ctx.judge(rec, 'cairn search for the new note', result) && (JSON.parse(result.stdout) as { results: unknown[] }).results.length) {
      rec.notes.push(`${rel} searchable after ${((Date.now() - start) / 1000).toFixed(1)} s`);
      return;
    }
  }
  rec.hangs.push(`${rel}, saved while the watcher ran, was not searchable within ${boundMs / 1000} s`);
}
