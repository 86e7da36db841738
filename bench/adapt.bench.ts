/**
 * Adapts the bundled static model to a vault and prints what it cost and what it gained on the held-out pairs:
 *
 *   node --import tsx bench/adapt.bench.ts <vault> [--steps N] [--seed N] [--out DIR] [--lr X] [--anchor X]
 *     [--general-share X] [--general FILE | --no-general] [--batch N] [--temperature X] [--patience N]
 *
 * Indexes the vault with the real CairnVault into a temporary data folder, runs adaptStaticModel on its notes.jsonl,
 * and prints pairs, seconds, the child's peak memory and held-out pair MRR@10 before/after. `--out DIR` keeps the
 * adapted model folder (to evaluate it with `cairn eval`); otherwise it is removed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { adaptStaticModel, type AdaptOptions } from '../core/adapt/adaptStaticModel.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const vaultDir = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!vaultDir) throw new Error('usage: adapt.bench.ts <vault> [--steps N] [--seed N] [--out DIR] [--lr X] [--anchor X] [--general-share X] [--general FILE]');
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const num = (name: string) => (flag(name) === undefined ? undefined : Number(flag(name)));

const root = await mkdtemp(path.join(os.tmpdir(), 'cairn-adapt-bench-'));
try {
  const config = defaultConfig();
  config.vault.path = path.resolve(vaultDir);
  config.index.data_dir = path.join(root, 'data');
  // The shipped table's index: this bench runs the adaptation itself.
  config.embedding.adapt = false;
  let t0 = performance.now();
  const vault = await CairnVault.open(config);
  const summary = await vault.index();
  await vault.persist();
  const dataDir = vault.dataDir;
  await vault.close();
  const indexSeconds = (performance.now() - t0) / 1000;
  const manifest = JSON.parse(await readFile(path.join(dataDir, 'manifest.json'), 'utf8')) as { generation: number; embedding: { fingerprint: string } };
  const notesFile = path.join(dataDir, `g${String(manifest.generation).padStart(6, '0')}`, 'notes.jsonl');

  const tuning: NonNullable<AdaptOptions['tuning']> = {};
  if (num('--lr') !== undefined) tuning.learningRate = num('--lr');
  if (num('--anchor') !== undefined) tuning.anchor = num('--anchor');
  if (num('--batch') !== undefined) tuning.batchSize = num('--batch');
  if (num('--temperature') !== undefined) tuning.temperature = num('--temperature');
  if (num('--general-share') !== undefined) tuning.generalShare = num('--general-share');
  if (num('--patience') !== undefined) tuning.patience = num('--patience');
  if (flag('--general')) tuning.generalPairsFile = path.resolve(flag('--general')!);
  if (args.includes('--no-general')) tuning.generalPairsFile = null;
  const outDir = flag('--out') ? path.resolve(flag('--out')!) : path.join(root, 'adapted');
  const phases: Record<string, number> = {};
  t0 = performance.now();
  const result = await adaptStaticModel({
    baseModelDir: path.join(REPO, 'models', 'cairn-glove-100d'),
    baseModelId: 'cairn-glove-100d',
    baseFingerprint: manifest.embedding.fingerprint,
    notesFile,
    outDir,
    seed: num('--seed'),
    steps: num('--steps'),
    tuning,
    onProgress: (p) => (phases[p.phase] ??= (performance.now() - t0) / 1000),
  });
  console.log(JSON.stringify({
    vault: vaultDir,
    notes: summary.notes ?? undefined,
    indexSeconds: Number(indexSeconds.toFixed(1)),
    pairs: result.pairs,
    steps: result.steps,
    seconds: Number(result.seconds.toFixed(1)),
    phaseStarts: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, Number(v.toFixed(1))])),
    peakRssMB: Math.round(result.peakRssBytes / 2 ** 20),
    heldOutMrr: result.heldOutMrr,
    tableHash: result.tableHash,
    tuning,
    outDir: flag('--out') ? outDir : undefined,
  }, null, 1));
} finally {
  await rm(root, { recursive: true, force: true });
}
