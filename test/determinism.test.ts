/**
 * The same index gives the same results: whatever order notes were indexed in (a fresh build, an incremental one
 * through updates, the same index loaded from disk), and whether or not this is the process's first search (the
 * query-expansion vocabulary used to be built in the background after the first search). Real index parts
 * throughout: tree-sitter chunking, faiss vectors, the keyword index, the bundled word-vector model.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { answerQuestion } from '../core/answer/index.js';
import { CairnVault, type SearchMode } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';

/** The same section in six notes: identical chunk texts, so keyword and vector scores tie exactly. */
const SHARED = '## Watering\n\nThe fern needs water twice a week in summer and once a week in winter.\n';
const DUPLICATES = ['Ferns/a.md', 'Ferns/b.md', 'Ferns/c.md', 'Ferns/d.md', 'Ferns/e.md', 'Ferns/f.md'];

/** The vault both builds end with. */
const FINAL: Record<string, string> = {
  ...Object.fromEntries(DUPLICATES.map((p) => [p, SHARED])),
  'Garage.md': '# Garage\n\nThe car needs new tyres before winter; the brakes are worn and the engine oil is dirty. See [[Ferns/c]].\n',
  'Kitchen.md': '# Kitchen\n\nBake the bread at a high temperature for forty minutes, then let it rest.\n\n## Watering\n\nWater the basil on the window sill every morning.\n',
  'Travel.md': '# Travel\n\nThe train to the mountains leaves at dawn; book a window seat to see the valleys.\n',
};

// "winters" is only in a note the incremental build removes: both builds must treat it as a typo of "winter".
const QUERIES = ['fern water summer', 'watering', 'water twice a week', 'automobile tyres', 'window', 'brakes engine oil', 'winters'];
const MODES: SearchMode[] = ['hybrid', 'keyword', 'vector'];
const QUESTIONS = ['How often does the fern need water?', 'What does the automobile need before winter?'];

async function writeNote(vault: string, relPath: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(vault, relPath)), { recursive: true });
  await writeFile(path.join(vault, relPath), text);
}

async function openVault(vault: string, dataDir: string): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  // Off by default; on here, so that its vocabulary (the part that depends on build order) is checked too.
  config.search.query_expansion = true;
  return CairnVault.open(config);
}

/** Every query in every mode at two depths (ties cut at k), and every question's extractive answer. */
async function outcomes(vault: CairnVault) {
  const searches: Record<string, unknown> = {};
  for (const query of QUERIES) {
    for (const mode of MODES) {
      for (const k of [3, 10]) {
        const response = await vault.search({ query, mode, k });
        searches[`${mode} k=${k} ${query}`] = {
          expansions: response.expansions,
          results: response.results.map((r) => ({ id: r.chunkId, score: r.score, keywordRank: r.explain.keywordRank, vectorRank: r.explain.vectorRank, sameText: r.sameText?.map((c) => c.chunkId) })),
        };
      }
    }
  }
  const answers: Record<string, unknown> = {};
  for (const question of QUESTIONS) {
    const { answer, confident, citations } = await answerQuestion(vault, question, { mode: 'extractive' });
    answers[question] = { answer, confident, citations: citations.map((c) => `${c.chunkId}:${c.startLine}-${c.endLine}`) };
  }
  return { searches, answers };
}

