import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sleep } from '../cairnProcess.js';
import type { Context, Scenario } from '../context.js';
import type { Random } from '../random.js';
import { expectSearchable, settleAndStop, startWatch } from './watchSession.js';

/** A note saved after the hostile ones must be searchable within this (they may be slow to refuse, never blocking). */
const AFTER_BOUND_MS = 20_000;

type Hostile = [name: string, make: (ctx: Context, rng: Random) => void];

const inbox = (ctx: Context, name: string) => path.join(ctx.vault, 'inbox', name);

/** Notes built to break a parser, a tokenizer, a reader or a path: generated here, never committed. */
const HOSTILE: Hostile[] = [
  ['a 10,000-deep "- " list', (ctx) => writeFileSync(inbox(ctx, 'deep list.md'), `# Deep\n\n${'- '.repeat(10_000)}bottom\n`)],
  // Indentation grows quadratically: 1,000 levels is already 1 MB.
  ['a 1,000-deep indented list', (ctx) => writeFileSync(inbox(ctx, 'deep indent.md'), Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i * 2)}- level ${i}`).join('\n'))],
  [
    'a 1 MB line without punctuation',
    (ctx, rng) => {
      const words = ['river', 'stone', 'cloud', 'lantern', 'meadow', 'copper', 'harbour', 'violet'];
      let line = '';
      while (line.length < 1024 * 1024) line += `${rng.pick(words)} `;
      writeFileSync(inbox(ctx, 'long line.md'), `# Long\n\n${line}\n`);
    },
  ],
  [
    'a binary file named .md',
    (ctx, rng) => writeFileSync(inbox(ctx, 'binary.md'), Buffer.from(Array.from({ length: 64 * 1024 }, () => rng.int(0, 255)))),
  ],
  [
    'a FIFO named .md',
    (ctx) => {
      const made = spawnSync('mkfifo', [inbox(ctx, 'pipe.md')]);
      if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
    },
  ],
  [
    'a file name that is not UTF-8',
    (ctx) => writeFileSync(Buffer.concat([Buffer.from(path.join(ctx.vault, 'inbox', 'latin1 ')), Buffer.from([0xe9, 0xff]), Buffer.from('.md')]), '# Latin-1 name\n\nA note whose file name is not UTF-8.\n'),
  ],
];

/**
 * 6. Hostile notes dropped into a live vault under `cairn watch` (in a random order): the watcher must keep going,
 * a note saved afterwards must be searchable within a bound, the other notes stay searchable, and the saved index
 * must equal a fresh index of the same vault (which must itself finish).
 */
export const hostileNotes: Scenario = {
  name: 'hostile-notes',
  async run(ctx, rng) {
    await ctx.fault('hostile-notes', async (rec) => {
      ctx.resetVault();
      const base = await ctx.reference();
      const dataDir = ctx.copyData(base.dataDir, 'hostile');
      const order = rng.shuffle(HOSTILE);
      rec.fault = `dropped into a watched vault: ${order.map(([name]) => name).join(', ')}`;
      const watch = await startWatch(ctx, rec, dataDir, 'cairn watch');
      if (!watch) return;
      mkdirSync(path.join(ctx.vault, 'inbox'), { recursive: true }); // a corpus given with --vault may have none
      for (const [, make] of order) {
        make(ctx, rng);
        await sleep(rng.between(0, 300));
      }
      await sleep(1000);
      const word = `after${Array.from({ length: 8 }, () => String.fromCharCode(97 + rng.int(0, 25))).join('')}`;
      await expectSearchable(ctx, rec, dataDir, 'inbox/After the hostile notes.md', word, AFTER_BOUND_MS);
      if (!watch.running) ctx.judge(rec, 'cairn watch', watch.result(false));
      else await settleAndStop(ctx, rec, watch, 'cairn watch');
      await ctx.converge(rec, dataDir, { reindex: false });
    });
  },
};
