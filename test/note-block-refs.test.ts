// The note view's block references: where each `((uuid))` of a note points (this note, or the note the index says
// defines it), with the block's text (references inside it resolved) and line; unknown uuids left out.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { blocksOf, resolveNoteBlockRefs, type BlockSource } from '../core/app/noteBlockRefs.js';

const A = '6565a1b2-0000-4000-8000-0000000000a1';
const B = '6565a1b2-0000-4000-8000-0000000000b2';
const C = '6565a1b2-0000-4000-8000-0000000000c3';
const MISSING = '6565a1b2-0000-4000-8000-0000000000ff';

const NOTES: Record<string, string> = {
  'pages/Home.md': `title:: Home\n\n- ## Start\n  id:: ${A}\n\t- See ((${B})), ((${C.toUpperCase()})) and ((${MISSING}))\n\t- Back to ((${A}))\n`,
  'pages/Linked.md': `- Close the valve first, as ((${C})) says\n  id:: ${B}\n  collapsed:: true\n`,
  'pages/Far.md': `type:: note\n\n- **Always** wear gloves\n\tid:: ${C}\n`,
};

let dir: string;
let reads: string[];
let vault: BlockSource;
/** What the index's block map says: the note defining each uuid. */
const locate = (uuid: string) => Object.keys(NOTES).find((p) => blocksOf(NOTES[p]).has(uuid));

describe('note block references', () => {
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cairn-blockrefs-'));
    await mkdir(path.join(dir, 'pages'));
    for (const [name, text] of Object.entries(NOTES)) await writeFile(path.join(dir, name), text);
    reads = [];
    vault = {
      vaultPath: dir,
      async readNote(notePath) {
        reads.push(notePath);
        const file = path.join(dir, notePath);
        const info = await stat(file);
        return { text: await readFile(file, 'utf8'), mtimeMs: info.mtimeMs, size: info.size };
      },
    };
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('blocksOf: the id:: blocks of a note, their own text and line', () => {
    const blocks = blocksOf(NOTES['pages/Linked.md']);
    assert.deepEqual([...blocks], [[B, { text: `Close the valve first, as ((${C})) says`, line: 1 }]]);
    assert.deepEqual(blocksOf(NOTES['pages/Home.md']).get(A), { text: 'Start', line: 3 });
  });

  test('resolves from the note itself, then the notes defining the blocks; unknown uuids are left out', async () => {
    reads.length = 0;
    const refs = await resolveNoteBlockRefs(vault, 'pages/Home.md', NOTES['pages/Home.md'], locate);
    assert.deepEqual(Object.keys(refs).sort(), [A, B, C].sort());
    assert.deepEqual(refs[A], { path: 'pages/Home.md', text: 'Start', line: 3 });
    // References inside a referenced block read as their blocks too.
    assert.deepEqual(refs[B], { path: 'pages/Linked.md', text: 'Close the valve first, as **Always** wear gloves says', line: 1 });
    assert.deepEqual(refs[C], { path: 'pages/Far.md', text: '**Always** wear gloves', line: 3 });
    assert.ok(!(MISSING in refs));
    assert.deepEqual(reads.sort(), ['pages/Far.md', 'pages/Linked.md'], 'only the defining notes are read');
  });

  test('a note whose references are all known reads no other note', async () => {
    reads.length = 0;
    const text = `- Only ((${A}))\n- Here\n  id:: ${A}\n`;
    const refs = await resolveNoteBlockRefs(vault, 'pages/Self.md', text, locate);
    assert.deepEqual(refs[A], { path: 'pages/Self.md', text: 'Here', line: 2 });
    assert.deepEqual(reads, []);
  });

  test('the vault is read once: unchanged notes come from the cache, changed ones are read again', async () => {
    const home = NOTES['pages/Home.md'];
    await resolveNoteBlockRefs(vault, 'pages/Home.md', home, locate);
    reads.length = 0;
    await resolveNoteBlockRefs(vault, 'pages/Home.md', home, locate);
    assert.deepEqual(reads, [], 'nothing read again');
    await writeFile(path.join(dir, 'pages/Far.md'), `- Gloves, always (changed)\n  id:: ${C}\n`);
    const refs = await resolveNoteBlockRefs(vault, 'pages/Home.md', home, locate);
    assert.equal(refs[C].text, 'Gloves, always (changed)');
    assert.deepEqual(reads, ['pages/Far.md']);
  });
});
