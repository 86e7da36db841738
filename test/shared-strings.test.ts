import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeHeapSnapshot } from 'node:v8';
import { CairnVault } from '../core/app/index.js';
import { defaultConfig } from '../core/config/schema.js';
import { SharedStrings } from '../core/process/sharedStrings.js';

async function open(vault: string, dataDir: string): Promise<CairnVault> {
  const config = defaultConfig();
  config.vault.path = vault;
  config.index.data_dir = dataDir;
  config.embedding.adapt = false;
  return CairnVault.open(config);
}

/** How many strings of the heap each text has (a heap snapshot lists every string object with its text). */
function copiesInHeap(file: string, wanted: (text: string) => boolean): Promise<Map<string, number>> {
  return readFile(file, 'utf8').then((json) => {
    const snapshot = JSON.parse(json) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
    const fields = snapshot.snapshot.meta.node_fields;
    const types = snapshot.snapshot.meta.node_types[0];
    const [typeAt, nameAt] = [fields.indexOf('type'), fields.indexOf('name')];
    const copies = new Map<string, number>();
    for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
      if (!types[snapshot.nodes[i + typeAt]!]!.endsWith('string')) continue;
      const text = snapshot.strings[snapshot.nodes[i + nameAt]!]!;
      if (wanted(text)) copies.set(text, (copies.get(text) ?? 0) + 1);
    }
    return copies;
  });
}

describe('shared strings', () => {
  it('counts each text longer than V8 shares by itself once, whoever asks first', () => {
    const strings = new SharedStrings();
    const id = ['notes/a.md', '#0@', 'c0ffee12'].join('');
    assert.equal(strings.of(id), id);
    assert.equal(strings.of(['notes/a.md#0', '@c0ffee12'].join('')), 'notes/a.md#0@c0ffee12');
    strings.of('notes/b.md#0@c0ffee12');
    // Ten characters or fewer: JSON.parse already gave every copy the one string.
    strings.of('examples');
    assert.equal(strings.size, 2);
  });
});

describe('an index loaded from disk keeps one copy of each chunk id, note path and link target', { timeout: 120_000 }, () => {
  let root: string;
  let vault: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-shared-ids-'));
    vault = path.join(root, 'vault');
    await mkdir(path.join(vault, 'zqx'), { recursive: true });
    for (let i = 0; i < 12; i++) {
      const sections = Array.from({ length: 3 }, (_, s) => `## Part ${s}\n\n${`Section ${s} of note ${i} is about topic${(i * 3 + s) % 11}. `.repeat(12)}`);
      await writeFile(path.join(vault, 'zqx', `shared-id-note-${i}.md`), `# Note ${i}\n\n${sections.join('\n\n')}\n\nSee [[shared-id-note-0]].\n`);
    }
    const first = await open(vault, path.join(root, 'data'));
    try {
      await first.index();
    } finally {
      await first.close();
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('among the note store, the keyword index, the vector index and the link graph', async () => {
    const opened = await open(vault, path.join(root, 'data'));
    try {
      // The index is loaded from its files (nothing changed on disk since they were saved): nothing to re-index.
      assert.equal(opened.status().pendingRebuild ?? null, null);
      const file = writeHeapSnapshot(process.env.KEEP_SNAPSHOT ?? path.join(root, 'heap.heapsnapshot'));
      // Chunk ids (`<note path>#<section>@<hash>`), note paths (the store's and the graph's), and link targets every
      // note repeats (longer than the 10 characters up to which V8 keeps one copy of a parsed string by itself).
      const copies = await copiesInHeap(file, (text) => text.startsWith('zqx/shared-id-note-') || (text.startsWith('shared-id-note-') && text.length === 16));
      const ids = [...copies.keys()].filter((text) => text.includes('#'));
      assert.ok(ids.length >= 12 * 3, `expected the ids of at least 36 chunks, found ${ids.length}`);
      // Built, not written out: a literal of the same text would be one more copy, in the compiled code.
      const expected = [['zqx/shared-id-note-', 7, '.md'], ['shared-id-note-', 0]].map((pieces) => pieces.join(''));
      assert.ok(expected.every((text) => copies.has(text)), [...copies.keys()].join(', '));
      const repeated = [...copies].filter(([, n]) => n > 1);
      assert.deepEqual(repeated, [], `strings held in more than one copy: ${repeated.slice(0, 4).map(([text, n]) => `${text} ×${n}`).join(', ')}`);
    } finally {
      await opened.close();
    }
  });
});