describe('the same index gives the same results', { timeout: 180_000 }, () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-determinism-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('a fresh build, an incremental build and the index loaded from disk rank exact ties alike', async () => {
    // Fresh: the final vault indexed in one go.
    const freshDir = path.join(root, 'fresh');
    for (const [p, text] of Object.entries(FINAL)) await writeNote(freshDir, p, text);
    const fresh = await openVault(freshDir, path.join(root, 'fresh-data'));
    let expected;
    try {
      await fresh.index();
      expected = await outcomes(fresh);
    } finally {
      await fresh.close();
    }
    // The ties are real: the six identical copies tie in both rankings, and are one result naming the other five.
    for (const mode of MODES) {
      const { results } = expected.searches[`${mode} k=3 fern water summer`] as { results: Array<{ id: string; sameText?: string[] }> };
      const copies = results.filter((r) => r.id.startsWith('Ferns/'));
      assert.equal(copies.length, 1, `${mode}: the copies are one result`);
      assert.equal(copies[0]!.sameText?.length, 5, `${mode}: naming the other five`);
    }

    // Incremental: a different vault first, then the final notes through updates, the last copies first.
    const liveDir = path.join(root, 'live');
    const liveData = path.join(root, 'live-data');
    for (const p of DUPLICATES.slice(3)) await writeNote(liveDir, p, SHARED);
    await writeNote(liveDir, 'Ferns/b.md', '## Watering\n\nOnly in spring.\n');
    await writeNote(liveDir, 'Old.md', '# Old\n\nThe fern needs water twice a week in summer, said the old note about watering in winters.\n');
    await writeNote(liveDir, 'Travel.md', FINAL['Travel.md']);
    const live = await openVault(liveDir, liveData);
    try {
      await live.index();
      await live.search({ query: 'fern', k: 3 });
      for (const p of [...DUPLICATES.slice(0, 3)].reverse()) {
        await writeNote(liveDir, p, FINAL[p]);
        await live.update([p]);
      }
      for (const p of ['Kitchen.md', 'Garage.md']) {
        await writeNote(liveDir, p, FINAL[p]);
        await live.update([p]);
      }
      await unlink(path.join(liveDir, 'Old.md'));
      await live.update(['Old.md']);
      // Changed and changed back: its chunk is removed and added again, at the end of the vector rows.
      await writeNote(liveDir, 'Ferns/e.md', '## Watering\n\nNever.\n');
      await live.update(['Ferns/e.md']);
      await writeNote(liveDir, 'Ferns/e.md', SHARED);
      await live.update(['Ferns/e.md']);
      assert.deepEqual(await outcomes(live), expected, 'incremental build, live');
      await live.persist();
    } finally {
      await live.close();
    }

    const reopened = await openVault(liveDir, liveData);
    try {
      assert.deepEqual(await outcomes(reopened), expected, 'incremental build, loaded from disk');
    } finally {
      await reopened.close();
    }
  });

  it("a process's first search and answer are the same as its later ones", async () => {
    const dir = path.join(root, 'first');
    const dataDir = path.join(root, 'first-data');
    for (const [p, text] of Object.entries(FINAL)) await writeNote(dir, p, text);
    const indexing = await openVault(dir, dataDir);
    await indexing.index().finally(() => indexing.close());

    // A fresh process's view: the persisted index, nothing searched yet.
    const vault = await openVault(dir, dataDir);
    try {
      const first = await vault.search({ query: 'automobile tires', k: 5 });
      const firstAnswer = await answerQuestion(vault, QUESTIONS[1], { mode: 'extractive' });
      await vault.settled();
      const again = await vault.search({ query: 'automobile tires', k: 5 });
      const againAnswer = await answerQuestion(vault, QUESTIONS[1], { mode: 'extractive' });
      assert.ok(again.expansions.some((e) => e.term === 'tyres'), 'the query is expanded with the vault word "tyres"');
      assert.deepEqual(first.expansions, again.expansions);
      assert.deepEqual(first.results, again.results);
      assert.deepEqual(firstAnswer, againAnswer);
    } finally {
      await vault.close();
    }
  });

  it('the expansion vocabulary follows a live change before the next search', async () => {
    const dir = path.join(root, 'vocabulary');
    for (const [p, text] of Object.entries(FINAL)) if (p !== 'Garage.md') await writeNote(dir, p, text);
    const vault = await openVault(dir, path.join(root, 'vocabulary-data'));
    try {
      await vault.index();
      assert.ok(!(await vault.search({ query: 'tires', mode: 'keyword' })).expansions.some((e) => e.term === 'tyres'), 'no "tyres" in the vault yet');
      await writeNote(dir, 'Garage.md', FINAL['Garage.md']);
      await vault.update(['Garage.md']);
      const response = await vault.search({ query: 'tires', mode: 'keyword' });
      assert.ok(response.expansions.some((e) => e.term === 'tyres'), 'the new word is in the vocabulary at once');
      assert.deepEqual(response.results.map((r) => r.path), ['Garage.md']);
      await unlink(path.join(dir, 'Garage.md'));
      await vault.update(['Garage.md']);
      assert.ok(!(await vault.search({ query: 'tires', mode: 'keyword' })).expansions.some((e) => e.term === 'tyres'), 'a word gone from the vault is gone from the vocabulary');
    } finally {
      await vault.close();
    }
  });
});
