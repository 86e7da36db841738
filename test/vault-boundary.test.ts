// Issue 10: nothing outside the vault is read unless asked for, symlink loops never spin the watcher, and odd
// files (FIFOs, non-UTF-8 names, names with tabs or newlines) are reported or served, never hang or vanish.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isInside } from '../core/config/pathContainment.js';
import { VaultWatcher, type VaultChangeBatch } from '../core/live/vaultWatcher.js';
import { startHttpServer } from '../core/server/httpServer.js';
import { CairnService } from '../core/app/index.js';
import { NoteReadError, readNoteFile } from '../core/vault/readNoteFile.js';
import { scanVault, type VaultScanOptions } from '../core/vault/scanVault.js';
import { OutsideVaultError, resolveInVault } from '../core/vault/vaultPaths.js';
import { eventually } from './support/eventually.js';

const OPTIONS: VaultScanOptions = { include: ['**/*'], exclude: ['.obsidian/**', '.git/**'], extensions: ['.md'] };
const OUTSIDE = /links outside the vault to .*: not followed; set \[vault\] follow_outside_links = true to index it/;

/** A vault `v` next to a folder `out` it must not reach: a file link and a folder link point into `out`. */
async function vaultWithOutsideLinks(): Promise<{ base: string; vault: string; outside: string }> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-boundary-')));
  const vault = path.join(base, 'v');
  const outside = path.join(base, 'out');
  await fs.mkdir(path.join(vault, 'sub'), { recursive: true });
  await fs.mkdir(path.join(outside, 'dir'), { recursive: true });
  await fs.writeFile(path.join(vault, 'note.md'), '# Note\n\nAn ordinary note about otters.\n');
  await fs.writeFile(path.join(vault, 'sub', 'inner.md'), '# Inner\n\nInside the vault: badgers.\n');
  await fs.writeFile(path.join(outside, 'secret.md'), '# Secret\n\nzebrafinch password\n');
  await fs.writeFile(path.join(outside, 'dir', 'cache.md'), '# Cache\n\nzebrafinch tool cache\n');
  await fs.symlink(path.join(outside, 'secret.md'), path.join(vault, 'passwd.md'));
  await fs.symlink(path.join(outside, 'dir'), path.join(vault, 'root_link'));
  // A link inside the vault keeps working.
  await fs.symlink(path.join(vault, 'sub', 'inner.md'), path.join(vault, 'alias.md'));
  return { base, vault, outside };
}

function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('vault boundary: scan', () => {
  let base: string;
  let vault: string;
  before(async () => ({ base, vault } = await vaultWithOutsideLinks()));
  after(() => fs.rm(base, { recursive: true, force: true }));

  test('links out of the vault are not followed by default, and each is reported with its target', async () => {
    const scan = await scanVault(vault, OPTIONS);
    assert.deepEqual(scan.files.map((f) => f.path), ['alias.md', 'note.md', 'sub/inner.md']);
    const reasons = new Map(scan.warnings.map((w) => [w.path, w.reason]));
    assert.match(reasons.get('passwd.md') ?? '', OUTSIDE);
    assert.ok(reasons.get('passwd.md')!.includes(path.join(base, 'out', 'secret.md')));
    assert.match(reasons.get('root_link') ?? '', OUTSIDE);
  });

  test('follow_outside_links = true follows them', async () => {
    const scan = await scanVault(vault, { ...OPTIONS, follow_outside_links: true });
    assert.deepEqual(scan.files.map((f) => f.path), ['alias.md', 'note.md', 'passwd.md', 'root_link/cache.md', 'sub/inner.md']);
    assert.deepEqual(scan.warnings, []);
  });

  test('FIFOs are reported, never opened (opening one would block forever)', async () => {
    const dir = path.join(base, 'fifo-vault');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'a.md'), 'a');
    mkfifo(path.join(dir, 'pipe.md'));
    const scan = await withTimeout(scanVault(dir, OPTIONS), 5000, 'scan of a vault with a FIFO');
    assert.deepEqual(scan.files.map((f) => f.path), ['a.md']);
    assert.deepEqual(scan.warnings, [{ path: 'pipe.md', reason: 'not a regular file (FIFO): skipped' }]);
    const entry = { path: 'pipe.md', absPath: path.join(dir, 'pipe.md'), size: 0, mtimeMs: 0 };
    await withTimeout(
      assert.rejects(readNoteFile(entry), (e: unknown) => e instanceof NoteReadError && /not a regular file/.test(e.message)),
      5000,
      'reading a FIFO',
    );
  });

  test('a file name that is not valid UTF-8 is reported as such, not as missing', async () => {
    const dir = path.join(base, 'bytes-vault');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'ok.md'), 'ok');
    await fs.writeFile(Buffer.concat([Buffer.from(dir), Buffer.from([0x2f, 0xff, 0xfe, 0x2e, 0x6d, 0x64])]), 'bytes');
    const scan = await scanVault(dir, OPTIONS);
    assert.deepEqual(scan.files.map((f) => f.path), ['ok.md']);
    assert.equal(scan.warnings.length, 1);
    assert.equal(scan.warnings[0]!.reason, 'file name is not valid UTF-8: rename it');
  });
});

