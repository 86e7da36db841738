// Learning a vault's vocabulary as the app does it: the adapted table is recorded in the data folder, taken into use by
// reopening (the index is re-embedded once), searches are answered throughout, an interrupted adaptation changes
// nothing, and turning it off goes back to the shipped table from the embedding cache.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CairnService, CairnVault, type SearchResponse } from '../core/app/index.js';
import type { AppEvent } from '../core/contract/appApi.js';
import { defaultConfig, type CairnConfig } from '../core/config/schema.js';
import { eventually } from './support/eventually.js';
import { generatedVault } from './support/adaptVault.js';

let root: string;
let vaultDir: string;

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'cairn-adaptation-'));
  vaultDir = path.join(root, 'vault');
  for (const [note, text] of Object.entries(generatedVault(60))) {
    await mkdir(path.dirname(path.join(vaultDir, note)), { recursive: true });
    await writeFile(path.join(vaultDir, note), text);
  }
});

after(() => rm(root, { recursive: true, force: true }));

function configFor(dataDir: string, adapt = true): CairnConfig {
  const config = defaultConfig();
  config.vault.path = vaultDir;
  config.index.data_dir = dataDir;
  config.embedding.adapt = adapt;
  return config;
}

/** Table folders left in a vault's data folder (t<ms>), and the adapted tables' embedding caches. */
async function tableLeftovers(vault: CairnVault): Promise<string[]> {
  const adapted = await readdir(path.join(vault.dataDir, 'adapted')).catch(() => [] as string[]);
  const caches = (await readdir(vault.dataDir)).filter((f) => /^embeddings-/.test(f));
  return [...adapted.filter((f) => /^t\d+/.test(f)), ...caches];
}

test('an adapted table is taken into use by one re-embedding, and turning adaptation off returns to the shipped table from the cache', async () => {
  const config = configFor(path.join(root, 'data-cycle'));
  config.search.query_expansion = true;
  const expansionQuery = 'cello and yacht';
  let vault = await CairnVault.open(config);
  try {
    const first = await vault.index();
    const shippedExpansions = (await vault.search({ query: expansionQuery })).expansions;
    assert.ok(shippedExpansions.length > 0, 'the shipped table expands the query');
    assert.equal(vault.status().table.kind, 'shipped');
    assert.match(vault.adaptationDue() ?? '', /not yet adapted/);

    const phases = new Set<string>();
    const outcome = await vault.adapt({ onProgress: (p) => phases.add(p.phase) });
    assert.ok(outcome.adapted, `adapted: ${JSON.stringify(outcome)}`);
    assert.ok(phases.has('training'), `progress phases: ${[...phases]}`);
    assert.ok(outcome.state.heldOutMrr!.after > outcome.state.heldOutMrr!.before, `held-out MRR ${JSON.stringify(outcome.state.heldOutMrr)}`);
    assert.equal(vault.adaptationDue(), undefined, 'just adapted: not due again');
    assert.ok(vault.tableOutdated, 'the open vault still uses the shipped table');
    await vault.close();

    vault = await CairnVault.open(config);
    assert.match(vault.status().pendingRebuild ?? '', /adapted to this vault/);
    const adapted = await vault.index();
    assert.equal(adapted.embedded, first.chunks, 'every chunk embedded once with the new table');
    const table = vault.status().table;
    assert.equal(table.kind, 'adapted');
    assert.equal(table.kind === 'adapted' && table.hash, outcome.state.tableHash);
    // Expansion keeps the shipped table's neighbours: the adapted table pulls a vault's topical words together.
    assert.deepEqual((await vault.search({ query: expansionQuery })).expansions, shippedExpansions);
    const hits = await vault.search({ query: 'guitar chord melody', mode: 'vector', k: 3 });
    assert.ok(hits.results.length > 0 && hits.results.every((r) => r.path.startsWith('music/')), hits.results.map((r) => r.path).join(', '));
    await vault.close();

    vault = await CairnVault.open(configFor(config.index.data_dir, false));
    assert.match(vault.status().pendingRebuild ?? '', /back to the shipped embedding table/);
    const shipped = await vault.index();
    assert.equal(shipped.embedded, 0, 'the shipped table\'s vectors come from its cache');
    assert.equal(vault.status().table.kind, 'shipped');
    await vault.close();

    // On again: the table adapted before is still recorded, so nothing is trained or embedded.
    vault = await CairnVault.open(config);
    const again = await vault.index();
    assert.equal(again.embedded, 0);
    assert.equal(vault.status().table.kind, 'adapted');
    assert.equal(vault.adaptationDue(), undefined);

    // Due again once adapt_after_changed of the chunks are new or changed, not before.
    const notes = Object.keys(generatedVault(60)).sort();
    const rewrite = async (count: number, round: number) => {
      for (const note of notes.slice(0, count)) await writeFile(path.join(vaultDir, note), `# Rewritten ${round} ${note}\n\n${'The harbour crew mends the sail before the storm. '.repeat(8)}\n`);
      await vault.update(notes.slice(0, count));
    };
    await rewrite(5, 1);
    assert.equal(vault.adaptationDue(), undefined, '5 of 60 notes changed');
    await rewrite(40, 2);
    assert.match(vault.adaptationDue() ?? '', /\d+% of the chunks are new or changed/);
    // The other tests share the vault: put the notes back.
    for (const [note, text] of Object.entries(generatedVault(60))) await writeFile(path.join(vaultDir, note), text);
  } finally {
    await vault.close();
  }
});

