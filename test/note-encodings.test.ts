// Notes not saved as UTF-8: read when it is clear what their bytes are (UTF-16 with a byte order mark, UTF-8 with a
// few stray bytes, mostly-ASCII Windows-1252), each such note indexed with a notice that outlives a restart; refused,
// named, when it is not.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { decodeNoteText, NoteReadError } from '../core/vault/readNoteFile.js';

const cp1252 = (text: string) => Buffer.from(text, 'latin1');
const withBom = (text: string, encoding: 'utf-16le' | 'utf-16be') => {
  const le = Buffer.from(`\ufeff${text}`, 'utf16le');
  return encoding === 'utf-16le' ? le : Buffer.from(le).swap16();
};

describe('decodeNoteText', () => {
  it('reads UTF-8 as it is, without a notice, and drops a BOM', () => {
    assert.deepEqual(decodeNoteText('a.md', Buffer.from('# Café\n\nnaïve 😀\n')), { text: '# Café\n\nnaïve 😀\n' });
    assert.deepEqual(decodeNoteText('a.md', Buffer.from('\ufeff# A\n')), { text: '# A\n' });
  });

  it('reads UTF-16 by its byte order mark, either way round, without a notice', () => {
    for (const encoding of ['utf-16le', 'utf-16be'] as const) {
      assert.deepEqual(decodeNoteText('w.md', withBom('# Notepad\r\n\r\nCafé 😀\r\n', encoding)), { text: '# Notepad\r\n\r\nCafé 😀\r\n' }, encoding);
    }
    // A lone surrogate is damage, not text.
    const damaged = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from([0x41, 0x00, 0x00, 0xd8, 0x41, 0x00])]);
    assert.throws(() => decodeNoteText('w.md', damaged), (error: unknown) => error instanceof NoteReadError && /w\.md.*UTF-16.*damaged/.test(error.message));
  });

  it('reads Windows-1252 (accents, curly quotes, the euro sign) with a notice', () => {
    const { text, notice } = decodeNoteText('old.md', Buffer.from([...cp1252('He said '), 0x93, ...cp1252('caf\xe9'), 0x94, ...cp1252(' for 5 '), 0x80, 0x0a]));
    assert.equal(text, 'He said “café” for 5 €\n');
    assert.match(notice ?? '', /Windows-1252/);
  });

  it('reads UTF-8 with a few stray bytes as U+FFFD for them, with a notice that counts them', () => {
    const { text, notice } = decodeNoteText('mixed.md', Buffer.concat([Buffer.from('Café crème, '), Buffer.from([0x92]), Buffer.from(' naïve\n')]));
    assert.equal(text, 'Café crème, \ufffd naïve\n');
    assert.match(notice ?? '', /^1 byte is not valid UTF-8/);
  });

  it('refuses text mostly outside ASCII in another encoding, and binary files, naming the note', () => {
    const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x20, 0xec, 0xe8, 0xf0, 0x0a]); // "Привет мир" in Windows-1251
    assert.throws(() => decodeNoteText('ru.md', cyrillic), (error: unknown) => error instanceof NoteReadError && error.path === 'ru.md' && /not valid UTF-8/.test(error.message));
    assert.throws(() => decodeNoteText('scan.md', Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01])), (error: unknown) => error instanceof NoteReadError && /binary/.test(error.message));
  });

  it('property: any text saved as UTF-8 reads back as itself, with no notice', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        fc.pre(!text.includes('\0') && !text.startsWith('\ufeff'));
        assert.deepEqual(decodeNoteText('p.md', Buffer.from(text)), { text });
      }),
      { numRuns: 300 },
    );
  });

  it('property: mostly-ASCII Windows-1252 text reads back as itself, with a notice', () => {
    // Each character outside ASCII is followed by an ASCII one, so the bytes hold no UTF-8 sequence by chance.
    const ascii = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz ABC.,;:!?-\n#*'.split(''));
    const western = fc.constantFrom(...'éèêëàâäçôöùûüïîÿæœÉÀÇ“”‘’–—…€™'.split(''));
    const word = fc.tuple(fc.array(ascii, { minLength: 4, maxLength: 12 }), fc.option(western, { nil: '' })).map(([plain, accent]) => `${plain.join('')}${accent}${plain[0]}`);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 40 }), (words) => {
        const text = words.join('');
        const bytes = iconv.encode(text, 'windows-1252');
        const decoded = decodeNoteText('p.md', bytes);
        assert.equal(decoded.text, text);
        assert.equal(decoded.notice !== undefined, /[^\x00-\x7f]/.test(text));
      }),
      { numRuns: 300 },
    );
  });

  it('property: any bytes either read as text or are refused with a NoteReadError naming the note', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          const { text } = decodeNoteText('any.md', bytes);
          assert.equal(typeof text, 'string');
        } catch (error) {
          assert.ok(error instanceof NoteReadError && error.path === 'any.md', String(error));
        }
      }),
      { numRuns: 1000 },
    );
  });
});


