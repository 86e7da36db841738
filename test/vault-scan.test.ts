import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createPathFilter, scanVault, type VaultFileEntry, type VaultScanOptions } from '../core/vault/scanVault.js';
import { NoteReadError, readNoteFile } from '../core/vault/readNoteFile.js';

const DEFAULTS: VaultScanOptions = {
  include: ['**/*'],
  exclude: ['.obsidian/**', '.git/**', '.trash/**', 'node_modules/**'],
  extensions: ['.md', '.markdown'],
};

async function makeTempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'cairn-scan-'));
}

async function writeFiles(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
}

/** chmod 000 does not stop root (or some filesystems) from reading, so tests must check first. */
async function isReadable(absPath: string): Promise<boolean> {
  try {
    const stats = await fs.stat(absPath);
    if (stats.isDirectory()) await fs.readdir(absPath);
    else await (await fs.open(absPath, 'r')).close();
    return true;
  } catch {
    return false;
  }
}

function paths(files: VaultFileEntry[]): string[] {
  return files.map((file) => file.path);
}

describe('scanVault', () => {
  let base: string;
  let root: string;

  before(async () => {
    base = await makeTempDir();
    root = path.join(base, 'vault');
    await writeFiles(root, {
      'a.md': '# A',
      'Upper.MARKDOWN': 'upper',
      'notes/c.md': 'c',
      'notes/d.txt': 'text',
      'notes/deep/e.markdown': 'e',
      'drafts/wip.md': 'wip',
      'drafts/scratch.tmp.md': 'tmp',
      '.obsidian/workspace.md': 'config',
      '.git/HEAD.md': 'git',
      '.trash/old.md': 'old',
      'node_modules/pkg/readme.md': 'pkg',
      'sub/node_modules/nested.md': 'nested',
      '.hidden/h.md': 'hidden',
    });
    await writeFiles(base, { 'outside/ext.md': 'external', 'outside/dir/x.md': 'x' });
    await fs.symlink(root, path.join(root, 'loop'), 'dir');
    await fs.symlink(path.join(root, 'notes'), path.join(root, 'notes', 'deep', 'up'), 'dir');
    await fs.symlink(path.join(base, 'outside', 'ext.md'), path.join(root, 'linked.md'), 'file');
    await fs.symlink(path.join(base, 'outside', 'dir'), path.join(root, 'external-dir'), 'dir');
    await fs.symlink(path.join(root, 'notes'), path.join(root, 'a-notes-link'), 'dir');
    await fs.symlink(path.join(root, 'missing.md'), path.join(root, 'broken.md'), 'file');
  });

  after(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  test('default excludes, extensions, symlinked files and folders', async () => {
    // Following links out of the vault (outside/) is opt-in; test/vault-boundary.test.ts covers the default.
    const scan = await scanVault(root, { ...DEFAULTS, follow_outside_links: true });
    assert.deepEqual(paths(scan.files), [
      '.hidden/h.md',
      'Upper.MARKDOWN',
      'a.md',
      'drafts/scratch.tmp.md',
      'drafts/wip.md',
      'external-dir/x.md',
      'linked.md',
      'notes/c.md',
      'notes/deep/e.markdown',
      'sub/node_modules/nested.md',
    ]);
    const a = scan.files.find((file) => file.path === 'a.md')!;
    assert.equal(a.absPath, path.join(root, 'a.md'));
    assert.equal(a.size, 3);
    assert.ok(a.mtimeMs > 0);
    assert.equal(scan.files.find((file) => file.path === 'linked.md')!.size, 'external'.length);
  });

  test('symlink loops are reported once each and never followed', async () => {
    const scan = await scanVault(root, { ...DEFAULTS, follow_outside_links: true });
    const byPath = new Map(scan.warnings.map((warning) => [warning.path, warning.reason]));
    assert.match(byPath.get('loop') ?? '', /symlink loop/);
    assert.match(byPath.get('notes/deep/up') ?? '', /symlink loop/);
    // A second route to an already scanned folder is not a loop, but is not walked again either.
    assert.match(byPath.get('a-notes-link') ?? '', /already scanned as notes/);
    assert.match(byPath.get('broken.md') ?? '', /broken symbolic link/);
    assert.equal(scan.warnings.length, 4);
    assert.ok(!scan.files.some((file) => file.path.startsWith('loop/') || file.path.includes('/up/')));
  });

  test('include globs restrict the scan', async () => {
    const scan = await scanVault(root, { ...DEFAULTS, include: ['notes/**'] });
    assert.deepEqual(paths(scan.files), ['notes/c.md', 'notes/deep/e.markdown']);
  });

  test('exclude globs: bare folder name, folder/**, and file patterns', async () => {
    const scan = await scanVault(root, {
      ...DEFAULTS,
      exclude: [...DEFAULTS.exclude, 'drafts', '**/*.tmp.md', 'sub/**', '.hidden/**', 'external-dir', 'loop', 'notes/deep/up', 'a-notes-link', 'broken.md'],
      follow_outside_links: true,
    });
    assert.deepEqual(paths(scan.files), ['Upper.MARKDOWN', 'a.md', 'linked.md', 'notes/c.md', 'notes/deep/e.markdown']);
    assert.deepEqual(scan.warnings, []);
  });

  test('extensions select file types', async () => {
    const scan = await scanVault(root, { ...DEFAULTS, extensions: ['txt'] });
    assert.deepEqual(paths(scan.files), ['notes/d.txt']);
  });

  test('accepts a relative root', async () => {
    const relative = path.relative(process.cwd(), root);
    const scan = await scanVault(relative, DEFAULTS);
    assert.equal(scan.files.find((file) => file.path === 'a.md')!.absPath, path.join(root, 'a.md'));
  });

  test('a missing root or a file root throws naming the path', async () => {
    const missing = path.join(base, 'nope');
    await assert.rejects(scanVault(missing, DEFAULTS), (error: Error) => error.message.includes(missing));
    const file = path.join(root, 'a.md');
    await assert.rejects(scanVault(file, DEFAULTS), (error: Error) => error.message.includes(file) && /not a directory/.test(error.message));
  });

  test('unreadable files and folders become warnings', async (t) => {
    const dir = await makeTempDir();
    try {
      await writeFiles(dir, { 'ok.md': 'ok', 'secret.md': 'no', 'locked/inner.md': 'no' });
      await fs.chmod(path.join(dir, 'secret.md'), 0o000);
      await fs.chmod(path.join(dir, 'locked'), 0o000);
      if ((await isReadable(path.join(dir, 'secret.md'))) || (await isReadable(path.join(dir, 'locked')))) {
        t.skip('permissions are not enforced for this user (running as root?)');
        return;
      }
      const scan = await scanVault(dir, DEFAULTS);
      assert.deepEqual(paths(scan.files), ['ok.md']);
      assert.deepEqual(
        scan.warnings.map((warning) => warning.path).sort(),
        ['locked', 'secret.md'],
      );
      assert.ok(scan.warnings.every((warning) => /permission denied/.test(warning.reason)));
    } finally {
      await fs.chmod(path.join(dir, 'locked'), 0o755).catch(() => {});
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('createPathFilter', () => {
  const filter = createPathFilter({ ...DEFAULTS, exclude: [...DEFAULTS.exclude, 'archive', 'docs/*', 'logs/*.md'] });

  test('matches files the way the scan does', () => {
    assert.equal(filter.isIncluded('a.md'), true);
    assert.equal(filter.isIncluded('dir/b.MD'), true);
    assert.equal(filter.isIncluded('dir/b.txt'), false);
    assert.equal(filter.isIncluded('.obsidian/x.md'), false);
    assert.equal(filter.isIncluded('archive/old/x.md'), false);
    assert.equal(filter.isIncluded('docs/top.md'), false);
    // Like .gitignore, "docs/*" also matches the folder docs/sub, so everything below it is excluded.
    assert.equal(filter.isIncluded('docs/sub/deeper.md'), false);
    assert.equal(filter.isIncluded('logs/today.md'), false);
    assert.equal(filter.isIncluded('logs/2024/today.md'), true);
  });

  test('excluded folders, with or without a trailing slash', () => {
    assert.equal(filter.isExcludedDir('.git'), true);
    assert.equal(filter.isExcludedDir('.git/'), true);
    assert.equal(filter.isExcludedDir('node_modules'), true);
    assert.equal(filter.isExcludedDir('archive'), true);
    assert.equal(filter.isExcludedDir('docs'), false);
    assert.equal(filter.isExcludedDir('docs/sub'), true);
    assert.equal(filter.isExcludedDir('logs/2024'), false);
    assert.equal(filter.isExcludedDir('notes'), false);
    assert.equal(filter.isExcludedDir(''), false);
  });
});

describe('readNoteFile', () => {
  let dir: string;

  before(async () => {
    dir = await makeTempDir();
  });

  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function entryFor(rel: string, content: string | Uint8Array): Promise<VaultFileEntry> {
    await writeFiles(dir, { [rel]: content });
    const absPath = path.join(dir, rel);
    const stats = await fs.stat(absPath);
    return { path: rel, absPath, size: stats.size, mtimeMs: stats.mtimeMs };
  }

  test('reads UTF-8 text with size and mtime', async () => {
    const entry = await entryFor('plain.md', 'héllo 😀\n');
    const note = await readNoteFile(entry);
    assert.equal(note.text, 'héllo 😀\n');
    assert.equal(note.path, 'plain.md');
    assert.equal(note.absPath, entry.absPath);
    assert.equal(note.size, Buffer.byteLength('héllo 😀\n'));
    assert.equal(note.mtimeMs, entry.mtimeMs);
  });

  test('strips a UTF-8 BOM and keeps CRLF', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('---\r\ntitle: x\r\n---\r\nbody\r\n')]);
    const note = await readNoteFile(await entryFor('bom.md', bytes));
    assert.equal(note.text, '---\r\ntitle: x\r\n---\r\nbody\r\n');
    assert.equal(note.size, bytes.length);
  });

  test('rejects binary files; reads Windows-1252 and UTF-16 (see note-encodings.test.ts)', async () => {
    const binary = await entryFor('image.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await assert.rejects(readNoteFile(binary), (error: unknown) => {
      assert.ok(error instanceof NoteReadError);
      assert.equal(error.path, 'image.md');
      assert.match(error.message, /image\.md/);
      assert.match(error.message, /binary/);
      return true;
    });
    const latin1 = await readNoteFile(await entryFor('latin1.md', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])));
    assert.equal(latin1.text, 'café\n');
    assert.match(latin1.notice ?? '', /Windows-1252/);
    const utf16 = await readNoteFile(await entryFor('utf16.md', Buffer.from('\ufeffhi', 'utf16le')));
    assert.equal(utf16.text, 'hi');
    assert.equal(utf16.notice, undefined);
  });

  test('a missing file is a NoteReadError', async () => {
    const entry = { path: 'gone.md', absPath: path.join(dir, 'gone.md'), size: 0, mtimeMs: 0 };
    await assert.rejects(readNoteFile(entry), (error: unknown) => error instanceof NoteReadError && /gone\.md.*not found/.test(error.message));
  });

  test('an unreadable file is a NoteReadError', async (t) => {
    const entry = await entryFor('locked.md', 'secret');
    await fs.chmod(entry.absPath, 0o000);
    if (await isReadable(entry.absPath)) {
      t.skip('permissions are not enforced for this user (running as root?)');
      return;
    }
    await assert.rejects(readNoteFile(entry), (error: unknown) => error instanceof NoteReadError && /permission denied/.test(error.message));
  });
});
