/**
 * Writes the general (query, passage) pairs that vault adaptation can mix into a vault's own pairs so the table
 * does not forget general English while it learns the vault's vocabulary (issue 12):
 *
 *   node --import tsx scripts/models/build-adapt-general-pairs.ts [--out FILE] [--wordnet N] [--tldr N] [--seed 12]
 *     [--training-dir ../shared/training] [--wordnet-dir /usr/share/wordnet]
 *
 * A seeded sample of WordNet pairs (synonyms -> definition, example -> definition) and tldr-pages pairs (what a
 * command does -> the command), one JSON { q, p } a line, gzipped. Deterministic for the same options and inputs.
 * Needs Debian's wordnet-base. Never reads ../shared/corpora or ../shared/eval.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { shuffle } from '../../core/adapt/contrastiveTrainer.js';
import { seededRandom } from '../../core/random/seededRandom.js';
import { tldrPairs, wordnetPairs, type TrainingPair } from './training-pairs.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const out = path.resolve(flag('--out', path.join(REPO_ROOT, 'models', 'cairn-glove-100d', 'adapt-general-pairs.jsonl.gz')));
const trainingDir = path.resolve(flag('--training-dir', path.join(REPO_ROOT, '..', 'shared', 'training')));
if (/[\\/]shared[\\/](corpora|eval)([\\/]|$)/.test(trainingDir)) throw new Error(`--training-dir ${trainingDir}: never train on evaluation corpora`);
const random = seededRandom(Number(flag('--seed', '12')));
const sample = (pairs: TrainingPair[], n: number) => shuffle(pairs, random).slice(0, n);

const wordnet = await wordnetPairs(flag('--wordnet-dir', '/usr/share/wordnet'));
const tldr = await tldrPairs(path.join(trainingDir, 'tldr-pages', 'pages'));
const picked = [...sample(wordnet, Number(flag('--wordnet', '16000'))), ...sample(tldr, Number(flag('--tldr', '8000')))];
const text = picked.map((p) => JSON.stringify({ q: p.query, p: p.passage })).join('\n') + '\n';
const gz = gzipSync(text, { level: 9 });
await writeFile(out, gz);
console.log(`${picked.length} pairs (WordNet ${wordnet.length} found, tldr ${tldr.length} found) -> ${out}: ${(gz.length / 1e6).toFixed(2)} MB`);
