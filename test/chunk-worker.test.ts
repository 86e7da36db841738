// The chunk worker thread: same chunks as in-thread chunking, and a worker that hangs or dies costs one note at most.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNoteChunker, NoteChunkerPool, WorkerNoteChunker } from '../core/chunking/chunkerPool.js';
import { createChunker } from '../core/chunking/createChunker.js';
import { BasicTokenCounter, ModelTokenCounter } from '../core/chunking/tokenCounter.js';
import { writeTinyModel } from '../scripts/models/make-tiny-model.js';
import { chunkingConfig, paragraph } from './support/chunking.js';

const note = (path: string, text: string) => ({ path, text, mtimeMs: 1 });

describe('WorkerNoteChunker', { timeout: 120_000 }, () => {
  it('gives exactly the chunks of the in-thread chunker, in request order', async () => {
    const config = chunkingConfig();
    const inThread = await createChunker(config, new BasicTokenCounter(510));
    const worker = new WorkerNoteChunker({ config, window: 510 });
    try {
      const texts = Array.from({ length: 6 }, (_, i) => `# Note ${i}\n\n${paragraph(40 * i + 1, i)}\n\n## Sub\n\n- [[link ${i}]] #tag${i}\n`);
      const results = await Promise.all(texts.map((text, i) => worker.chunk(note(`n${i}.md`, text))));
      texts.forEach((text, i) => assert.deepEqual(results[i], inThread.chunk(note(`n${i}.md`, text))));
    } finally {
      await worker.close();
    }
  });

  it('counts with the model’s own word-piece tokenizer in the worker, exactly as in this thread', async () => {
    // The tiny model with one vocabulary entry turned into a continuation piece: "cats" is cat + ##s.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cairn-wordpiece-'));
    try {
      await writeTinyModel(dir);
      const file = path.join(dir, 'tokenizer.json');
      const tokenizer = JSON.parse(await readFile(file, 'utf8'));
      const { bad: id, ...rest } = tokenizer.model.vocab;
      tokenizer.model.vocab = { ...rest, '##s': id };
      await writeFile(file, JSON.stringify(tokenizer));
      const tokens = await ModelTokenCounter.load(dir, 24);
      assert.equal(tokens.count('cats and dogs!'), 6);
      const config = chunkingConfig();
      const inThread = await createChunker(config, tokens);
      const worker = createNoteChunker(config, tokens);
      try {
        const text = `# Cats\n\n${'cats and dogs sit. '.repeat(40)}\n\n## More\n\n${paragraph(30, 2)}\n`;
        const fromWorker = await worker.chunk(note('cats.md', text));
        assert.deepEqual(fromWorker, inThread.chunk(note('cats.md', text)));
        assert.ok(fromWorker.chunks.length > 2 && fromWorker.chunks.every((c) => c.tokenCount <= 24));
      } finally {
        await worker.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a note that hangs its worker is retried as plain text, then fails by itself; the notes after it are chunked', async () => {
    // A 1 s limit that a 6 MB line cannot meet, even as plain text (about 5 s), stands in for a parser that never returns.
    const worker = new WorkerNoteChunker({ config: chunkingConfig(), window: 510 }, 1000);
    try {
      const slow = worker.chunk(note('slow.md', `# Slow\n\n${'granite stone '.repeat(430_000)}\n`)).then(
        () => 'chunked',
        (e: Error) => e.message,
      );
      const next = worker.chunk(note('next.md', '# Next\n\nshort\n'));
      assert.match(await slow, /^could not be chunked: no result after 1 s$/);
      assert.deepEqual((await next).chunks.map((c) => c.headerPath), [['Next']]);
    } finally {
      await worker.close();
    }
  });

  it('a note nested too deep comes back as plain text with a warning, and the worker goes on', async () => {
    const worker = new WorkerNoteChunker({ config: chunkingConfig(), window: 510 });
    try {
      const deep = await worker.chunk(note('deep.md', `# N\n\n${'- '.repeat(10_000)}deep item\n`));
      assert.match(deep.warning ?? '', /indexed as plain text/);
      const after = await worker.chunk(note('after.md', '# A\n\n- x\n  - y\n'));
      assert.equal(after.warning, undefined);
      assert.equal(after.chunks[0].headerPath[0], 'A');
    } finally {
      await worker.close();
    }
  });

  it('is closed cleanly: pending work is refused, the process is not held open', async () => {
    const worker = new WorkerNoteChunker({ config: chunkingConfig(), window: 510 });
    const pending = assert.rejects(worker.chunk(note('a.md', '# A\n\ntext\n')), /closed/);
    await worker.close();
    await pending;
    await assert.rejects(worker.chunk(note('b.md', 'b')), /closed/);
  });
});

describe('NoteChunkerPool', { timeout: 120_000 }, () => {
  it('spreads notes in flight over all its workers, each note with exactly the in-thread chunks; spare workers end when idle, the first one later', async () => {
    const config = chunkingConfig();
    const inThread = await createChunker(config, new BasicTokenCounter(510));
    const pool = new NoteChunkerPool({ config, window: 510 }, 2, 300, 2500);
    try {
      const texts = Array.from({ length: 8 }, (_, i) => `# Note ${i}\n\n${paragraph(60 * i + 1, i)}\n\n## Sub\n\n- [[link ${i}]] #tag${i}\n`);
      const chunking = Promise.all(texts.map((text, i) => pool.chunk(note(`n${i}.md`, text))));
      assert.equal(pool.running, 2, 'both workers took notes');
      const results = await chunking;
      texts.forEach((text, i) => assert.deepEqual(results[i], inThread.chunk(note(`n${i}.md`, text))));
      await sleep(1000);
      assert.equal(pool.running, 1, 'the spare worker ended; the first stays for the next edit');
      assert.equal((await pool.chunk(note('one.md', '# One\n\ntext\n'))).chunks.length, 1);
      assert.equal(pool.running, 1, 'a single note goes to the first worker');
      await sleep(3500);
      assert.equal(pool.running, 0, 'the first worker ended too, after its longer wait');
      assert.deepEqual(await pool.chunk(note('n3.md', texts[3]!)), inThread.chunk(note('n3.md', texts[3]!)), 'the next note starts a worker again');
      assert.equal(pool.running, 1);
    } finally {
      await pool.close();
    }
    assert.equal(pool.running, 0);
  });
});
