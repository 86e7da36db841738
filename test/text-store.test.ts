// The note store keeps chunk texts on disk (core/indexing/textStore.ts): pending in memory until a save (past a budget
// in a scratch file, core/indexing/pendingTexts.ts), then read from the generation's text store; a save copies the
// saved texts into the next generation's; damage is detected.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NOTES_FILE, NoteStore, NoteStoreCorruptError, TEXTS_FILE, type NewNoteRecord } from '../core/indexing/noteStore.js';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { TextLineReader, TextStoreCorruptError, TextStoreReader, textsLine, type ChunkTexts } from '../core/indexing/textStore.js';
import { seededRandom } from '../core/random/seededRandom.js';

// Descriptors are listed in /proc on Linux; elsewhere the checks of open files are skipped.
const canSeeDescriptors = existsSync('/proc/self/fd');

function note(name: string, texts: Array<{ text: string; displayText?: string }>): NewNoteRecord {
  return {
    path: `${name}.md`,
    size: 1,
    mtimeMs: 1,
    textHash: name,
    title: name,
    aliases: [],
    tags: [],
    frontmatter: {},
    chunks: texts.map((t, index) => ({
      id: `${name}.md#${index}@abc`,
      index,
      headerPath: [name],
      level: 1,
      anchor: name,
      sub: null,
      start: 0,
      end: 1,
      startLine: index + 1,
      endLine: index + 1,
      tokenCount: 1,
      hash: `${name}${index}`,
      tags: ['#shared'],
      links: [],
      ...t,
    })),
  };
}

