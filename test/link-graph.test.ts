import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LinkGraph, LinkGraphCorruptError, type GraphNote } from '../core/indices/graph/linkGraph.js';
import type { LinkKind, NoteLink } from '../core/parse/links.js';

type LinkSpec = string | { kind: LinkKind; target: string };

function note(path: string, links: LinkSpec[] = [], extra: { title?: string; aliases?: string[] } = {}): GraphNote {
  const noteLinks: NoteLink[] = links.map((spec) => {
    const { kind, target } = typeof spec === 'string' ? { kind: 'wikilink' as const, target: spec } : spec;
    return { kind, target, start: 0, end: 0 };
  });
  const base = path.split('/').at(-1)!.replace(/\.md$/, '');
  return { path, title: extra.title ?? base, aliases: extra.aliases ?? [], links: noteLinks };
}

/** The graph's file as it is written, and the graph read back from it. */
async function savedText(graph: LinkGraph): Promise<string> {
  let text = '';
  for await (const piece of graph.lines()) text += piece;
  return text;
}
const reloaded = async (graph: LinkGraph) => LinkGraph.read(Buffer.from(await savedText(graph)));

function graphOf(notes: GraphNote[]): LinkGraph {
  const graph = LinkGraph.create();
  for (const n of notes) graph.upsertNote(n);
  return graph;
}

describe('resolution', () => {
  const graph = graphOf([
    note('Note.md'),
    note('Folder/Note.md'),
    note('Folder/Sub/Deep.md'),
    note('Other/Deep.md'),
    note('A/B/Shared.md'),
    note('C/Shared.md'),
    note('X/Y/Z/Shared.md'),
    note('Projects/Plan.md', [], { aliases: ['Roadmap', 'The Plan'] }),
    note('pages/my_page.md', [], { title: 'My Page' }),
    note('lang.python.data.md'),
    note('lang.python.md'),
    note('Café.md'),
  ]);

  test('vault-relative path with or without .md', () => {
    assert.equal(graph.resolve('Folder/Note', 'x.md'), 'Folder/Note.md');
    assert.equal(graph.resolve('Folder/Note.md', 'x.md'), 'Folder/Note.md');
    assert.equal(graph.resolve('/Folder/Note', 'x.md'), 'Folder/Note.md');
  });

  test('an exact path wins over a base-name match elsewhere', () => {
    assert.equal(graph.resolve('Note', 'Folder/x.md'), 'Note.md');
  });

  test('case-insensitive, and Unicode-normalised', () => {
    assert.equal(graph.resolve('folder/note', 'x.md'), 'Folder/Note.md');
    assert.equal(graph.resolve('DEEP', 'Folder/Sub/x.md'), 'Folder/Sub/Deep.md');
    assert.equal(graph.resolve('Cafe\u0301', 'x.md'), 'Café.md');
  });

  test('base name: the note whose path matches more of the target', () => {
    assert.equal(graph.resolve('B/Shared', 'C/x.md'), 'A/B/Shared.md');
    assert.equal(graph.resolve('Sub/Deep', 'Other/x.md'), 'Folder/Sub/Deep.md');
  });

  test('base name: then the note closest to the linking note', () => {
    assert.equal(graph.resolve('Shared', 'C/x.md'), 'C/Shared.md');
    assert.equal(graph.resolve('Shared', 'A/B/x.md'), 'A/B/Shared.md');
    assert.equal(graph.resolve('Shared', 'A/x.md'), 'A/B/Shared.md');
    assert.equal(graph.resolve('Shared', 'X/Y/Z/W/x.md'), 'X/Y/Z/Shared.md');
    assert.equal(graph.resolve('Deep', 'Other/x.md'), 'Other/Deep.md');
  });

  test('base name: then the shortest path', () => {
    assert.equal(graph.resolve('Shared', 'x.md'), 'C/Shared.md');
  });

  test('alias and title', () => {
    assert.equal(graph.resolve('Roadmap', 'x.md'), 'Projects/Plan.md');
    assert.equal(graph.resolve('the plan', 'x.md'), 'Projects/Plan.md');
    assert.equal(graph.resolve('My Page', 'x.md'), 'pages/my_page.md');
  });

  test('Dendron hierarchy names resolve by base name', () => {
    assert.equal(graph.resolve('lang.python', 'x.md'), 'lang.python.md');
    assert.equal(graph.resolve('lang.python.data', 'x.md'), 'lang.python.data.md');
    assert.equal(graph.resolve('lang', 'x.md'), undefined);
  });

  test('Markdown links are relative to the linking note', () => {
    const md = (target: string, from: string) => graph.resolve(target, from, 'markdown');
    assert.equal(md('Note.md', 'Folder/x.md'), 'Folder/Note.md');
    assert.equal(md('../Note.md', 'Folder/Sub/x.md'), 'Folder/Note.md');
    assert.equal(md('./Deep.md', 'Folder/Sub/x.md'), 'Folder/Sub/Deep.md');
    assert.equal(md('Sub/Deep.md', 'Folder/x.md'), 'Folder/Sub/Deep.md');
    assert.equal(md('/Note.md', 'Folder/x.md'), 'Note.md');
    // Not found relative to the note: resolved like a wikilink.
    assert.equal(md('Plan.md', 'Folder/x.md'), 'Projects/Plan.md');
  });

  test('wikilinks with ./ and ../ are relative too', () => {
    assert.equal(graph.resolve('../Note', 'Folder/Sub/x.md'), 'Folder/Note.md');
  });

  test('nothing to resolve', () => {
    assert.equal(graph.resolve('Missing', 'x.md'), undefined);
    assert.equal(graph.resolve('', 'x.md'), undefined);
    assert.equal(graph.resolve('diagram.png', 'x.md'), undefined);
  });
});

