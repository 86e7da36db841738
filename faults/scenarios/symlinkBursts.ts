import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sampleGroup, sleep, type CairnChild } from '../cairnProcess.js';
import type { Context, Scenario } from '../context.js';
import type { Random } from '../random.js';
import type { FaultRecord } from '../report.js';
import { expectSearchable, READY_BOUND_MS, settleAndStop, startWatch } from './watchSession.js';

/** A watcher that has nothing to do must not spin: at most this share of one core, averaged over IDLE_WINDOW_MS. */
const IDLE_CPU_MAX = 0.25;
const IDLE_WINDOW_MS = 3000;
/** Peak resident memory of the watcher and its worker together. */
const RSS_MAX_BYTES = 1.5 * 1024 ** 3;
/** A note saved next to the loops must be searchable within this (debounce 300 ms, save 2 s later, a search process). */
const PICKUP_BOUND_MS = 12_000;

interface Link {
  /** Vault-relative place of the link. */
  at: string;
  target: string;
}

function letters(rng: Random, n: number): string {
  return Array.from({ length: n }, () => String.fromCharCode(97 + rng.int(0, 25))).join('');
}

/** Links into the vault, loops, and links out of it (to a folder and to a file, each holding a marker word). */
function links(ctx: Context, outside: string): Link[] {
  return [
    { at: 'linked-reference', target: 'reference' },
    { at: 'projects/up', target: '..' },
    { at: 'projects/me', target: '.' },
    { at: 'journal/root', target: ctx.vault },
    { at: 'inbox/outside-folder', target: outside },
    { at: 'outside-note.md', target: path.join(outside, 'file.md') },
    { at: 'reference/dangling.md', target: path.join(outside, 'missing.md') },
  ];
}

function place(ctx: Context, link: Link): void {
  mkdirSync(path.dirname(path.join(ctx.vault, link.at)), { recursive: true });
  symlinkSync(link.target, path.join(ctx.vault, link.at));
}

/** Samples the watcher's process group in the background: peak memory, and CPU over a window on demand. */
function monitor(watch: CairnChild): { peakRss: () => number; stop: () => void } {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, sampleGroup(watch.pid).rssBytes)), 250);
  return { peakRss: () => peak, stop: () => clearInterval(timer) };
}

async function idleCpu(watch: CairnChild): Promise<number> {
  const before = sampleGroup(watch.pid).cpuSeconds;
  await sleep(IDLE_WINDOW_MS);
  return (sampleGroup(watch.pid).cpuSeconds - before) / (IDLE_WINDOW_MS / 1000);
}

/**
 * 5. Symlinks under `cairn watch`, some there at start, the rest added in a burst: links to in-vault folders, loops
 * (`up -> ..`, `me -> .`, a link to the vault root), links to an outside folder and file holding marker words,
 * a dangling link. The watcher must get ready and pick up a normal note within bounds, stay under CPU and memory
 * bounds, never make an outside marker searchable, and converge.
 */
export const symlinkBursts: Scenario = {
  name: 'symlinks',
  async run(ctx, rng) {
    await ctx.fault('symlinks', async (rec) => {
      ctx.resetVault();
      const base = await ctx.reference();
      const outside = path.join(ctx.root, `outside-${letters(rng, 6)}`);
      const markers = [`quokka${letters(rng, 6)}`, `wombat${letters(rng, 6)}`];
      mkdirSync(outside, { recursive: true });
      writeFileSync(path.join(outside, 'secret.md'), `# Secret\n\nThis note lives outside the vault: ${markers[0]} must never be searchable.\n`);
      writeFileSync(path.join(outside, 'file.md'), `# Outside file\n\nLinked file outside the vault: ${markers[1]} must never be searchable.\n`);
      const all = rng.shuffle(links(ctx, outside));
      const split = rng.int(0, all.length);
      for (const link of all.slice(0, split)) place(ctx, link);
      rec.fault = `${split} symlinks at start (${all.slice(0, split).map((l) => l.at).join(', ') || 'none'}), ${all.length - split} in a burst`;
      const dataDir = ctx.copyData(base.dataDir, 'symlinks');
      mkdirSync(path.join(ctx.vault, 'inbox'), { recursive: true }); // a corpus given with --vault may have none
      const watch = await startWatch(ctx, rec, dataDir, 'cairn watch with symlinks');
      if (watch) await burstUnderWatch(ctx, rec, watch, dataDir, all.slice(split), rng);
      // Even a watcher that never got ready has indexed once: no outside marker may be in that index either.
      await checkMarkers(ctx, rec, dataDir, markers, 'the watcher\'s index');
      if (watch) await ctx.converge(rec, dataDir, { reindex: false });
      await checkMarkers(ctx, rec, (await ctx.reference(rec)).dataDir, markers, 'a fresh index');
    });
  },
};

async function burstUnderWatch(ctx: Context, rec: FaultRecord, watch: CairnChild, dataDir: string, burst: Link[], rng: Random): Promise<void> {
  rec.notes.push(`ready in ${(watch.elapsedMs / 1000).toFixed(1)} s (bound ${READY_BOUND_MS / 1000} s)`);
  const sampler = monitor(watch);
  try {
    for (const link of burst) {
      place(ctx, link);
      await sleep(rng.between(0, 150));
    }
    await expectSearchable(ctx, rec, dataDir, `inbox/Fresh ${letters(rng, 5)}.md`, `fresh${letters(rng, 8)}`, PICKUP_BOUND_MS);
    await watch.waitQuiet(2500, 30_000);
    const cpu = await idleCpu(watch);
    rec.notes.push(`idle CPU ${(cpu * 100).toFixed(0)}%, peak RSS ${(sampler.peakRss() / 1024 ** 2).toFixed(0)} MB`);
    if (cpu > IDLE_CPU_MAX) rec.hangs.push(`the idle watcher used ${(cpu * 100).toFixed(0)}% of a core (bound ${IDLE_CPU_MAX * 100}%)`);
    if (sampler.peakRss() > RSS_MAX_BYTES) rec.hangs.push(`the watcher's memory peaked at ${(sampler.peakRss() / 1024 ** 2).toFixed(0)} MB`);
  } finally {
    sampler.stop();
  }
  await settleAndStop(ctx, rec, watch, 'cairn watch with symlinks');
}

async function checkMarkers(ctx: Context, rec: FaultRecord, dataDir: string, markers: string[], what: string): Promise<void> {
  for (const marker of markers) {
    const result = await ctx.run('search', dataDir, ['--json', '--no-update', '--mode', 'keyword', marker]);
    if (!ctx.judge(rec, `cairn search ${marker}`, result)) continue;
    const hits = (JSON.parse(result.stdout) as { results: Array<{ path: string }> }).results;
    if (hits.length) rec.mismatches.push(`outside marker "${marker}" is searchable in ${what}: ${hits.map((h) => h.path).join(', ')}`);
  }
}