describe('vault boundary: paths', () => {
  test('isInside does not mistake a name starting with ".." for the parent', () => {
    assert.equal(isInside('/v/..notes.md', '/v'), true);
    assert.equal(isInside('/v/../x.md', '/v'), false);
    assert.equal(isInside('/vault2/x.md', '/vault'), false);
  });

  test('resolveInVault returns the real path inside, refuses links out unless allowed', async () => {
    const { base, vault, outside } = await vaultWithOutsideLinks();
    try {
      assert.equal(await resolveInVault(vault, 'alias.md', { followOutside: false }), path.join(vault, 'sub', 'inner.md'));
      await assert.rejects(resolveInVault(vault, 'passwd.md', { followOutside: false }), (e: unknown) => e instanceof OutsideVaultError && OUTSIDE.test(e.message) && e.message.startsWith('passwd.md'));
      await assert.rejects(resolveInVault(vault, 'root_link/cache.md', { followOutside: false }), OutsideVaultError);
      assert.equal(await resolveInVault(vault, 'passwd.md', { followOutside: true }), path.join(outside, 'secret.md'));
      await assert.rejects(resolveInVault(vault, '../out/secret.md', { followOutside: true }), /not a path inside the vault/);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});

describe('vault boundary: service and HTTP', { timeout: 120_000 }, () => {
  let base: string;
  let vault: string;
  let outside: string;
  let service: CairnService;
  const odd = ['Tab\tname.md', 'New\nline.md'];

  before(async () => {
    ({ base, vault, outside } = await vaultWithOutsideLinks());
    for (const name of odd) await fs.writeFile(path.join(vault, name), `# Odd\n\nA note named ${JSON.stringify(name)}: pelicans.\n`);
    mkfifo(path.join(vault, 'pipe.md'));
    service = await withTimeout(CairnService.start({ vault, dataDir: path.join(base, 'data'), watch: false }), 60_000, 'opening a vault with a FIFO');
  });
  after(async () => {
    await service?.close();
    await fs.rm(base, { recursive: true, force: true });
  });

  test('nothing outside is indexed, found or served; the links are listed as failed with the reason', async () => {
    assert.deepEqual((await service.search({ query: 'zebrafinch', mode: 'keyword' })).results, []);
    await assert.rejects(service.getNote('passwd.md'), /not an indexed note/);
    const failed = new Map((await service.getState()).failedFiles.map((f) => [f.path, f.reason ?? '']));
    assert.match(failed.get('passwd.md') ?? '', OUTSIDE);
    assert.match(failed.get('root_link') ?? '', OUTSIDE);
    assert.equal(failed.get('pipe.md'), 'not a regular file (FIFO): skipped');
    assert.match((await service.getNote('alias.md')).text, /badgers/);
  });

  test('a note that became a link out of the vault after indexing is refused, then dropped on update', async () => {
    const victim = path.join(vault, 'note.md');
    assert.match((await service.getNote('note.md')).text, /otters/);
    await fs.rm(victim);
    await fs.symlink(path.join(outside, 'secret.md'), victim);
    await assert.rejects(service.getNote('note.md'), OUTSIDE);
    await service.currentVault!.update(['note.md']);
    assert.equal(service.currentVault!.noteInfo('note.md'), undefined);
    assert.match(service.currentVault!.status().failed.find((f) => f.path === 'note.md')?.reason ?? '', OUTSIDE);
    assert.deepEqual((await service.search({ query: 'zebrafinch', mode: 'keyword' })).results, []);
  });

  test('notes whose names hold tabs or newlines open over HTTP', async () => {
    const staticDir = await fs.mkdtemp(path.join(base, 'static-'));
    const server = await startHttpServer({ api: service, staticDir });
    try {
      for (const name of odd) {
        const reply = await fetch(`http://127.0.0.1:${server.port}/api/getNote`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-cairn-token': server.token },
          body: JSON.stringify([name]),
        });
        const body = (await reply.json()) as { result?: { path: string; text: string }; error?: string };
        assert.equal(reply.status, 200, `${JSON.stringify(name)}: ${body.error}`);
        assert.equal(body.result!.path, name);
        assert.match(body.result!.text, /pelicans/);
      }
    } finally {
      await server.close();
    }
  });
});

describe('vault boundary: watcher', { timeout: 60_000 }, () => {
  let base: string;
  let vault: string;
  let outside: string;
  before(async () => {
    ({ base, vault, outside } = await vaultWithOutsideLinks());
    // The loops of the issue: a link to the parent and a link to itself.
    await fs.symlink('..', path.join(vault, 'sub', 'up'));
    await fs.symlink('.', path.join(vault, 'sub', 'me'));
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  // What the service hands the watcher: the links of a full scan, as the reconcile that goes with each folder batch finds them.
  const scannedLinks = (options: VaultScanOptions) => async () => (await scanVault(vault, options)).links;

  async function watching(followOutside: boolean, run: (files: () => string[]) => Promise<void>): Promise<void> {
    const batches: VaultChangeBatch[] = [];
    const errors: Error[] = [];
    const watcher = new VaultWatcher(vault, { ...OPTIONS, follow_outside_links: followOutside }, { links: scannedLinks({ ...OPTIONS, follow_outside_links: followOutside }), debounceMs: 50, onBatch: async (b) => void batches.push(b), onError: (e) => errors.push(e) });
    try {
      await withTimeout(watcher.start(), 5000, 'watcher ready');
      await run(() => batches.flatMap((b) => [...b.files]));
      assert.deepEqual(errors, []);
    } finally {
      await watcher.close();
    }
  }

  test('loops do not stop it getting ready; notes are seen, the outside folder is not', async () => {
    await watching(false, async (files) => {
      await fs.writeFile(path.join(vault, 'sub', 'inner.md'), '# Inner\n\nEdited: wombats.\n');
      await eventually(() => files().includes('sub/inner.md'), 'the edit of a normal note', 5000);
      // A link inside the vault follows its target's edits.
      await eventually(() => files().includes('alias.md'), 'the in-vault link to the edited note', 5000);
      await fs.writeFile(path.join(outside, 'dir', 'cache.md'), '# Cache\n\nchanged outside\n');
      await fs.writeFile(path.join(outside, 'dir', 'new.md'), '# New outside\n');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.deepEqual(files().filter((f) => f.startsWith('root_link') || f.includes('/up/') || f.includes('/me/')), []);
    });
  });

  test('links created while watching: a note link is a file change, a folder link a reconcile', async () => {
    const batches: VaultChangeBatch[] = [];
    const watcher = new VaultWatcher(vault, OPTIONS, { links: scannedLinks(OPTIONS), debounceMs: 50, onBatch: async (b) => void batches.push(b), onError: (e) => assert.fail(e) });
    try {
      await withTimeout(watcher.start(), 5000, 'watcher ready');
      await fs.symlink(path.join(outside, 'secret.md'), path.join(vault, 'late.md'));
      await eventually(() => batches.some((b) => b.files.has('late.md')), 'the new note link', 5000);
      await fs.symlink(path.join(vault, 'sub'), path.join(vault, 'late_dir'));
      await eventually(() => batches.some((b) => b.folders), 'the new folder link', 5000);
    } finally {
      await watcher.close();
      await fs.rm(path.join(vault, 'late.md'), { force: true });
      await fs.rm(path.join(vault, 'late_dir'), { force: true });
    }
  });

  test('a new file whose name is not valid UTF-8 makes a reconcile (a scan reports it), not a vanished note', async () => {
    const batches: VaultChangeBatch[] = [];
    const watcher = new VaultWatcher(vault, OPTIONS, { links: scannedLinks(OPTIONS), debounceMs: 50, onBatch: async (b) => void batches.push(b), onError: (e) => assert.fail(e) });
    const name = Buffer.concat([Buffer.from(path.join(vault, 'latin1 ')), Buffer.from([0xe9, 0xff]), Buffer.from('.md')]);
    try {
      await withTimeout(watcher.start(), 5000, 'watcher ready');
      await fs.writeFile(name, '# x\n');
      await eventually(() => batches.some((b) => b.folders), 'a reconcile for the undecodable name', 5000);
    } finally {
      await watcher.close();
      await fs.rm(name, { force: true });
    }
  });

  test('with follow_outside_links the outside folder is watched under the link name', async () => {
    await watching(true, async (files) => {
      await fs.writeFile(path.join(outside, 'dir', 'cache.md'), '# Cache\n\nchanged outside again\n');
      await eventually(() => files().includes('root_link/cache.md'), 'the edit under the followed link', 5000);
    });
  });
});