describe('the text store of the note store', () => {
  let root: string;
  before(async () => (root = await mkdtemp(path.join(os.tmpdir(), 'cairn-text-store-'))));
  after(() => rm(root, { recursive: true, force: true }));

  const textsOf = async (store: NoteStore, notePath: string) => store.texts(store.note(notePath)!.chunks);

  it('pending texts read from memory; after a save, from the generation file; later saves copy them forward', async () => {
    const store = new NoteStore();
    store.put(note('a', [{ text: 'alpha one' }, { text: 'key:: v\nalpha two', displayText: '\nalpha two' }, { text: '-' }]));
    assert.deepEqual(await textsOf(store, 'a.md'), [{ text: 'alpha one' }, { text: 'key:: v\nalpha two', displayText: '\nalpha two' }, { text: '-' }]);
    assert.deepEqual(store.note('a.md')!.chunks.map((c) => c.blank === true), [false, false, true], 'a chunk with nothing to show is marked');
    assert.equal(store.note('a.md')!.chunks[0].tags, store.note('a.md')!.chunks[1].tags, 'tag lists are shared');

    const g1 = path.join(root, 'g1');
    const first = await store.save(g1);
    first.commit();
    assert.ok(store.note('a.md')!.chunks.every((c) => c.textAt >= 0 && !('text' in c)), 'saved chunks hold a place, not their text');
    assert.deepEqual(await textsOf(store, 'a.md'), [{ text: 'alpha one' }, { text: 'key:: v\nalpha two', displayText: '\nalpha two' }, { text: '-' }]);

    // A live update: searchable at once, from memory; a read begun before the next save's commit reads g1 whole.
    store.put(note('b', [{ text: 'beta ünïcödé 🙂' }]));
    assert.deepEqual(await textsOf(store, 'b.md'), [{ text: 'beta ünïcödé 🙂' }]);
    const g2 = path.join(root, 'g2');
    const second = await store.save(g2);
    const during = textsOf(store, 'a.md');
    second.commit();
    assert.deepEqual((await during).map((t) => t.text), ['alpha one', 'key:: v\nalpha two', '-']);
    await rm(g1, { recursive: true });
    assert.deepEqual(await textsOf(store, 'b.md'), [{ text: 'beta ünïcödé 🙂' }]);
    assert.deepEqual((await textsOf(store, 'a.md')).map((t) => t.text), ['alpha one', 'key:: v\nalpha two', '-']);

    const loaded = await NoteStore.read(await readFile(path.join(g2, NOTES_FILE)), path.join(g2, TEXTS_FILE));
    assert.deepEqual(await textsOf(loaded, 'b.md'), [{ text: 'beta ünïcödé 🙂' }]);
    assert.deepEqual(await textsOf(loaded, 'a.md'), await textsOf(store, 'a.md'));
    assert.equal(loaded.note('a.md')!.chunks[2].blank, true);
  });

  it('tells a record it holds already (put, or saved and read back) from one that differs in any stored field', async () => {
    const record = () => note('h', [{ text: 'first', displayText: 'first shown' }, { text: '-' }]);
    const store = new NoteStore();
    assert.equal(store.holds(record()), false, 'not put yet');
    store.put(record());
    assert.equal(store.holds(record()), true);
    const g = path.join(root, 'g-holds');
    (await store.save(g)).commit();
    const loaded = await NoteStore.read(await readFile(path.join(g, NOTES_FILE)), path.join(g, TEXTS_FILE));
    for (const held of [store, loaded]) {
      assert.equal(held.holds(record()), true, 'the same record, its texts saved');
      const changed = [
        (r: NewNoteRecord) => (r.mtimeMs = 2),
        (r: NewNoteRecord) => (r.frontmatter = { status: 'draft' }),
        (r: NewNoteRecord) => (r.chunks[1].endLine = 9),
        (r: NewNoteRecord) => (r.chunks[0].headerPath = ['h', 'sub']),
        (r: NewNoteRecord) => (r.chunks[0].hash = 'other'),
        (r: NewNoteRecord) => r.chunks.pop(),
      ];
      for (const change of changed) {
        const other = record();
        change(other);
        assert.equal(held.holds(other), false, String(change));
      }
    }
  });

  it('keeps no links on stored chunks (the link graph has them), in memory or on disk, and drops those of an older store', async () => {
    const store = new NoteStore();
    const record = note('l', [{ text: 'see [[other]]' }]);
    record.chunks[0].links = [{ kind: 'wikilink', target: 'other', start: 4, end: 13 }];
    store.put(record);
    assert.ok(!('links' in store.note('l.md')!.chunks[0]));
    assert.equal(record.chunks[0].links.length, 1, 'the record handed over keeps its links for the graph');
    const dir = path.join(root, 'links');
    (await store.save(dir)).commit();
    const lines = (await readFile(path.join(dir, NOTES_FILE), 'utf8')).trim().split('\n');
    assert.ok(!lines[1].includes('"links"'), 'none written');
    // A notes file written when every chunk kept its links.
    const older = JSON.parse(lines[1]);
    older.chunks[0].links = [{ kind: 'wikilink', target: 'other', start: 4, end: 13 }];
    const loaded = await NoteStore.read(Buffer.from(`${lines[0]}\n${JSON.stringify(older)}\n`), path.join(dir, TEXTS_FILE));
    assert.ok(!('links' in loaded.note('l.md')!.chunks[0]));
    assert.deepEqual(await textsOf(loaded, 'l.md'), [{ text: 'see [[other]]' }]);
  });

  it('a text store damaged under an open index throws TextStoreCorruptError when read; a notes file without text places is corrupt', async () => {
    const store = new NoteStore();
    store.put(note('c', [{ text: 'gamma' }, { text: 'delta' }]));
    const gen = path.join(root, 'g3');
    (await store.save(gen)).commit();
    const texts = path.join(gen, TEXTS_FILE);
    const bytes = await readFile(texts);
    bytes[0] = 0x7b; // `{`: the line no longer decodes
    await writeFile(texts, bytes);
    await assert.rejects(textsOf(store, 'c.md'), TextStoreCorruptError);
    await writeFile(texts, bytes.subarray(0, 3));
    await assert.rejects(textsOf(store, 'c.md'), TextStoreCorruptError);

    // Its notes are parsed when first asked for: the damage is reported then, naming the line.
    const notes = (await readFile(path.join(gen, NOTES_FILE), 'utf8')).replace(/"textAt":\d+,/, '');
    const loaded = await NoteStore.read(Buffer.from(notes), texts);
    assert.throws(() => loaded.note('c.md'), (error: Error) => error instanceof NoteStoreCorruptError && /notes\.jsonl:2: a chunk without the place of its texts/.test(error.message));
    await assert.rejects(NoteStore.read(Buffer.from(notes), texts).then((again) => again.readAll()), NoteStoreCorruptError);
    // A notes file of an earlier version (no counts in its header) is parsed whole, and so rejected at once.
    const [, ...noteLines] = notes.split('\n');
    await assert.rejects(NoteStore.read(Buffer.from([JSON.stringify({ failures: {} }), ...noteLines].join('\n')), texts), NoteStoreCorruptError);
  });
});

