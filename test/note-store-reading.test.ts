// A loaded note store parses its notes when they are first asked for (core/indexing/noteStore.ts, `unread`): whatever
// is asked, in whatever order, it answers as the store that saved it, and as a store of the earlier notes file
// (parsed whole on load) does; edits before every note is read, and a header that disagrees with its notes.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { NOTES_FILE, NoteStore, NoteStoreCorruptError, TEXTS_FILE, type NewNoteRecord, type NoteRecord } from '../core/indexing/noteStore.js';

interface NoteSpec {
  name: string;
  sections: Array<{ text: string; tags: string[] }>;
  blank: number;
  frontmatterError: boolean;
  blocks: boolean;
}

/** Note names with the characters a path's JSON escapes (quotes, backslashes, non-ASCII) and a `#`. */
const NAME = fc.stringMatching(/^[a-z"\\é#ü ]{1,8}$/).map((s) => `dir/${s}`);

const SPEC = fc.record({
  name: NAME,
  sections: fc.array(fc.record({ text: fc.stringMatching(/^[a-z ]{1,20}$/), tags: fc.subarray(['#a', '#b', '#c']) }), { minLength: 1, maxLength: 4 }),
  blank: fc.integer({ min: 0, max: 1 }),
  frontmatterError: fc.boolean(),
  blocks: fc.boolean(),
});

function record(spec: NoteSpec): NewNoteRecord {
  const texts = [...spec.sections, ...Array.from({ length: spec.blank }, () => ({ text: '   ', tags: [] }))];
  return {
    path: `${spec.name}.md`,
    size: spec.name.length,
    mtimeMs: 1000 + spec.name.length,
    textHash: `h-${spec.name}`,
    title: spec.name,
    aliases: [],
    tags: spec.sections[0]!.tags,
    frontmatter: {},
    ...(spec.frontmatterError ? { frontmatterError: 'bad YAML at line 2' } : {}),
    ...(spec.blocks ? { blockTexts: { [`uuid-${spec.name}`]: `block of ${spec.name}` } } : {}),
    chunks: texts.map((t, index) => ({
      id: `${spec.name}.md#${index}@${index}abc`,
      index,
      headerPath: index === 0 ? [] : [`H ${index}`],
      level: 1,
      anchor: `h-${index}`,
      sub: null,
      start: index,
      end: index + 1,
      startLine: index + 1,
      endLine: index + 1,
      tokenCount: 1,
      hash: `${spec.name}-${index}`,
      tags: t.tags,
      links: [],
      text: t.text,
    })),
  };
}

const plain = (note: NoteRecord | undefined) => (note ? (JSON.parse(JSON.stringify(note)) as unknown) : undefined);

describe('a note store read note by note', () => {
  let root: string;
  before(async () => (root = await mkdtemp(path.join(os.tmpdir(), 'cairn-note-reading-'))));
  after(() => rm(root, { recursive: true, force: true }));

  let saves = 0;
  async function saved(specs: NoteSpec[]): Promise<{ original: NoteStore; bytes: Buffer; texts: string }> {
    const original = new NoteStore();
    for (const spec of specs) original.put(record(spec));
    original.failures.set(`${specs[0]!.name}.md`, 'read as Windows-1252');
    const dir = path.join(root, `g${saves++}`);
    (await original.save(dir)).commit();
    return { original, bytes: await readFile(path.join(dir, NOTES_FILE)), texts: path.join(dir, TEXTS_FILE) };
  }

  it('property: any order of questions gets the answers of the store that saved it, and of one parsed whole', async () => {
    const ask = fc.oneof(
      fc.record({ kind: fc.constant('note' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('chunk' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('counts' as const) }),
      fc.record({ kind: fc.constant('blocks' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('all' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(SPEC, { minLength: 1, maxLength: 8, selector: (s) => s.name }), fc.array(ask, { maxLength: 12 }), async (specs, asks) => {
        const { original, bytes, texts } = await saved(specs);
        const [, ...lines] = bytes.toString('utf8').split('\n');
        // The same notes under the header notes files had before it counted them: parsed whole as it is read.
        const earlier = Buffer.from([JSON.stringify({ failures: JSON.parse(bytes.toString('utf8').split('\n')[0]!).failures }), ...lines].join('\n'));
        const loaded = await NoteStore.read(bytes, texts);
        const whole = await NoteStore.read(earlier, texts);
        const paths = [...original.paths()];
        const ids = [...original.allNotes()].flatMap((n) => n.chunks.map((c) => c.id));
        for (const store of [loaded, whole]) {
          for (const question of asks) {
            if (question.kind === 'note') {
              const p = paths[question.at % paths.length]!;
              assert.deepEqual(plain(store.note(p)), plain(original.note(p)), p);
            } else if (question.kind === 'chunk') {
              const id = ids[question.at % ids.length]!;
              assert.deepEqual(plain(store.chunk(id)?.note), plain(original.chunk(id)?.note), id);
              assert.deepEqual(store.chunk(id)?.chunk, original.chunk(id)?.chunk, id);
              assert.equal(store.chunk(`${id}x`), undefined);
            } else if (question.kind === 'blocks') {
              const spec = specs[question.at % specs.length]!;
              assert.equal(store.blocks.note(`uuid-${spec.name}`), spec.blocks ? `${spec.name}.md` : undefined);
            } else if (question.kind === 'all') {
              assert.deepEqual([...store.allNotes()].map(plain).sort(byPath), [...original.allNotes()].map(plain).sort(byPath));
            }
            assert.equal(store.noteCount, original.noteCount);
            assert.equal(store.chunkCount, original.chunkCount);
            assert.equal(store.searchableCount, original.searchableCount);
            assert.deepEqual([...store.paths()].sort(), [...paths].sort());
            assert.deepEqual(store.frontmatterErrors().sort(byPath), original.frontmatterErrors().sort(byPath));
            assert.deepEqual([...store.failures], [...original.failures]);
          }
          await store.readAll();
          assert.deepEqual([...store.allNotes()].map(plain).sort(byPath), [...original.allNotes()].map(plain).sort(byPath));
          assert.deepEqual(store.blocks.takeChanged(), [], 'notes read as loaded change no block');
          for (const p of paths) assert.deepEqual(await store.texts(store.note(p)!.chunks), await original.texts(original.note(p)!.chunks));
        }
        for (const store of [original, loaded, whole]) store.dispose();
      }),
      { numRuns: 40 },
    );
  });

  it('a note removed or replaced before the others are read leaves the rest as they were; a save reads them all', async () => {
    const specs = ['one', 'two', 'three'].map((name): NoteSpec => ({ name, sections: [{ text: `${name} text`, tags: ['#a'] }], blank: 0, frontmatterError: name === 'two', blocks: false }));
    const { original, bytes, texts } = await saved(specs);
    original.dispose();
    const loaded = await NoteStore.read(bytes, texts);
    assert.deepEqual(loaded.delete('two.md'), ['two.md#0@0abc']);
    assert.deepEqual(loaded.frontmatterErrors(), [], 'the removed note takes its error with it');
    loaded.put(record({ ...specs[0]!, sections: [{ text: 'one again', tags: [] }, { text: 'more', tags: [] }] }));
    assert.equal(loaded.noteCount, 2);
    assert.equal(loaded.chunkCount, 3);
    const dir = path.join(root, 'after-edits');
    (await loaded.save(dir)).commit();
    const again = await NoteStore.read(await readFile(path.join(dir, NOTES_FILE)), path.join(dir, TEXTS_FILE));
    assert.deepEqual([...again.paths()].sort(), ['one.md', 'three.md']);
    assert.deepEqual(await again.texts(again.note('one.md')!.chunks), [{ text: 'one again' }, { text: 'more' }]);
    assert.deepEqual(await again.texts(again.note('three.md')!.chunks), [{ text: 'three text' }]);
    for (const store of [loaded, again]) store.dispose();
  });

  it('a header whose counts its notes do not hold is damage, found once every note is read', async () => {
    const specs = ['a', 'b'].map((name): NoteSpec => ({ name, sections: [{ text: name, tags: [] }], blank: 0, frontmatterError: false, blocks: false }));
    const { original, bytes, texts } = await saved(specs);
    original.dispose();
    const [header, ...lines] = bytes.toString('utf8').split('\n');
    const counted = JSON.parse(header!) as { chunks: number };
    const wrong = Buffer.from([JSON.stringify({ ...counted, chunks: counted.chunks + 1 }), ...lines].join('\n'));
    const loaded = await NoteStore.read(wrong, texts);
    assert.equal(loaded.note('a.md')?.path, 'a.md', 'a note reads as it is');
    await assert.rejects(loaded.readAll(), (error: Error) => error instanceof NoteStoreCorruptError && /notes\.jsonl:1: its header counts 1 chunks/.test(error.message));
    loaded.dispose();
  });
});

function byPath<T>(a: T, b: T): number {
  const pa = (a as { path: string }).path;
  const pb = (b as { path: string }).path;
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}
