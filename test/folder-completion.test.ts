// Completing a vault path as it is typed (browser mode): a temp tree of folders, some looking like vaults.
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { completeFolder, MAX_FOLDER_COMPLETIONS } from '../core/vault/folderCompletion.js';
import { ApiArgumentError } from '../core/contract/validation.js';
import { validateApiCall } from '../core/server/hostValidation.js';

let root: string;
const names = (list: Array<{ name: string }>) => list.map((c) => c.name);

describe('completing a folder path', () => {
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-folders-'));
    for (const dir of ['Notes', 'notebook', 'Novel/.obsidian', 'Graph/logseq', 'Plain', 'Music', '.hidden', '.config', 'locked', 'many']) await mkdir(path.join(root, dir), { recursive: true });
    await writeFile(path.join(root, 'Notes', 'a.md'), '# A\n');
    await writeFile(path.join(root, 'note.txt'), 'a file, not a folder');
    await symlink(path.join(root, 'Music'), path.join(root, 'Nowhere-link'));
    await symlink(path.join(root, 'gone'), path.join(root, 'Nobroken'));
    for (let i = 0; i < 30; i++) await mkdir(path.join(root, 'many', `sub ${String(i).padStart(2, '0')}`));
    await chmod(path.join(root, 'locked'), 0o000);
  });
  after(async () => {
    await chmod(path.join(root, 'locked'), 0o755);
    await rm(root, { recursive: true, force: true });
  });

  it('lists the sub-folders whose names start with the last segment, any case, sorted, with likely vaults marked', async () => {
    const found = await completeFolder(path.join(root, 'no'));
    assert.deepEqual(names(found), ['notebook', 'Notes', 'Novel', 'Nowhere-link']);
    assert.deepEqual(found.find((c) => c.name === 'Notes'), { path: path.join(root, 'Notes'), name: 'Notes', kind: 'markdown' });
    assert.equal(found.find((c) => c.name === 'Novel')?.kind, 'obsidian');
    assert.equal(found.find((c) => c.name === 'notebook')?.kind, undefined);
    assert.equal((await completeFolder(path.join(root, 'gr')))[0]?.kind, 'logseq');
  });

  it('a trailing separator lists the folder itself; hidden folders only when the segment starts with "."', async () => {
    const all = names(await completeFolder(`${root}/`));
    assert.deepEqual(all, ['Graph', 'locked', 'many', 'Music', 'notebook', 'Notes', 'Novel', 'Nowhere-link', 'Plain']);
    assert.deepEqual(names(await completeFolder(`${root}/.`)), ['.config', '.hidden']);
    assert.deepEqual(names(await completeFolder(path.join(root, '.h'))), ['.hidden']);
  });

  it('"~" is the home folder', async () => {
    assert.deepEqual(names(await completeFolder('~/No', root)), ['notebook', 'Notes', 'Novel', 'Nowhere-link']);
    assert.deepEqual(await completeFolder('~', root), await completeFolder(`${root}/`));
  });

  it(`lists at most ${MAX_FOLDER_COMPLETIONS}, the first by name`, async () => {
    const found = names(await completeFolder(path.join(root, 'many', 'sub')));
    assert.equal(found.length, MAX_FOLDER_COMPLETIONS);
    assert.deepEqual(found.slice(0, 2), ['sub 00', 'sub 01']);
  });

  it('never throws: missing, unreadable, relative or file paths complete to nothing', async () => {
    assert.deepEqual(await completeFolder(path.join(root, 'missing', 'x')), []);
    assert.deepEqual(await completeFolder(path.join(root, 'note.txt', '')), []);
    assert.deepEqual(await completeFolder('relative/path'), []);
    assert.deepEqual(await completeFolder(''), []);
    if (process.getuid?.() !== 0) assert.deepEqual(await completeFolder(`${path.join(root, 'locked')}/`), []);
    // A folder that cannot be read is still listed where its parent can be (only its vault mark is unknown).
    assert.deepEqual(await completeFolder(path.join(root, 'loc')), [{ path: path.join(root, 'locked'), name: 'locked' }]);
  });

  it('over the API: one string of at most 4096 characters', () => {
    assert.deepEqual(validateApiCall('completeFolder', ['/home/me/no']), { method: 'completeFolder', args: ['/home/me/no'] });
    for (const bad of [[3], [''], ['x'.repeat(4097)], [], ['/a', '/b'], ['/a\u0000']]) assert.throws(() => validateApiCall('completeFolder', bad), ApiArgumentError, JSON.stringify(bad).slice(0, 40));
  });
});
