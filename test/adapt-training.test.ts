// Vault adaptation (core/adapt): pairs mined from a vault's own indexed text, and the trainer learning from them,
// deterministically for a seed.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { adaptStaticModel } from '../core/adapt/adaptStaticModel.js';
import { ContrastiveTrainer, pairMrr, shuffle, type EmbeddingTable } from '../core/adapt/contrastiveTrainer.js';
import { SPECIAL_TOKENS } from '../core/adapt/staticModelWriter.js';
import { readStaticTable } from '../core/adapt/staticTable.js';
import { chunkUnits, minePairs, readNoteRecords } from '../core/adapt/vaultPairs.js';
import { seededRandom } from '../core/random/seededRandom.js';
import { generatedVault, indexedNotesFile } from './support/adaptVault.js';

const BASE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'models', 'cairn-glove-100d');

test('a chunk is cut into sentences and list items (query candidates), code and tables (passage only), headings dropped', () => {
  const { units, candidates } = chunkUnits('## Install it\n\nFirst run the tool. Then restart it.\n\n- one item\n- two\n  continued\n\n```sh\n# not a heading\nmake\n```\n\n| a | b |\n|---|---|\n');
  assert.deepEqual(units, ['First run the tool.', 'Then restart it.', 'one item', 'two   continued', '# not a heading\nmake', '| a | b |\n|---|---|']);
  assert.deepEqual(candidates, [true, true, true, true, false, false]);
});

describe('on a generated vault', () => {
  let notesFile: string;
  let fingerprint: string;
  let remove: () => Promise<void>;
  let out: string;
  before(async () => {
    ({ notesFile, fingerprint, remove } = await indexedNotesFile('cairn-adapt-train-', generatedVault(60)));
    out = await mkdtemp(path.join(os.tmpdir(), 'cairn-adapt-out-'));
  });
  after(async () => {
    await remove();
    await rm(out, { recursive: true, force: true });
  });

  test('mining is deterministic for a seed, holds out whole chunks, and keeps only pairs with enough known tokens', async () => {
    const records = await readNoteRecords(notesFile);
    const tokenizer = new Tokenizer(JSON.parse(await readFile(path.join(BASE, 'tokenizer.json'), 'utf8')), {});
    const tokenize = (t: string) => Int32Array.from(tokenizer.encode(t, { add_special_tokens: false }).ids.filter((id: number) => id > 4));
    const a = minePairs(records, tokenize, { seed: 5 });
    const b = minePairs([...records].reverse(), tokenize, { seed: 5 });
    assert.deepEqual(a, b, 'the order the notes are read in changes nothing');
    assert.ok(a.train.length >= 400, `${a.train.length} training pairs`);
    assert.ok(a.heldOut.length > 0 && a.heldOut.length < a.train.length / 4);
    for (const p of [...a.train, ...a.heldOut]) assert.ok(p.q.length >= 2 && p.p.length >= 8);
    const capped = minePairs(records, tokenize, { seed: 5, maxPairs: 100 });
    assert.equal(capped.train.length + capped.heldOut.length, 100);
  });

  test('training on the vault pairs lowers the loss and raises held-out MRR', async () => {
    const records = await readNoteRecords(notesFile);
    const base = await readStaticTable(BASE);
    const tokenizer = new Tokenizer(JSON.parse(await readFile(path.join(BASE, 'tokenizer.json'), 'utf8')), {});
    const tokenize = (t: string) => Int32Array.from(tokenizer.encode(t, { add_special_tokens: false }).ids.filter((id: number) => id > 4));
    const { train, heldOut } = minePairs(records, tokenize, { seed: 5 });
    const table: EmbeddingTable = { rows: base.rows, dims: base.dims, frozen: new Set(SPECIAL_TOKENS.map((t) => base.vocab.indexOf(t))) };
    const trainer = new ContrastiveTrainer(table, { temperature: 0.05, learningRate: 1e-3, anchor: 0 });
    const before = pairMrr(table, heldOut);
    const random = seededRandom(1);
    const batch = () => shuffle([...train], random).slice(0, 128);
    const first = trainer.step(batch());
    let last = first;
    for (let i = 0; i < 40; i++) last = trainer.step(batch());
    assert.ok(last < first * 0.9, `loss ${first.toFixed(3)} -> ${last.toFixed(3)}`);
    assert.ok(pairMrr(table, heldOut) > before, 'held-out pairs are found better');
  });

  test('adaptation is deterministic for a seed: the same table hash twice, another with another seed', async () => {
    const run = (seed: number, dir: string) =>
      adaptStaticModel({ baseModelDir: BASE, baseModelId: 'cairn-glove-100d', baseFingerprint: fingerprint, notesFile, outDir: path.join(out, dir), seed, steps: 30 });
    const a = await run(7, 'a');
    const b = await run(7, 'b');
    const c = await run(8, 'c');
    assert.equal(a.tableHash, b.tableHash);
    assert.notEqual(a.tableHash, c.tableHash);
    assert.deepEqual(a.pairs, b.pairs);
    assert.ok(a.heldOutMrr.after > a.heldOutMrr.before, `held-out MRR ${a.heldOutMrr.before} -> ${a.heldOutMrr.after}`);
    assert.ok(a.peakRssBytes > 0 && a.seconds > 0);
  });
});