describe('edges', () => {
  test('outgoing, backlinks, neighbours, unresolved', () => {
    const graph = graphOf([
      note('A.md', ['B', 'B', 'C', { kind: 'embed', target: 'image.png' }, 'Missing', '', 'A']),
      note('B.md', ['A', { kind: 'markdown', target: 'C.md' }]),
      note('C.md'),
    ]);
    assert.deepEqual(graph.outgoing('A.md'), ['B.md', 'C.md', 'A.md']);
    assert.deepEqual(graph.unresolved('A.md'), ['image.png', 'Missing']);
    assert.deepEqual(graph.backlinks('C.md'), ['A.md', 'B.md']);
    assert.deepEqual(graph.backlinks('A.md'), ['A.md', 'B.md']);
    assert.deepEqual(graph.neighbours('A.md'), ['B.md', 'C.md']);
    assert.deepEqual(graph.neighbours('C.md'), ['A.md', 'B.md']);
    assert.equal(graph.noteCount, 3);
    assert.deepEqual(graph.outgoing('nope.md'), []);
  });

  test('unresolved becomes resolved when the note appears, and unresolved again when it goes', () => {
    const graph = graphOf([note('A.md', ['X', 'Sub/X']), note('B.md', ['x'])]);
    assert.deepEqual(graph.unresolved('A.md'), ['X', 'Sub/X']);
    graph.upsertNote(note('E/X.md'));
    assert.deepEqual(graph.outgoing('A.md'), ['E/X.md']);
    assert.deepEqual(graph.unresolved('A.md'), []);
    assert.deepEqual(graph.backlinks('E/X.md'), ['A.md', 'B.md']);

    // A better match for "Sub/X" appears: only that link moves.
    graph.upsertNote(note('Sub/X.md'));
    assert.deepEqual(graph.outgoing('A.md'), ['E/X.md', 'Sub/X.md']);
    assert.deepEqual(graph.backlinks('Sub/X.md'), ['A.md']);

    graph.removeNote('E/X.md');
    // "X" now resolves to the remaining X.
    assert.deepEqual(graph.outgoing('A.md'), ['Sub/X.md']);
    assert.deepEqual(graph.backlinks('E/X.md'), []);
    graph.removeNote('Sub/X.md');
    assert.deepEqual(graph.outgoing('A.md'), []);
    assert.deepEqual(graph.unresolved('A.md'), ['X', 'Sub/X']);
    assert.deepEqual(graph.unresolved('B.md'), ['x']);
  });

  test('an alias added or removed by an update re-resolves links to it', () => {
    const graph = graphOf([note('A.md', ['Nickname']), note('B.md')]);
    assert.deepEqual(graph.unresolved('A.md'), ['Nickname']);
    graph.upsertNote(note('B.md', [], { aliases: ['Nickname'] }));
    assert.deepEqual(graph.outgoing('A.md'), ['B.md']);
    graph.upsertNote(note('B.md'));
    assert.deepEqual(graph.outgoing('A.md'), []);
    assert.deepEqual(graph.backlinks('B.md'), []);
  });

  test('updating a note replaces its links', () => {
    const graph = graphOf([note('A.md', ['B']), note('B.md'), note('C.md')]);
    graph.upsertNote(note('A.md', ['C']));
    assert.deepEqual(graph.outgoing('A.md'), ['C.md']);
    assert.deepEqual(graph.backlinks('B.md'), []);
    assert.deepEqual(graph.backlinks('C.md'), ['A.md']);
  });

  test('rename = remove + add', () => {
    const graph = graphOf([note('A.md', ['Old']), note('Old.md', ['A'])]);
    graph.removeNote('Old.md');
    graph.upsertNote(note('New.md', ['A']));
    assert.deepEqual(graph.unresolved('A.md'), ['Old']);
    assert.deepEqual(graph.backlinks('A.md'), ['New.md']);
    assert.equal(graph.noteCount, 2);
    // The user fixes the link.
    graph.upsertNote(note('A.md', ['New']));
    assert.deepEqual(graph.neighbours('A.md'), ['New.md']);
  });

  test('removing a note that is not there is a no-op', () => {
    const graph = graphOf([note('A.md')]);
    graph.removeNote('B.md');
    assert.equal(graph.noteCount, 1);
  });
});