describe('a text store read through one held file', () => {
  let root: string;
  before(async () => (root = await mkdtemp(path.join(os.tmpdir(), 'cairn-text-reader-'))));
  after(() => rm(root, { recursive: true, force: true }));

  /** A text store file of these texts and each one's place in it. */
  async function storeOf(file: string, texts: string[]) {
    const lines = texts.map((text) => textsLine({ text }));
    const places = lines.map((line, i) => ({ at: lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0), bytes: line.length }));
    await writeFile(file, Buffer.concat(lines.flatMap((line) => [line, Buffer.from('\n')])));
    return places;
  }
  // Which of this process's descriptors have `file` open (Linux lists them in /proc; elsewhere not checked).
  const openCount = (file: string) => readdirSync('/proc/self/fd').filter((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`) === file; } catch { return false; } }).length;

  it('reads stay on one handle, closed once retired after the reads in flight; a later read opens and closes it again', async () => {
    const file = path.join(root, 'held.texts.jsonl');
    const places = await storeOf(file, ['one', 'twö 🙂', 'three']);
    const reader = new TextStoreReader(file);
    assert.deepEqual(await reader.read([places[2]!, places[0]!]), [{ text: 'three' }, { text: 'one' }]);
    if (canSeeDescriptors) assert.equal(openCount(file), 1, 'held between reads');
    await Promise.all([reader.read([places[1]!]), reader.read(places)]);
    if (canSeeDescriptors) assert.equal(openCount(file), 1, 'one handle for every read');
    const inFlight = reader.read(places);
    reader.retire();
    assert.deepEqual((await inFlight).map((t) => t.text), ['one', 'twö 🙂', 'three'], 'a read in flight when retired completes');
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (canSeeDescriptors) assert.equal(openCount(file), 0, 'closed once retired');
    assert.deepEqual(await reader.read([places[1]!]), [{ text: 'twö 🙂' }], 'a read after retiring still reads');
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (canSeeDescriptors) assert.equal(openCount(file), 0, 'and closes again');
  });

  it('a held reader keeps its file open until retired, and reads it after the file is deleted', async () => {
    const file = path.join(root, 'deleted.texts.jsonl');
    const places = await storeOf(file, ['kept', 'after deletion']);
    const reader = new TextStoreReader(file);
    reader.hold();
    await reader.read([places[0]!]);
    await new Promise((resolve) => setTimeout(resolve, 2300));
    if (canSeeDescriptors) assert.equal(openCount(file), 1, 'still open after a quiet spell');
    await rm(file);
    assert.deepEqual(await reader.read(places), [{ text: 'kept' }, { text: 'after deletion' }], 'a deleted file is read through the held handle');
    const { handle, release } = await reader.borrow();
    assert.ok(handle, 'a save borrows the same handle');
    reader.retire();
    const line = new TextLineReader(file, handle);
    assert.equal((await line.line(places[1]!)).toString(), textsLine({ text: 'after deletion' }).toString(), 'and copies the texts of a deleted file');
    await line.close();
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (canSeeDescriptors) assert.ok(!readdirSync('/proc/self/fd').some((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`).startsWith(file); } catch { return false; } }), 'closed once retired and released');
  });

  it('a file that cannot be opened fails the read with its reason, and a later read tries again', async () => {
    const file = path.join(root, 'later.texts.jsonl');
    const reader = new TextStoreReader(file);
    await assert.rejects(reader.read([{ at: 0, bytes: 3 }]), { code: 'ENOENT' });
    const places = await storeOf(file, ['found']);
    assert.deepEqual(await reader.read(places), [{ text: 'found' }]);
    reader.retire();
  });
});

const PIECES = ['alpha', 'ünïcödé', '🙂', 'line\nbreak', '"quoted"', '\\', '[[link]]', 'key:: value', '\t', 'omega'];

function textOf(random: () => number): string {
  const words = 1 + Math.floor(random() * 40);
  return Array.from({ length: words }, () => PIECES[Math.floor(random() * PIECES.length)]).join(' ');
}

// Descriptors of this process open on an unlinked scratch file (Linux lists them in /proc; elsewhere not checked).
const openScratch = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return /\.pending-texts-/.test(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      return false;
    }
  }).length;

