/**
 * The fault-injection suite of issue 10: kills, corrupted index files, stale locks, symlink loops and hostile notes,
 * each injected into real `cairn` processes on generated vaults, followed by a check that the index converges to what
 * a fresh full index of the same vault gives. Longer than CI: `npm run test:faults -- [--seed N] [--rounds N]
 * [--minutes M] [--vault DIR] [--notes N] [--only a,b] [--keep]`. Exit code 1 on any mismatch, hang or crash.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Context, type Scenario } from './context.js';
import { Random } from './random.js';
import { Report } from './report.js';
import { corruptFiles } from './scenarios/corruptFiles.js';
import { hostileNotes } from './scenarios/hostileNotes.js';
import { killIndex } from './scenarios/killIndex.js';
import { killWatch } from './scenarios/killWatch.js';
import { staleLock } from './scenarios/staleLock.js';
import { symlinkBursts } from './scenarios/symlinkBursts.js';
import { generateVault } from './vaultGen.js';

const SCENARIOS: Scenario[] = [killIndex, killWatch, corruptFiles, staleLock, symlinkBursts, hostileNotes];

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    minutes: { type: 'string', default: '0' },
    vault: { type: 'string' },
    notes: { type: 'string', default: '80' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const seed = values.seed !== undefined ? wholeNumber(values.seed, '--seed') : Math.floor(Math.random() * 1e9);
const rounds = wholeNumber(values.rounds!, '--rounds');
const minutes = Number(values.minutes);
const only = values.only?.split(',').map((s) => s.trim());
const scenarios = only ? SCENARIOS.filter((s) => only.includes(s.name)) : SCENARIOS;
if (only && scenarios.length !== only.length) usage(`--only takes: ${SCENARIOS.map((s) => s.name).join(', ')}`);

const root = mkdtempSync(path.join(os.tmpdir(), 'cairn-faults-'));
const report = new Report();
const ctx = new Context(root, report);
const rng = new Random(seed);
const started = Date.now();
let roundsRun = 0;

process.stdout.write(`cairn fault suite: seed ${seed}, ${rounds} round(s)${minutes ? `, then more until ${minutes} min` : ''}, work folder ${root}\n`);
process.once('SIGINT', () => finish('interrupted'));

ctx.setUp((dir) => (values.vault ? copyCorpus(values.vault, dir) : generateVault(dir, rng.fork('vault'), wholeNumber(values.notes!, '--notes'))));
const base = await ctx.reference().catch((error: Error) => {
  process.stdout.write(`cannot start: ${error.message}\n`);
  return finish('no reference index');
});
ctx.indexTimeoutMs = Math.max(60_000, base.indexMs * 10);
process.stdout.write(`template vault: ${base.probe.notes} notes, ${base.probe.chunks} chunks; a fresh cairn index takes ${(base.indexMs / 1000).toFixed(1)} s\n`);

for (let round = 1; round <= rounds || Date.now() - started < minutes * 60_000; round++) {
  for (const scenario of scenarios) await scenario.run(ctx, rng.fork(`${scenario.name}#${round}`), round);
  roundsRun = round;
}
finish();

function finish(why?: string): never {
  ctx.cleanUp();
  if (why) process.stdout.write(`${why}\n`);
  process.stdout.write(`\n${report.summary().join('\n')}\n`);
  const failed = report.failed || why !== undefined;
  const replay = [`--seed ${seed}`, `--rounds ${Math.max(rounds, roundsRun)}`, values.vault ? `--vault ${values.vault}` : `--notes ${values.notes}`, only ? `--only ${only.join(',')}` : ''];
  if (failed || values.keep) process.stdout.write(`work folder kept: ${root}\nreplay: npm run test:faults -- ${replay.filter(Boolean).join(' ')}\n`);
  else rmSync(root, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
}

/** Copies a corpus (not its .git or node_modules), with mtimes cut to whole seconds so index folder copies stay exact. */
function copyCorpus(from: string, to: string): void {
  cpSync(path.resolve(from), to, { recursive: true, filter: (src) => !/[\\/](\.git|node_modules)$/.test(src) });
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.isFile()) {
        const t = Math.floor(statSync(abs).mtimeMs / 1000);
        utimesSync(abs, t, t);
      }
    }
  };
  walk(to);
}

function wholeNumber(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) usage(`${flag} expects a whole number, got "${value}"`);
  return n;
}

function usage(message: string): never {
  process.stderr.write(`test:faults: ${message}\n`);
  process.exit(2);
}