describe('serialisation', () => {
  test('file round trip: a header line, then the notes in lines of a thousand', async () => {
    const graph = graphOf([
      note('A.md', ['B', 'Missing', { kind: 'markdown', target: '../Up.md' }]),
      note('dir/B.md', ['A', { kind: 'markdown', target: '../Up.md' }], { aliases: ['Bee'] }),
      note('Up.md', ['Bee']),
    ]);
    const loaded = await reloaded(graph);
    assert.equal(loaded.noteCount, graph.noteCount);
    for (const path of ['A.md', 'dir/B.md', 'Up.md']) {
      assert.deepEqual(loaded.outgoing(path), graph.outgoing(path), path);
      assert.deepEqual(loaded.backlinks(path), graph.backlinks(path), path);
      assert.deepEqual(loaded.unresolved(path), graph.unresolved(path), path);
    }
    // Still live after loading.
    loaded.upsertNote(note('Missing.md'));
    assert.deepEqual(loaded.outgoing('A.md'), ['dir/B.md', 'Missing.md']);
  });

  test('a large graph is written a thousand notes a line and reads back whole', async () => {
    const graph = graphOf(Array.from({ length: 2500 }, (_, i) => note(`n${i}.md`, [`n${(i + 1) % 2500}`])));
    const lines = (await savedText(graph)).split('\n').filter(Boolean);
    assert.deepEqual(lines.map((line) => (JSON.parse(line) as unknown[]).length ?? 'header'), ['header', 1000, 1000, 500]);
    const loaded = await reloaded(graph);
    assert.equal(loaded.noteCount, 2500);
    assert.deepEqual(loaded.backlinks('n0.md'), ['n2499.md']);
  });

  test('corrupt input throws LinkGraphCorruptError', async () => {
    // A version 2 file: one JSON document (still read).
    const good = { format: 'cairn-link-graph', version: 2, notes: [{ path: 'A.md', title: 'A', aliases: [], links: [{ kind: 'wikilink', target: 'B' }] }] };
    const [header, notes] = (await savedText(graphOf([note('A.md', ['B']), note('B.md')]))).split('\n');
    const corrupt = [
      '',
      '{',
      '{}',
      'null',
      JSON.stringify({ ...good, version: 4 }),
      `${header}\n`,
      `${header}\n${notes}\n${notes}\n`,
      `${header}\n{"path":"A.md"}\n`,
      `${JSON.stringify({ ...JSON.parse(header!), notes: 3 })}\n${notes}\n`,
      JSON.stringify({ ...good, notes: [{ path: 1 }] }),
      JSON.stringify({ ...good, notes: [...good.notes, ...good.notes] }),
      JSON.stringify({ ...good, notes: [{ path: 'A.md', title: 'A', aliases: [], links: [{ kind: 'wikilink', target: 'B', dest: 7 }] }] }),
      JSON.stringify({ ...good, notes: [{ path: 'A.md', title: 'A', aliases: [], links: [{ kind: 'url', target: 'B' }] }] }),
    ];
    for (const text of corrupt) {
      await assert.rejects(LinkGraph.read(Buffer.from(text)), LinkGraphCorruptError, text);
    }
  });
});

