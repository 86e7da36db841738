// The scale vault generator on the real corpora: deterministic, links between generated notes (mostly within a
// corpus), distinct texts, the chunk count near the target by Cairn's own chunker, realistic mtimes, reuse.
// Run: node --import tsx --test test/scale-vault-generator.test.ts
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chunkFiles } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { readFamilies, type Family } from '../bench/scale/corpusNotes.js';
import { generateVault, samplesFile, vaultFolder, type GeneratedVault, type VaultSamples } from '../bench/scale/generateVault.js';
import { VaultPlan } from '../bench/scale/noteMaker.js';
import { parseSize, sizeLabel } from '../bench/scale/sizes.js';

const CORPORA = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpora');
const TARGET = 2000;
const DAY = 86_400_000;

describe('scale vault generator', { skip: !existsSync(CORPORA) && `no corpora at ${CORPORA}` }, () => {
  let families: Family[];
  let dir: string;
  let info: GeneratedVault;
  const notes = new Map<string, string>();

  before(async () => {
    families = await readFamilies(CORPORA);
    dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-scale-gen-'));
    info = await generateVault({ corpora: CORPORA, outDir: dir, targetChunks: TARGET, seed: 3, queries: 40 });
    for (const e of await readdir(vaultFolder(dir), { recursive: true, withFileTypes: true })) {
      if (e.isFile()) notes.set(path.relative(vaultFolder(dir), path.join(e.parentPath, e.name)), await readFile(path.join(e.parentPath, e.name), 'utf8'));
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('makes the same notes from the same seed, and others from another', () => {
    const [a, b, c] = [new VaultPlan(families, 7, 500), new VaultPlan(families, 7, 500), new VaultPlan(families, 8, 500)];
    for (let i = 0; i < 30; i++) assert.deepEqual(a.make(i), b.make(i));
    assert.notDeepEqual(Array.from({ length: 30 }, (_, i) => a.make(i).text), Array.from({ length: 30 }, (_, i) => c.make(i).text));
  });

  it('writes every planned note, each text different, links pointing at generated notes mostly of the same corpus', () => {
    assert.equal(notes.size, info.notes);
    assert.equal(new Set(notes.values()).size, notes.size);
    const familyOf = new Map([...notes.keys()].map((p) => [path.basename(p, '.md'), p.split('/')[0]]));
    let links = 0;
    let sameFamily = 0;
    for (const [p, text] of notes) {
      // Code is left as it was (PowerShell syntax has [[-Value] <Object>]).
      const prose = text.replace(/^\s*(```|~~~)[\s\S]*?^\s*\1/gm, '').replace(/`[^`\n]*`/g, '');
      for (const [, target] of prose.matchAll(/\[\[([^\]|]*?)(\|[^\]]*)?\]\]/g)) {
        assert.ok(familyOf.has(target), `${p} links to [[${target}]], which is not a generated note`);
        links++;
        if (familyOf.get(target) === p.split('/')[0]) sameFamily++;
      }
    }
    assert.ok(links >= 2 * notes.size, `${links} links in ${notes.size} notes`);
    assert.ok(sameFamily / links > 0.8, `${sameFamily} of ${links} links within the corpus`);
  });

  it('comes within 15% of the target chunk count with the default chunking', async () => {
    const config = defaultConfig();
    config.index.data_dir = path.join(dir, 'count-data');
    let chunks = 0;
    for await (const file of chunkFiles([vaultFolder(dir)], config)) if ('chunks' in file) chunks += file.chunks.length;
    assert.ok(Math.abs(chunks - TARGET) / TARGET < 0.15, `${chunks} chunks for a target of ${TARGET}`);
  });

  it('spreads modification times: some this week, the rest within two years', async () => {
    const ages = await Promise.all([...notes.keys()].map(async (p) => Date.now() - (await stat(path.join(vaultFolder(dir), p))).mtimeMs));
    const thisWeek = ages.filter((a) => a < 7 * DAY).length / ages.length;
    assert.ok(thisWeek > 0.01 && thisWeek < 0.12, `${(thisWeek * 100).toFixed(1)} % this week`);
    assert.ok(ages.every((a) => a >= 0 && a < 731 * DAY));
    assert.ok(ages.filter((a) => a > 30 * DAY).length / ages.length > 0.7);
  });

  it('samples queries and notes to edit, and reuses a vault made with the same arguments', async () => {
    const samples = JSON.parse(await readFile(samplesFile(dir), 'utf8')) as VaultSamples;
    assert.equal(samples.queries.length, 40);
    assert.ok(samples.editable.every((p) => notes.has(p)));
    const started = performance.now();
    assert.deepEqual(await generateVault({ corpora: CORPORA, outDir: dir, targetChunks: TARGET, seed: 3, queries: 40 }), info);
    assert.ok(performance.now() - started < 1000);
  });

  it('names sizes as the benchmark does', () => {
    assert.deepEqual(['50k', '200k', '1m', '1500'].map(parseSize), [50_000, 200_000, 1_000_000, 1500]);
    assert.deepEqual([50_000, 1_000_000, 1500].map(sizeLabel), ['50k', '1m', '1500']);
    assert.throws(() => parseSize('lots'));
  });
});
