// The outline cache (issue 16): chunks from a cached parse outline are exactly the chunks of a fresh parse, under any
// config; the cache survives the process, is dropped by a grammar/chunker version change, and spares a `[chunking]`
// change the parse.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CairnVault } from '../core/app/index.js';
import { NoteChunkerPool } from '../core/chunking/chunkerPool.js';
import { createChunker } from '../core/chunking/createChunker.js';
import { decodeOutline, encodeOutline } from '../core/chunking/outlineCodec.js';
import { ReusingOutliner } from '../core/chunking/reusingOutliner.js';
import { SafeOutliner } from '../core/chunking/safeOutliner.js';
import { BasicTokenCounter } from '../core/chunking/tokenCounter.js';
import { defaultConfig, type ChunkingConfig } from '../core/config/schema.js';
import { OUTLINE_CACHE_VERSION, OutlineCache, outlineCacheVersion, OUTLINES_DIR } from '../core/indexing/outlineCache.js';
import { CHUNKER_VERSION } from '../core/chunking/noteChunker.js';
import { OUTLINE_FORMAT } from '../core/chunking/outlineCodec.js';
import { GRAMMAR_VERSION, MarkdownOutliner } from '../core/parse/markdownTree.js';
import { scanVault } from '../core/vault/scanVault.js';
import { configArb, documentText } from './support/generatedDocuments.js';

const SAMPLE_VAULT = path.join(import.meta.dirname, '..', 'sample-vault');
const LOGSEQ_PAGE = `title:: Release notes
tags:: release

- ## Beta 0.10
  id:: 6523c1a0-0000-4000-8000-000000000001
  - Fixed the [[graph]] view #fix
    \`\`\`js
    # not a heading
    \`\`\`
- heading:: true
  Plain block heading
  - child one ((6523c1a0-0000-4000-8000-000000000001))
  - child two
    > quoted
    > - list in quote
`;

/** Chunks `text` under `config` twice: from a fresh parse, and from the outline another config's run cached. */
async function freshAndReused(text: string, first: ChunkingConfig, second: ChunkingConfig, window: number) {
  const tokens = new BasicTokenCounter(window);
  const note = { path: 'notes/doc.md', text, mtimeMs: 7 };
  const caching = new ReusingOutliner(await SafeOutliner.create());
  (await createChunker(first, tokens, caching)).chunk(note);
  const encoded = caching.parsed;
  const reusing = new ReusingOutliner(await SafeOutliner.create());
  reusing.cached = encoded;
  const reused = (await createChunker(second, tokens, reusing)).chunk(note);
  const fresh = (await createChunker(second, tokens)).chunk(note);
  // Not parsed again when there was an outline to reuse.
  if (encoded !== undefined) assert.equal(reusing.parsed, undefined);
  return { fresh, reused, encoded };
}

describe('chunks from a cached outline', { timeout: 300_000 }, () => {
  it('are exactly those of a fresh parse, over generated documents and any two configs', async () => {
    await fc.assert(
      fc.asyncProperty(documentText, configArb, configArb, async (text, a, b) => {
        const { fresh, reused } = await freshAndReused(text, a.config, b.config, b.window);
        assert.deepEqual(reused, fresh);
      }),
      { numRuns: 200 },
    );
  });

  it('are exactly those of a fresh parse on the sample vault and a Logseq page, under four configs', async () => {
    const { files } = await scanVault(SAMPLE_VAULT, defaultConfig().vault);
    const texts = [...(await Promise.all(files.map((f) => readFile(f.absPath, 'utf8')))), LOGSEQ_PAGE];
    const base = defaultConfig().chunking;
    const configs: ChunkingConfig[] = [base, { ...base, max_chunk_chars: 300, overlap_chars: 40 }, { ...base, min_chunk_chars: 0, include_parent_headers: false }, { ...base, strategy: 'none' }];
    let reusedNotes = 0;
    for (const text of texts) {
      for (const config of configs) {
        const { fresh, reused, encoded } = await freshAndReused(text, configs[0], config, 120);
        assert.deepEqual(reused, fresh);
        if (encoded) reusedNotes++;
      }
    }
    assert.equal(reusedNotes, texts.length * configs.length, 'every real note has an outline to reuse');
  });

  it('a damaged or foreign encoding is not used: the note is parsed', async () => {
    const text = '# A\n\n- one\n- two\n\n```\ncode\n```\n';
    const outline = (await MarkdownOutliner.create()).outline(text);
    const encoded = encodeOutline(outline);
    assert.deepEqual(decodeOutline(encoded, text.length), outline);
    assert.equal(decodeOutline(encoded.slice(0, -5), text.length), undefined, 'truncated');
    assert.equal(decodeOutline(encoded, 10), undefined, 'offsets beyond a shorter text');
    assert.equal(decodeOutline('{"a":1}', text.length), undefined);
    const reusing = new ReusingOutliner(await SafeOutliner.create());
    reusing.cached = encoded.slice(0, -5);
    assert.deepEqual(reusing.outline(text, 0).outline, outline);
    assert.equal(reusing.parsed, encoded, 'parsed, and kept for the cache');
  });

  it('through the chunk worker pool: the outline parsed in a worker is kept, and a worker chunks from it alike', async () => {
    const base = defaultConfig().chunking;
    const notes = Array.from({ length: 6 }, (_, i) => ({ path: `n${i}.md`, text: `# Note ${i}\n\n${'word '.repeat(200 * i + 5)}\n\n## Sub\n\n- [[link]] #tag\n`, mtimeMs: 1 }));
    const first = new NoteChunkerPool({ config: base, window: 510 }, 2);
    const outlines: string[] = [];
    try {
      await Promise.all(notes.map((note, i) => first.chunk(note, { keep: (encoded) => (outlines[i] = encoded) })));
    } finally {
      await first.close();
    }
    assert.equal(outlines.filter(Boolean).length, notes.length);
    const second = { ...base, max_chunk_chars: 300 };
    const pool = new NoteChunkerPool({ config: second, window: 510 }, 2);
    const inThread = await createChunker(second, new BasicTokenCounter(510));
    try {
      const kept: string[] = [];
      const results = await Promise.all(notes.map((note, i) => pool.chunk(note, { cached: outlines[i], keep: (encoded) => kept.push(encoded) })));
      results.forEach((result, i) => assert.deepEqual(result, inThread.chunk(notes[i])));
      assert.deepEqual(kept, [], 'nothing was parsed');
    } finally {
      await pool.close();
    }
  });
});