describe('property: incremental updates equal a fresh build', () => {
  const PATHS = ['A.md', 'B.md', 'dir/A.md', 'dir/C.md', 'x/y/B.md', 'C.md'];
  const TARGETS = ['A', 'B', 'C', 'dir/A', 'y/B', 'Alias1', 'Missing', 'dir/C.md'];
  const noteArb = fc.record({
    path: fc.constantFrom(...PATHS),
    links: fc.array(fc.constantFrom(...TARGETS), { maxLength: 4 }),
    aliases: fc.array(fc.constantFrom('Alias1', 'Alias2'), { maxLength: 1 }),
  });
  const opArb = fc.oneof(noteArb.map((n) => ({ kind: 'upsert' as const, ...n })), fc.constantFrom(...PATHS).map((path) => ({ kind: 'remove' as const, path })));

  test('outgoing, backlinks and unresolved match a graph built from the final notes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), async (ops) => {
        const graph = LinkGraph.create();
        const current = new Map<string, GraphNote>();
        for (const op of ops) {
          if (op.kind === 'upsert') {
            const n = note(op.path, op.links, { aliases: op.aliases });
            graph.upsertNote(n);
            current.set(op.path, n);
          } else {
            graph.removeNote(op.path);
            current.delete(op.path);
          }
        }
        const fresh = graphOf([...current.values()]);
        const loaded = await reloaded(graph);
        assert.equal(graph.noteCount, current.size);
        for (const path of PATHS) {
          for (const g of [graph, loaded]) {
            assert.deepEqual(g.outgoing(path), fresh.outgoing(path));
            assert.deepEqual(g.backlinks(path), fresh.backlinks(path));
            assert.deepEqual(g.unresolved(path), fresh.unresolved(path));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('property: a graph read back changes like the graph it was saved from', () => {
  const PATHS = ['A.md', 'B.md', 'dir/A.md', 'dir/C.md', 'x/y/B.md', 'C.md'];
  const TARGETS = ['A', 'B', 'C', 'dir/A', 'y/B', 'Alias1', 'Missing', 'dir/C.md'];
  const opArb = fc.oneof(
    fc.record({ path: fc.constantFrom(...PATHS), links: fc.array(fc.constantFrom(...TARGETS), { maxLength: 4 }), aliases: fc.array(fc.constantFrom('Alias1', 'Alias2'), { maxLength: 1 }) }),
    fc.record({ removed: fc.constantFrom(...PATHS) }),
  );
  const apply = (graph: LinkGraph, op: { path: string; links: string[]; aliases: string[] } | { removed: string }) =>
    'removed' in op ? graph.removeNote(op.removed) : graph.upsertNote(note(op.path, op.links, { aliases: op.aliases }));

  // Read, a graph files its links under their keys only later (keyLinks) or when first changed or asked to resolve.
  test('with its links keyed first or not, later changes and lookups give the same answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 15 }), fc.array(opArb, { maxLength: 15 }), fc.boolean(), async (before, after, keyFirst) => {
        const graph = LinkGraph.create();
        for (const op of before) apply(graph, op);
        const loaded = await reloaded(graph);
        if (keyFirst) await loaded.keyLinks();
        for (const op of after) {
          apply(graph, op);
          apply(loaded, op);
        }
        for (const path of PATHS) {
          assert.deepEqual(loaded.outgoing(path), graph.outgoing(path));
          assert.deepEqual(loaded.backlinks(path), graph.backlinks(path));
          assert.deepEqual(loaded.unresolved(path), graph.unresolved(path));
          for (const target of TARGETS) assert.equal(loaded.resolve(target, path), graph.resolve(target, path));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('keying a large graph read back takes turns, and a change meanwhile finishes it first', async () => {
    const count = 60_000;
    const notes = Array.from({ length: count }, (_, i) => note(`n/${i}.md`, [`${(i * 7) % count}`, `${(i * 13) % count}`, 'Missing']));
    const loaded = await reloaded(graphOf(notes));
    let keyed = false;
    const keying = loaded.keyLinks().then(() => (keyed = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(keyed, false, 'keying 60,000 notes takes more than one turn');
    loaded.upsertNote(note('Missing.md'));
    await keying;
    assert.equal(loaded.backlinks('Missing.md').length, count, 'every link to it, keyed or not yet when it came, now resolves to it');
    assert.deepEqual(loaded.resolve('1', 'n/5.md'), 'n/1.md');
  });
});

describe('Logseq pages: namespaces and block references', () => {
  const UUID_A = '6565aaaa-1111-4222-8333-944444444444';
  test('[[a/b]] finds the page titled a/b (file a___b.md or a%2Fb.md), over a file merely named b elsewhere', () => {
    const graph = graphOf([
      note('pages/Whiteboard___Object___iFrame.md', [], { title: 'Whiteboard/Object/iFrame' }),
      note('pages/iFrame.md'),
      note('pages/lang%2Fpython.md', [], { title: 'lang/python' }),
      note('other/python.md'),
      note('real/folder/Doc.md'),
      note('pages/folder___Doc.md', [], { title: 'folder/Doc' }),
    ]);
    assert.equal(graph.resolve('Whiteboard/Object/iFrame', 'pages/x.md'), 'pages/Whiteboard___Object___iFrame.md');
    assert.equal(graph.resolve('whiteboard/object/IFRAME', 'pages/x.md'), 'pages/Whiteboard___Object___iFrame.md');
    assert.equal(graph.resolve('lang/python', 'pages/x.md'), 'pages/lang%2Fpython.md');
    assert.equal(graph.resolve('iFrame', 'pages/x.md'), 'pages/iFrame.md');
    // A path that names a real file still resolves as a path.
    assert.equal(graph.resolve('folder/Doc', 'pages/x.md'), 'real/folder/Doc.md');
  });

  test('a block reference links the referencing note to the note defining the block, follows it, and survives a reload', async () => {
    const graph = graphOf([
      { ...note('pages/Def.md'), blockIds: [UUID_A] },
      { ...note('pages/Ref.md'), blockRefs: [UUID_A] },
      { ...note('pages/Self.md'), blockIds: ['6565bbbb-1111-4222-8333-944444444444'], blockRefs: ['6565bbbb-1111-4222-8333-944444444444'] },
    ]);
    assert.deepEqual(graph.outgoing('pages/Ref.md'), ['pages/Def.md']);
    assert.deepEqual(graph.backlinks('pages/Def.md'), ['pages/Ref.md']);
    assert.deepEqual(graph.outgoing('pages/Self.md'), [], 'a reference to its own block is no link');
    assert.deepEqual(graph.unresolved('pages/Ref.md'), []);
    const loaded = await reloaded(graph);
    assert.deepEqual(loaded.backlinks('pages/Def.md'), ['pages/Ref.md']);
    // The block moves to another note: the link follows it; it goes: the link resolves nowhere (and is not listed as a page).
    loaded.upsertNote(note('pages/Def.md'));
    assert.deepEqual(loaded.outgoing('pages/Ref.md'), []);
    assert.deepEqual(loaded.unresolved('pages/Ref.md'), []);
    loaded.upsertNote({ ...note('pages/New.md'), blockIds: [UUID_A] });
    assert.deepEqual(loaded.outgoing('pages/Ref.md'), ['pages/New.md']);
    loaded.removeNote('pages/New.md');
    assert.deepEqual(loaded.backlinks('pages/New.md'), []);
    assert.deepEqual(loaded.outgoing('pages/Ref.md'), []);
  });

  test('version 1 and 2 graph files (one JSON document; version 1 without block links) still load', async () => {
    const v1 = JSON.stringify({ format: 'cairn-link-graph', version: 1, notes: [{ path: 'A.md', title: 'A', aliases: [], links: [{ kind: 'wikilink', target: 'B', dest: 1 }] }, { path: 'B.md', title: 'B', aliases: [], links: [] }] });
    assert.deepEqual((await LinkGraph.read(Buffer.from(v1))).backlinks('B.md'), ['A.md']);
    const v2 = JSON.stringify({ format: 'cairn-link-graph', version: 2, notes: [{ path: 'A.md', title: 'A', aliases: [], links: [{ kind: 'block', target: 'abc', dest: 1 }] }, { path: 'B.md', title: 'B', aliases: [], blockIds: ['abc'], links: [] }] });
    assert.deepEqual((await LinkGraph.read(Buffer.from(v2))).backlinks('B.md'), ['A.md']);
  });
});