/** Scratch descriptors open once the closes begun have had a moment (a close completes on the I/O threads). */
async function openScratchSettled(): Promise<number> {
  for (let wait = 0; wait < 50 && openScratch() > 0; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
  return openScratch();
}

describe('pending texts past the budget', () => {
  let root: string;
  before(async () => (root = await mkdtemp(path.join(os.tmpdir(), 'cairn-pending-texts-'))));
  after(() => rm(root, { recursive: true, force: true }));

  it('wait in a scratch file that leaves nothing on disk, read back as put, saved, and closed once saved', async () => {
    const scratch = path.join(root, 'index');
    const store = new NoteStore(undefined, scratch, 200);
    const random = seededRandom(7);
    const expected = new Map<string, ChunkTexts[]>();
    for (let n = 0; n < 60; n++) {
      const texts = Array.from({ length: 3 }, (_, i): ChunkTexts => (i === 1 ? { text: textOf(random), displayText: textOf(random) } : { text: textOf(random) }));
      store.put(note(`n${n}`, texts));
      expected.set(`n${n}.md`, texts);
    }
    await store.pendingSettled();
    const { count, charsHeld, inScratch } = store.pendingTexts;
    assert.equal(count, 180);
    assert.ok(inScratch > 150, `most texts wait in the scratch file (${inScratch})`);
    assert.ok(charsHeld <= 200, `at most the budget is held in memory (${charsHeld} characters)`);
    assert.deepEqual(await readdir(scratch), [], 'the scratch file has no name on disk');
    if (canSeeDescriptors) assert.equal(openScratch(), 1);
    for (const [notePath, texts] of expected) assert.deepEqual(await store.texts(store.note(notePath)!.chunks), texts, notePath);

    const gen = path.join(root, 'g1');
    (await store.save(gen)).commit();
    assert.deepEqual(store.pendingTexts, { count: 0, charsHeld: 0, inScratch: 0 });
    if (canSeeDescriptors) assert.equal(await openScratchSettled(), 0, 'the scratch file is closed once nothing in it is pending');
    const loaded = await NoteStore.read(await readFile(path.join(gen, NOTES_FILE)), path.join(gen, TEXTS_FILE));
    for (const [notePath, texts] of expected) assert.deepEqual(await loaded.texts(loaded.note(notePath)!.chunks), texts, notePath);
  });

  it('read back as put through puts, replacements, deletes and saves interleaved (seeded runs)', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const random = seededRandom(seed);
      const store = new NoteStore(undefined, path.join(root, `run${seed}`), 50 + Math.floor(random() * 400));
      const expected = new Map<string, ChunkTexts[]>();
      let saving: Promise<{ commit: () => void }> | undefined;
      let generation = 0;
      const check = async (step: number) => {
        for (const [notePath, texts] of expected) assert.deepEqual(await store.texts(store.note(notePath)!.chunks), texts, `seed ${seed} step ${step}: ${notePath}`);
      };
      for (let step = 0; step < 150; step++) {
        const roll = random();
        const name = `n${Math.floor(random() * 25)}`;
        if (roll < 0.6) {
          const texts = Array.from({ length: 1 + Math.floor(random() * 4) }, (): ChunkTexts => (random() < 0.2 ? { text: textOf(random), displayText: textOf(random) } : { text: textOf(random) }));
          store.put(note(name, texts));
          expected.set(`${name}.md`, texts);
        } else if (roll < 0.75) {
          store.delete(`${name}.md`);
          expected.delete(`${name}.md`);
        } else if (roll < 0.85 && !saving) {
          saving = store.save(path.join(root, `run${seed}`, `g${++generation}`));
        } else if (saving) {
          (await saving).commit();
          saving = undefined;
        }
        if (random() < 0.3) await store.pendingSettled();
        if (random() < 0.2) await check(step);
      }
      if (saving) (await saving).commit();
      await store.pendingSettled();
      await check(150);
      const last = path.join(root, `run${seed}`, 'last');
      (await store.save(last)).commit();
      assert.equal(store.pendingTexts.count, 0);
      const loaded = await NoteStore.read(await readFile(path.join(last, NOTES_FILE)), path.join(last, TEXTS_FILE));
      for (const [notePath, texts] of expected) assert.deepEqual(await loaded.texts(loaded.note(notePath)!.chunks), texts, `seed ${seed}, reloaded: ${notePath}`);
      assert.deepEqual([...loaded.paths()].sort(), [...expected.keys()].sort());
      store.dispose();
    }
    if (canSeeDescriptors) assert.equal(await openScratchSettled(), 0, 'every scratch file is closed');
  });

  it('stay in memory when the scratch folder cannot be made, and none is lost', async () => {
    const blocked = path.join(root, 'g1', NOTES_FILE, 'below-a-file');
    const store = new NoteStore(undefined, blocked, 10);
    const texts = [{ text: 'one two three four' }, { text: 'five six seven eight' }];
    store.put(note('a', texts));
    store.put(note('b', texts));
    await store.pendingSettled();
    assert.equal(store.pendingTexts.inScratch, 0);
    assert.deepEqual(await store.texts(store.note('b.md')!.chunks), texts);
  });
});