test('an adaptation killed part-way leaves the table in force and nothing of its own behind', async () => {
  const config = configFor(path.join(root, 'data-abort'));
  const vault = await CairnVault.open(config);
  try {
    await vault.index();
    const controller = new AbortController();
    await assert.rejects(
      vault.adapt({ signal: controller.signal, onProgress: (p) => p.phase === 'training' && controller.abort() }),
      (error: Error) => error.name === 'AbortError' || /abort|kill|exit/i.test(error.message),
    );
    assert.deepEqual(await tableLeftovers(vault), []);
    assert.equal(vault.tableOutdated, false);
    assert.match(vault.adaptationDue() ?? '', /not yet adapted/);
  } finally {
    await vault.close();
  }
  const reopened = await CairnVault.open(config);
  try {
    assert.equal(reopened.status().pendingRebuild, undefined, 'the saved index still matches');
    assert.equal(reopened.status().table.kind, 'shipped');
  } finally {
    await reopened.close();
  }
});

test('the app learns the vocabulary in the background after the first index, answering searches throughout', async () => {
  const events: AppEvent[] = [];
  const service = await CairnService.start({ vault: vaultDir, dataDir: path.join(root, 'data-service'), watch: false, listener: (e) => events.push(e) });
  try {
    await eventually(() => events.some((e) => e.type === 'adapt-progress'), 'adaptation to start');
    const answered: SearchResponse[] = [];
    while (!events.some((e) => e.type === 'adapt-finished')) {
      answered.push(await service.search({ query: 'tomato compost', k: 3 }));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(answered.length > 0 && answered.every((r) => r.results.length > 0), `${answered.length} searches during adaptation`);
    await eventually(async () => (await service.getState()).status?.table.kind === 'adapted', 'the adapted table to be in use', 60_000);
    const state = await service.getState();
    assert.equal(state.adapting, null);
    assert.equal(state.status?.pendingRebuild, undefined);
    const results = (await service.search({ query: 'tomato compost', k: 3 })).results;
    assert.ok(results.some((r) => r.path.startsWith('garden/')));
  } finally {
    await service.close();
  }
});

test('closing the app during adaptation stops it without leaving a table behind', async () => {
  let service: CairnService | undefined;
  let closing: Promise<void> | undefined;
  service = await CairnService.start({
    vault: vaultDir,
    dataDir: path.join(root, 'data-close'),
    watch: false,
    listener: (e) => {
      if (e.type === 'adapt-progress' && e.phase === 'training' && service && !closing) closing = service.close();
    },
  });
  await eventually(() => closing !== undefined, 'adaptation to start training');
  await closing;
  const dataDir = (await readdir(path.join(root, 'data-close', 'vaults'))).map((d) => path.join(root, 'data-close', 'vaults', d))[0];
  const adapted = await readdir(path.join(dataDir, 'adapted')).catch(() => [] as string[]);
  assert.deepEqual(adapted.filter((f) => /^t\d+/.test(f)), []);
});