describe('a vault with notes in other encodings', { timeout: 120_000 }, () => {
  let root: string;
  let vault: string;
  const open = () => {
    const config = defaultConfig();
    config.vault.path = vault;
    config.index.data_dir = path.join(root, 'data');
    return CairnVault.open(config);
  };
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-encodings-'));
    vault = path.join(root, 'vault');
    await mkdir(vault);
    await writeFile(path.join(vault, 'recipes.md'), cp1252('# Recettes\n\nLe caf\xe9 cr\xe8me du matin, \x93tr\xe8s bien\x94.\n'));
    await writeFile(path.join(vault, 'notepad.md'), withBom('# Windows\r\n\r\nSaved by Notepad as Unicode, about granite.\r\n', 'utf-16le'));
    await writeFile(path.join(vault, 'ru.md'), Buffer.from([0x23, 0x20, 0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x20, 0xec, 0xe8, 0xf0, 0x0a]));
    await writeFile(path.join(vault, 'plain.md'), '# Plain\n\nGranite and basalt.\n');
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('indexes what it can read, says how it read it, and keeps saying so after a restart', async () => {
    const first = await open();
    try {
      const events: Array<{ path: string; indexed: boolean }> = [];
      const summary = await first.index((event) => {
        if (event.type === 'file-failed') events.push({ path: event.path, indexed: event.indexed === true });
      });
      assert.deepEqual(
        events.sort((a, b) => a.path.localeCompare(b.path)),
        [
          { path: 'recipes.md', indexed: true },
          { path: 'ru.md', indexed: false },
        ],
      );
      assert.equal(summary.notes, 3);
      const [hit] = (await first.search({ query: 'café crème', mode: 'keyword' })).results;
      assert.equal(hit?.path, 'recipes.md');
      assert.match(hit!.text, /“très bien”/);
      assert.equal((await first.search({ query: 'notepad unicode', mode: 'keyword' })).results[0]?.path, 'notepad.md');
    } finally {
      await first.close();
    }
    const reopened = await open();
    try {
      const failed = reopened.status().failed;
      assert.match(failed.find((f) => f.path === 'recipes.md' && f.indexed)?.reason ?? '', /Windows-1252/);
      assert.match(failed.find((f) => f.path === 'ru.md' && !f.indexed)?.reason ?? '', /ru\.md.*not valid UTF-8/);
      assert.equal(failed.length, 2);
      // Saved again as UTF-8, the note is read as such and its warning goes.
      await writeFile(path.join(vault, 'recipes.md'), '# Recettes\n\nLe café crème du matin, “très bien”.\n');
      await reopened.update(['recipes.md']);
      assert.deepEqual(
        reopened.status().failed.map((f) => f.path),
        ['ru.md'],
      );
      assert.match((await reopened.search({ query: 'café crème', mode: 'keyword' })).results[0]?.text ?? '', /“très bien”/);
    } finally {
      await reopened.close();
    }
  });
});