describe('OutlineCache', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-outlines-'));
  });
  after(() => rm(root, { recursive: true, force: true }));
  const hash = (n: number) => n.toString(16).padStart(64, '0');

  it('keeps outlines across instances; another version reads none and deletes the old files', async () => {
    const dir = path.join(root, 'versions');
    const cache = new OutlineCache(dir, 'v1');
    cache.put(hash(1), '[["paragraph"],[],[0,0,4,-1],[]]');
    assert.equal(await cache.get(hash(1)), '[["paragraph"],[],[0,0,4,-1],[]]', 'before the flush too');
    await cache.flush();
    assert.equal(await new OutlineCache(dir, 'v1').get(hash(1)), '[["paragraph"],[],[0,0,4,-1],[]]');
    assert.equal(await new OutlineCache(dir, 'v1').get(hash(2)), undefined);
    assert.equal(await new OutlineCache(dir, 'v2').get(hash(1)), undefined);
    assert.deepEqual(await readdir(dir), [], 'the v1 segment was deleted');
  });

  it('is a cache of this grammar, chunker and encoding: a change of any one is another version', () => {
    assert.equal(OUTLINE_CACHE_VERSION, outlineCacheVersion(GRAMMAR_VERSION, CHUNKER_VERSION, OUTLINE_FORMAT));
    const others = [outlineCacheVersion(`${GRAMMAR_VERSION}.1`, CHUNKER_VERSION, OUTLINE_FORMAT), outlineCacheVersion(GRAMMAR_VERSION, CHUNKER_VERSION + 1, OUTLINE_FORMAT), outlineCacheVersion(GRAMMAR_VERSION, CHUNKER_VERSION, OUTLINE_FORMAT + 1)];
    assert.equal(new Set([OUTLINE_CACHE_VERSION, ...others]).size, 4);
  });

  it('retain forgets outlines no longer indexed and compacts the files', async () => {
    const dir = path.join(root, 'retain');
    const cache = new OutlineCache(dir, 'v1');
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 600; i++) cache.put(hash(round * 1000 + i), `outline ${round} ${i}`);
      await cache.flush();
    }
    assert.equal((await readdir(dir)).length, 6);
    await cache.retain(new Set([hash(5), hash(2005)]));
    assert.equal((await readdir(dir)).length, 1, 'rewritten into one segment');
    const reopened = new OutlineCache(dir, 'v1');
    assert.equal(await reopened.get(hash(5)), 'outline 0 5');
    assert.equal(await reopened.get(hash(2005)), 'outline 2 5');
    assert.equal(await reopened.get(hash(6)), undefined);
  });

  it('a damaged segment is a miss, not a failure', async () => {
    const dir = path.join(root, 'damaged');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'v1-000000000000.seg'), 'COL1\xff\xff\xff\x7fgarbage');
    assert.equal(await new OutlineCache(dir, 'v1').get(hash(1)), undefined);
  });
});

describe('a [chunking] change', { timeout: 300_000 }, () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-rechunk-'));
    const vault = path.join(root, 'vault');
    const { files } = await scanVault(SAMPLE_VAULT, defaultConfig().vault);
    for (const file of files) {
      await mkdir(path.dirname(path.join(vault, file.path)), { recursive: true });
      await writeFile(path.join(vault, file.path), await readFile(file.absPath));
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  const open = (dataDir: string, maxChunkChars: number) => {
    const config = defaultConfig();
    config.vault.path = path.join(root, 'vault');
    config.index.data_dir = path.join(root, dataDir);
    config.chunking.max_chunk_chars = maxChunkChars;
    return CairnVault.open(config);
  };
  const chunksOf = (vault: CairnVault) => vault.snapshot().chunkIds;
  const segments = async (dataDir: string) => {
    const [vaultDir] = await readdir(path.join(root, dataDir, 'vaults'));
    return (await readdir(path.join(root, dataDir, 'vaults', vaultDir, OUTLINES_DIR))).sort();
  };

  it('rebuilds from the cached outlines (no note parsed again) into the chunks of a fresh index', async () => {
    const first = await open('data', 2000);
    await first.index();
    await first.close();
    const written = await segments('data');
    assert.ok(written.length > 0, 'outlines were cached');

    const changed = await open('data', 400);
    assert.match(changed.status().pendingRebuild ?? '', /chunking/, 'the config change asks for a rebuild');
    await changed.index();
    const rebuilt = chunksOf(changed);
    await changed.close();
    assert.deepEqual(await segments('data'), written, 'no outline was parsed and cached anew');

    const fresh = await open('fresh-data', 400);
    await fresh.index();
    const expected = chunksOf(fresh);
    await fresh.close();
    assert.deepEqual(rebuilt, expected);
    assert.notDeepEqual(rebuilt.length, 0);
  });
});
