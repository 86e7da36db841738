import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CairnService, CairnVault } from '../core/app/index.js';
import type { AppEvent } from '../core/contract/appApi.js';
import { defaultConfig } from '../core/config/schema.js';
import { isInside, realPathOf } from '../core/config/pathContainment.js';
import { eventually } from './support/eventually.js';

const CAIRN = new URL('../bin/cairn', import.meta.url).pathname;

function open(vault: string, dataDir: string): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  return CairnVault.open(config);
}

describe('the data folder is never inside the vault', { timeout: 120_000 }, () => {
  let root: string;
  let vault: string;
  let vaultListing: string[];

  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-datafolder-'));
    vault = path.join(root, 'vault');
    await mkdir(vault);
    await writeFile(path.join(vault, 'note.md'), '# Note\n\nSome text about stones.\n');
    vaultListing = await readdir(vault);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('the real path of a folder that does not exist yet goes through the symlinks of its existing ancestors', async () => {
    await symlink(vault, path.join(root, 'vault-link'));
    assert.equal(await realPathOf(path.join(root, 'vault-link', 'not', 'yet')), path.join(await realPathOf(vault), 'not', 'yet'));
    // A dangling symlink is followed too: mkdir through it would create its target.
    await symlink(path.join(vault, 'later'), path.join(root, 'dangling'));
    assert.equal(await realPathOf(path.join(root, 'dangling', 'x')), path.join(await realPathOf(vault), 'later', 'x'));
  });

  it('a data folder reached through a symlink into the vault is rejected at open, and nothing is written', async () => {
    const link = path.join(root, 'innocent-looking');
    await symlink(vault, link);
    await assert.rejects(open(vault, path.join(link, 'cairn-data')), /data folder .*innocent-looking.*cairn-data.* is inside the vault/);
    await assert.rejects(open(vault, link), /is inside the vault/);
    assert.deepEqual(await readdir(vault), vaultListing, 'something was written into the vault');
  });

  it('a vault opened through a symlink still sees a data folder inside its real folder', async () => {
    const vaultLink = path.join(root, 'vault-alias');
    await symlink(vault, vaultLink);
    await assert.rejects(open(vaultLink, path.join(vault, '.cairn')), /is inside the vault/);
    assert.deepEqual(await readdir(vault), vaultListing);
  });

  it('a folder whose name starts with two dots is still inside', async () => {
    assert.equal(isInside(path.join(vault, '..cairn'), vault), true);
    assert.equal(isInside(path.join(root, 'vault2'), vault), false);
    assert.equal(isInside(root, vault), false);
    await assert.rejects(open(vault, path.join(vault, '..cairn')), /is inside the vault/);
    assert.deepEqual(await readdir(vault), vaultListing);
  });

  it('a vault inside the data folder is rejected too (Cairn owns what is in its data folder)', async () => {
    await assert.rejects(open(vault, root), /the vault .* is inside the data folder/);
  });

  it('a data folder beside the vault opens', async () => {
    const opened = await open(vault, path.join(root, 'data'));
    await opened.close();
    assert.deepEqual(await readdir(vault), vaultListing);
  });

  it('the CLI --data-dir flag through a symlink into the vault fails with a clear message', async () => {
    const link = path.join(root, 'cli-link');
    await symlink(vault, link);
    const run = promisify(execFile)(process.execPath, [CAIRN, 'status', '--vault', vault, '--data-dir', path.join(link, 'idx')]);
    await assert.rejects(run, (error: { code?: number; stderr?: string }) => error.code === 1 && /data folder .*cli-link.* is inside the vault/.test(error.stderr ?? ''));
    assert.ok(!existsSync(path.join(vault, 'idx')));
  });
});

describe('settings that would put the data folder inside the vault are rejected before writing', { timeout: 120_000 }, () => {
  let root: string;
  let vault: string;
  let configFile: string;
  let service: CairnService;
  const events: AppEvent[] = [];

  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-datafolder-save-'));
    vault = path.join(root, 'vault');
    await mkdir(vault);
    await writeFile(path.join(vault, 'note.md'), '# Note\n\nSome text about stones.\n');
    configFile = path.join(root, 'config.toml');
    await writeFile(configFile, '# mine\n[vault]\npath = "vault"\n\n[index]\ndata_dir = "data"  # beside the vault\n');
    service = await CairnService.start({ configFile, listener: (e) => events.push(e) });
  });
  after(async () => {
    await service?.close();
    await rm(root, { recursive: true, force: true });
  });

  async function assertRejected(values: Record<string, unknown>, key: string, pattern: RegExp): Promise<void> {
    const before = await readFile(configFile);
    const result = await service.saveConfigValues(values);
    assert.equal(result.ok, false, `${JSON.stringify(values)} was accepted`);
    assert.ok(!result.ok);
    assert.equal(result.problem.key, key);
    assert.equal(result.problem.file, configFile);
    assert.ok(result.problem.line, 'the problem names its line');
    assert.match(result.problem.message, pattern);
    assert.ok((await readFile(configFile)).equals(before), 'config.toml changed');
  }

  it('index.data_dir inside the vault', async () => {
    await assertRejected({ 'index.data_dir': path.join(vault, '.cairn') }, 'index.data_dir', /is inside the vault/);
    await assertRejected({ 'index.data_dir': 'vault/.cairn' }, 'index.data_dir', /is inside the vault/);
  });

  it('index.data_dir through a symlink into the vault', async () => {
    await symlink(vault, path.join(root, 'alias'));
    await assertRejected({ 'index.data_dir': 'alias/idx' }, 'index.data_dir', /alias.* is inside the vault/);
  });

  it('vault.path that contains the data folder', async () => {
    await assertRejected({ 'vault.path': root }, 'vault.path', /is inside the vault/);
  });

  it('the same text saved from the config editor', async () => {
    const before = await readFile(configFile, 'utf8');
    const result = await service.saveConfigText(before.replace('data_dir = "data"', 'data_dir = "vault/x"'));
    assert.ok(!result.ok && result.problem.key === 'index.data_dir' && result.problem.line === 6);
    assert.equal(await readFile(configFile, 'utf8'), before);
  });

  it('number values that pass no validation are not written', async () => {
    const before = await readFile(configFile, 'utf8');
    for (const [key, value] of [['search.keyword_weight', Number.NaN], ['answer.min_confidence', Number.NaN], ['llm.timeout_seconds', Infinity], ['index.reconcile_interval_seconds', 2592000]] as const) {
      const result = await service.saveConfigValues({ [key]: value });
      assert.ok(!result.ok && result.problem.key === key, `${key} = ${value} was accepted`);
      assert.equal(await readFile(configFile, 'utf8'), before);
    }
  });

  it('a hand edit that moves the data folder into the vault is reported, and the open vault keeps answering', async () => {
    await writeFile(configFile, '[vault]\npath = "vault"\n\n[index]\ndata_dir = "vault/.idx"\n');
    await eventually(() => events.some((e) => e.type === 'config-rejected'), 'the rejection');
    const rejected = events.find((e) => e.type === 'config-rejected');
    assert.ok(rejected?.type === 'config-rejected');
    assert.equal(rejected.problem.key, 'index.data_dir');
    assert.equal(rejected.problem.line, 5);
    assert.match(rejected.problem.message, /is inside the vault/);
    assert.ok((await service.search({ query: 'stones', mode: 'keyword' })).results.length > 0);
    assert.ok(!existsSync(path.join(vault, '.idx')));
  });
});
