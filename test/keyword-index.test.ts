// Over 400 lines: every keyword-index behaviour (tiers, typos, prefixes, filters, save and load) against one real index.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { tokenizeForSearch } from '../core/indices/searchTokenizer.js';
import { KEYWORD_FIELD_BOOSTS, KeywordIndex, KeywordIndexCorruptError, type KeywordDoc } from '../core/indices/keyword/keywordIndex.js';
import { keywordIndexLines, readKeywordIndex } from '../core/indices/keyword/keywordIndexFile.js';
import { ChunkPostings } from '../core/indices/keyword/miniSearchInternals.js';
import { extractField, FIELDS, TitleKeys } from '../core/indices/keyword/keywordDocs.js';
import { searchChunks } from '../core/indices/keyword/bm25Scorer.js';

function doc(id: string, content: string, extra: Partial<KeywordDoc> = {}): KeywordDoc {
  const path = extra.path ?? `${id.split('#')[0]}.md`;
  return {
    id,
    path,
    title: extra.title ?? path.replace(/\.md$/, '').split('/').at(-1)!,
    aliases: extra.aliases ?? [],
    headerPath: extra.headerPath ?? [],
    tags: extra.tags ?? [],
    content,
  };
}

function indexOf(docs: KeywordDoc[]): KeywordIndex {
  const index = KeywordIndex.create();
  index.upsert(docs);
  return index;
}

/** The index as saved: its lines, as the bytes of a file. */
const bytesOf = async (index: KeywordIndex) => Buffer.from((await linesOf(index)).join(''));

/** The saved lines (each with its newline): the writer hands them over in pieces, a long line in several. */
async function linesOf(index: KeywordIndex): Promise<string[]> {
  let text = '';
  for await (const piece of index.lines()) text += piece;
  return text.split(/(?<=\n)/);
}

/**
 * The saved header, table lines and posting rows, the rows sorted by term (their order follows MiniSearch's term
 * tree), each field's postings as version 4 wrote them (`fieldId, "<base64>"`) followed by their counts.
 */
async function savedForm(index: KeywordIndex): Promise<{ header: unknown; tables: unknown[]; rows: unknown[] }> {
  const [header, ...lines] = (await linesOf(index)).map((line) => JSON.parse(line) as unknown);
  const rows = lines.filter((line) => Array.isArray(line)).flatMap((line) => inlineRows(line as PostingsLine, true));
  return { header, tables: lines.filter((line) => !Array.isArray(line)), rows: rows.sort((a, b) => (a[0] < b[0] ? -1 : 1)) };
}

/** A postings line as version 5 writes it: rows `[term, fieldId, bytes, pairs, lastDoc, …]`, then the rows' bytes in base64. */
type PostingsLine = [...Array<[string, ...number[]]>, string];

/** A version-5 postings line's rows as version 4 wrote them, `[term, fieldId, "<base64>", …]` (with each field's counts after it when `counts`). */
function inlineRows(line: PostingsLine, counts = false): Array<[string, ...unknown[]]> {
  const bytes = Buffer.from(line.at(-1) as string, 'base64');
  let at = 0;
  return (line.slice(0, -1) as Array<[string, ...number[]]>).map(([term, ...fields]) => {
    const row: [string, ...unknown[]] = [term];
    for (let i = 0; i < fields.length; i += 4) {
      const [fieldId, length, pairs, lastDoc] = fields.slice(i, i + 4) as [number, number, number, number];
      row.push(fieldId, bytes.subarray(at, (at += length)).toString('base64'), ...(counts ? [pairs, lastDoc] : []));
    }
    return row;
  });
}

/** The same file as version 4 wrote it (each field's postings a base64 string of their own, no counts). */
function asVersion4(lines: string[]): string[] {
  return lines.map((line, n) => {
    if (n === 0) return `${JSON.stringify({ ...JSON.parse(line), version: 4 })}\n`;
    return line.startsWith('[') ? `${JSON.stringify(inlineRows(JSON.parse(line) as PostingsLine))}\n` : line;
  });
}

const ids = (index: KeywordIndex, query: string, k = 10, options = {}) => index.search(query, k, options).map((hit) => hit.id);

function assertSameScores(actual: Array<{ id: string; score: number }>, expected: Array<{ id: string; score: number }>, label: string): void {
  const want = new Map(expected.map((hit) => [hit.id, hit.score]));
  assert.deepEqual(actual.map((hit) => hit.id).sort(), [...want.keys()].sort(), label);
  for (const hit of actual) {
    const score = want.get(hit.id)!;
    assert.ok(Math.abs(hit.score - score) <= 1e-9 * Math.max(1, Math.abs(score)), `${label}: ${hit.id} ${hit.score} vs ${score}`);
  }
}

const FILLER = [
  doc('garden#0', 'Tomatoes need sun and water every day in summer.'),
  doc('recipes#0', 'Bake the bread at two hundred degrees for forty minutes.'),
  doc('travel#0', 'The train to the coast leaves early in the morning.'),
];

describe('matching', () => {
  test('a CJK word finds a chunk containing it inside a compound', () => {
    const index = indexOf([...FILLER, doc('ja#0', '全文検索の仕組みを説明します。'), doc('ja2#0', '天気が良いので散歩します。')]);
    assert.deepEqual(ids(index, '検索'), ['ja#0']);
  });

  test('a cmdlet name ranks the cmdlet chunk above one that only says "child item"', () => {
    const index = indexOf([
      ...FILLER,
      doc('items#0', 'Each child item of a folder is listed with its name, and every child item has a size.'),
      doc('cmdlets#0', 'Use Get-ChildItem to list files.'),
    ]);
    const hits = ids(index, 'Get-ChildItem');
    assert.equal(hits[0], 'cmdlets#0');
    assert.ok(hits.includes('items#0'), 'the parts still match');
  });

  test('code identifiers match by their parts and as a whole', () => {
    const index = indexOf([...FILLER, doc('ps#0', 'Check $PSVersionTable first.'), doc('node#0', 'Install Node.js and run it.')]);
    assert.equal(ids(index, 'psversiontable')[0], 'ps#0');
    assert.equal(ids(index, 'version table')[0], 'ps#0');
    assert.equal(ids(index, 'node')[0], 'node#0');
    assert.equal(ids(index, 'NODE.JS')[0], 'node#0');
  });

  test('accents are folded on both sides', () => {
    const index = indexOf([...FILLER, doc('cafe#0', 'The café opens at eight.')]);
    assert.deepEqual(ids(index, 'cafe'), ['cafe#0']);
    assert.deepEqual(ids(index, 'CAFÉ'), ['cafe#0']);
  });

  test('stop words are dropped when the query has other terms, kept when it has none', () => {
    const index = indexOf([...FILLER, doc('how#0', 'How to do it: what is the plan of the day.')]);
    // "the" alone would match three chunks; with "coast" it adds nothing.
    const hits = index.search('the coast', 10, { withTerms: true });
    assert.deepEqual(hits.map((h) => h.id), ['travel#0']);
    assert.deepEqual(hits[0]!.terms, ['coast']);
    assert.equal(index.search('the coast', 10)[0]!.terms, undefined, 'listed only when asked for');
    assert.equal(ids(index, 'how to')[0], 'how#0');
  });

  test('OR semantics: chunks matching more query terms rank higher', () => {
    const index = indexOf([
      doc('a#0', 'alpha beta gamma'),
      doc('b#0', 'alpha delta epsilon'),
      doc('c#0', 'zeta eta theta'),
    ]);
    assert.deepEqual(ids(index, 'alpha beta'), ['a#0', 'b#0']);
  });
});

describe('prefix and typo tolerance', () => {
  const index = indexOf([
    ...FILLER,
    doc('search#0', 'Full text search over notes.'),
    doc('receive#0', 'You receive an email when the build ends.'),
    doc('seaside#0', 'A seaside town.'),
  ]);

  test('prefix on the last query term', () => {
    assert.deepEqual(ids(index, 'searc'), ['search#0']);
    assert.deepEqual(ids(index, 'notes searc')[0], 'search#0');
  });

  test('no prefix on earlier terms', () => {
    assert.deepEqual(ids(index, 'searc email'), ['receive#0']);
  });

  test('no prefix below three characters', () => {
    assert.deepEqual(ids(index, 'se'), []);
  });

  test('typo tolerance for long words, including swapped letters', () => {
    assert.deepEqual(ids(index, 'recieve'), ['receive#0']);
    assert.deepEqual(ids(index, 'recive'), ['receive#0']);
  });

  test('no typo tolerance for short words', () => {
    assert.deepEqual(ids(index, 'sarch email'), ['receive#0']);
  });

  test('a correction counts for the word it corrects: matched words multiply the score once each', () => {
    const both = indexOf([...FILLER, doc('d#0', 'receive gamma'), doc('e#0', 'receive'), doc('f#0', 'gamma')]);
    const score = (query: string) => both.search(query, 10).find((hit) => hit.id === 'd#0')!.score;
    const combined = score('recieve gamma');
    assert.ok(Math.abs(combined - 2 * (score('recieve') + score('gamma'))) < 1e-9, `${combined}`);
  });

  test('a query word finds the other forms of it the vault has (the same Porter stem), each as the word would', () => {
    const forms = indexOf([
      ...FILLER,
      doc('quoted#0', 'A quoted string keeps its spaces.'),
      doc('quotes#0', 'Double quotes expand variables.'),
      doc('quota#0', 'The disk quota is exceeded.'),
      doc('scheduling#0', 'Scheduling a job for every night.'),
    ]);
    assert.deepEqual(ids(forms, 'quotes alpha').sort(), ['quoted#0', 'quotes#0']);
    assert.deepEqual(ids(forms, 'quoting alpha').sort(), ['quoted#0', 'quotes#0'], 'not "quota": a word that only starts alike');
    assert.deepEqual(ids(forms, 'scheduled alpha'), ['scheduling#0']);
    // The form counts as the word: the same score as the chunk that has the query's own form, length aside.
    const score = (query: string, id: string) => forms.search(query, 10).find((hit) => hit.id === id)!.score;
    assert.ok(Math.abs(score('quoted alpha', 'quoted#0') - score('quotes alpha', 'quoted#0')) < 1e-9);
  });

  test('an exact match outranks a typo correction', () => {
    const both = indexOf([doc('exact#0', 'recieve is misspelled here'), doc('right#0', 'receive is spelled right')]);
    assert.equal(ids(both, 'recieve')[0], 'exact#0');
  });
});

describe('exact title and alias', () => {
  const long = 'Tasks are tracked in queries. '.repeat(3);
  const index = indexOf([
    doc('other#0', `Task queries, task queries and more task queries: ${long}`, {
      title: 'Task queries in depth',
      headerPath: ['Task queries'],
      tags: ['task', 'queries'],
    }),
    doc('tq#0', 'Filters and sorting.', { path: 'docs/Task queries.md', title: 'Task queries' }),
    doc('tq#1', 'Grouping results.', { path: 'docs/Task queries.md', title: 'Task queries' }),
    doc('dendron#0', 'Hierarchy note.', { path: 'lang.python.md', title: 'Python' }),
    doc('alias#0', 'Meeting notes.', { path: 'meetings.md', title: 'Meetings', aliases: ['Standup Log'] }),
  ]);

  test('an exact title ranks first even against a chunk with higher BM25', () => {
    const hits = index.search('task queries', 10);
    assert.deepEqual(hits.slice(0, 2).map((h) => [h.id, h.exactTitle]), [
      ['tq#0', true],
      ['tq#1', true],
    ]);
    assert.equal(hits[2]!.id, 'other#0');
    assert.equal(hits[2]!.exactTitle, false);
    assert.ok(hits[2]!.score > hits[0]!.score, 'the other chunk does have the higher BM25 score');
  });

  test('case, accents and punctuation do not matter', () => {
    assert.equal(index.search('Task-Queries!', 10)[0]!.exactTitle, true);
  });

  test('an alias and a file base name count as titles', () => {
    assert.deepEqual(index.search('standup log', 10).map((h) => [h.id, h.exactTitle]), [['alias#0', true]]);
    assert.equal(index.search('lang.python', 10)[0]!.id, 'dendron#0');
    assert.equal(index.search('lang.python', 10)[0]!.exactTitle, true);
  });

  test('a partial title is not exact', () => {
    assert.ok(index.search('task', 10).every((h) => !h.exactTitle));
  });

  test('the accept filter applies to exact titles too', () => {
    assert.deepEqual(ids(index, 'task queries', 10, { accept: (id: string) => id !== 'tq#0' })[0], 'tq#1');
  });
});

describe('expansions', () => {
  const index = indexOf([
    doc('car#0', 'The car needs new tyres.'),
    doc('auto#0', 'An automobile is a car by another name; automobile automobile.'),
    doc('bike#0', 'The automobile was parked next to a bike; automobile automobile automobile.'),
  ]);

  test('expansion-only matches rank after every exact match', () => {
    const hits = index.search('car', 2, { expansions: [{ term: 'automobile', weight: 0.9 }] });
    assert.deepEqual(hits.map((h) => h.id).sort(), ['auto#0', 'car#0']);
    const all = ids(index, 'car', 10, { expansions: [{ term: 'automobile', weight: 0.9 }] });
    assert.equal(all.at(-1), 'bike#0');
  });

  test('an expansion adds to the score of a chunk that also matches the query', () => {
    const plain = index.search('car', 10);
    const expanded = index.search('car', 10, { expansions: [{ term: 'automobile', weight: 0.5 }], withTerms: true });
    const score = (hits: typeof plain, id: string) => hits.find((h) => h.id === id)!.score;
    assert.ok(score(expanded, 'auto#0') > score(plain, 'auto#0'));
    assert.equal(score(expanded, 'car#0'), score(plain, 'car#0'));
    assert.ok(expanded.find((h) => h.id === 'auto#0')!.terms!.includes('automobile'));
  });

  test('an expansion that is an index term is used whole, not split into parts', () => {
    const cmdlets = indexOf([doc('gci#0', 'Get-ChildItem lists files'), doc('item#0', 'an item'), doc('dir#0', 'dir lists folders')]);
    const hits = cmdlets.search('dir', 10, { expansions: [{ term: 'get-childitem', weight: 0.5 }] });
    assert.deepEqual(hits.map((h) => h.id), ['dir#0', 'gci#0']);
  });

  test('zero or negative weights are ignored', () => {
    assert.deepEqual(ids(index, 'car', 10, { expansions: [{ term: 'bike', weight: 0 }] }), ids(index, 'car', 10));
  });
});

describe('maintenance', () => {
  test('accept filter', () => {
    const index = indexOf([doc('a#0', 'shared word'), doc('b#0', 'shared word'), doc('c#0', 'shared word')]);
    assert.deepEqual(ids(index, 'shared', 10, { accept: (id: string) => id !== 'b#0' }).sort(), ['a#0', 'c#0']);
  });

  test('k limits the hits', () => {
    const index = indexOf([doc('a#0', 'shared'), doc('b#0', 'shared'), doc('c#0', 'shared')]);
    assert.equal(index.search('shared', 2).length, 2);
    assert.deepEqual(index.search('shared', 0), []);
  });

  test('when k cuts through equal scores, the lowest ids are kept, in whatever order the chunks were added', () => {
    // Added highest id first: each later chunk ties with every kept one and wins on its id.
    const index = indexOf(Array.from({ length: 12 }, (_, i) => doc(`n${String(11 - i).padStart(2, '0')}#0`, 'shared word')));
    const hits = index.search('shared', 3);
    assert.equal(new Set(hits.map((hit) => hit.score)).size, 1, 'the scores tie');
    assert.deepEqual(hits.map((hit) => hit.id), ['n00#0', 'n01#0', 'n02#0']);
  });

  test('remove really removes', () => {
    const index = indexOf([doc('a#0', 'unique banana', { title: 'Fruit' }), doc('b#0', 'apple')]);
    index.remove(['a#0', 'missing#0']);
    assert.equal(index.has('a#0'), false);
    assert.equal(index.size, 1);
    assert.deepEqual(ids(index, 'banana'), []);
    assert.deepEqual(ids(index, 'fruit'), []);
    assert.ok(!index.terms().includes('banana'));
  });

  test('upsert replaces a chunk with the same id', () => {
    const index = indexOf([doc('a#0', 'old words', { title: 'First' })]);
    index.upsert([doc('a#0', 'new text', { title: 'Second' })]);
    assert.equal(index.size, 1);
    assert.deepEqual(ids(index, 'old'), []);
    assert.deepEqual(ids(index, 'new'), ['a#0']);
    assert.equal(index.search('first', 10).length, 0);
    assert.equal(index.search('second', 10)[0]!.exactTitle, true);
  });

  test('relabel moves a chunk to a new id with everything indexed of it; it never lands on an id in use', async () => {
    const index = indexOf([...FILLER, doc('notes/a#3@x', 'Unique gazebo paint', { path: 'notes/a.md', title: 'Garden shed', headerPath: ['Paint'] })]);
    const before = index.search('gazebo paint', 10);
    assert.equal(index.relabel([['notes/a#3@x', 'notes/a#4@x']]), 1);
    assert.equal(index.has('notes/a#3@x'), false);
    assert.equal(index.has('notes/a#4@x'), true);
    assert.equal(index.size, FILLER.length + 1);
    assert.deepEqual(index.search('gazebo paint', 10), before.map((hit) => ({ ...hit, id: 'notes/a#4@x' })));
    const title = index.search('garden shed', 10)[0]!;
    assert.deepEqual([title.id, title.exactTitle], ['notes/a#4@x', true]);
    // An absent source or a target in use: nothing changes.
    assert.equal(index.relabel([['notes/a#3@x', 'notes/a#5@x'], ['notes/a#4@x', 'garden#0']]), 0);
    assert.deepEqual(ids(index, 'gazebo'), ['notes/a#4@x']);
    assert.deepEqual(ids(index, 'tomatoes'), ['garden#0']);
    // Saved and loaded under the new id; removable by it.
    const loaded = await KeywordIndex.read(await bytesOf(index));
    assert.deepEqual(loaded.search('gazebo paint', 10), index.search('gazebo paint', 10));
    loaded.remove(['notes/a#4@x']);
    assert.deepEqual(ids(loaded, 'gazebo'), []);
    assert.ok(loaded.search('garden shed', 10).every((hit) => !hit.exactTitle));
  });

  test('a word vacuumed out of the index with its last chunks is found again when a chunk brings it back', async () => {
    // Adding keeps the postings of the words it looked up in MiniSearch's term tree for the next adds; vacuuming
    // deletes emptied words from the tree between them, and what was kept of those must not be reused.
    const many = Array.from({ length: 300 }, (_, i) => doc(`v#${i}`, i < 100 ? `fleeting common${i % 3}` : `common${i % 3}`));
    const index = indexOf(many);
    index.remove(many.slice(0, 100).map((d) => d.id)); // the 100th discard starts a vacuum, which deletes 'fleeting'
    await index.settle();
    assert.ok(!index.terms().includes('fleeting'));
    index.upsert([doc('back#0', 'fleeting again'), doc('v#200', 'fleeting common2')]);
    assert.deepEqual(ids(index, 'fleeting').sort(), ['back#0', 'v#200']);
    const saved = await KeywordIndex.read(await bytesOf(index));
    assert.deepEqual(ids(saved, 'fleeting').sort(), ['back#0', 'v#200']);
  });

  test('an upsert told when it has done enough adds that many, and the rest later give the same index', async () => {
    const docs = Array.from({ length: 7 }, (_, i) => doc(`p#${i}`, `shared word${i}`, { title: `Page ${i}` }));
    const inTurns = KeywordIndex.create();
    const taken: number[] = [];
    for (let from = 0; from < docs.length; ) {
      let asked = 0;
      const added = inTurns.upsert(docs.slice(from), () => ++asked === 3);
      taken.push(added);
      from += added;
    }
    assert.deepEqual(taken, [3, 3, 1]);
    const atOnce = indexOf(docs);
    assert.deepEqual(await savedForm(inTurns), await savedForm(atOnce));
    assert.deepEqual(inTurns.search('page 4', 10), atOnce.search('page 4', 10));
  });

  test('the last of several chunks with one id in a batch is the one indexed', () => {
    const index = indexOf([doc('a#0', 'first words'), doc('a#0', 'second words'), doc('b#0', 'other words')]);
    assert.equal(index.size, 2);
    assert.deepEqual(ids(index, 'first'), []);
    assert.deepEqual(ids(index, 'second'), ['a#0']);
  });

  test('terms lists the vocabulary', () => {
    const index = indexOf([doc('a#0', 'Get-ChildItem lists')]);
    const terms = index.terms();
    for (const term of ['get-childitem', 'child', 'item', 'lists']) assert.ok(terms.includes(term), term);
  });
});

describe('serialisation', () => {
  const docs = [
    ...FILLER,
    doc('tq#0', 'Filters and sorting.', { path: 'docs/Task queries.md', title: 'Task queries', aliases: ['TQ'] }),
    doc('ps#0', 'Get-ChildItem -Recurse lists every file.', { headerPath: ['Cmdlets', 'Files'], tags: ['powershell'] }),
    doc('ja#0', '全文検索の仕組み'),
  ];

  test('a round trip through its lines gives identical results', async () => {
    const index = indexOf(docs);
    index.remove(['recipes#0']);
    const loaded = await KeywordIndex.read(await bytesOf(index));
    assert.equal(loaded.size, index.size);
    assert.deepEqual(loaded.terms().sort(), index.terms().sort());
    for (const query of ['task queries', 'tq', 'get-childitem', 'files', 'powershell', '検索', 'tomatoe', 'recurs', 'bread']) {
      assert.deepEqual(loaded.search(query, 10), index.search(query, 10), query);
    }
    // A loaded index stays writable.
    loaded.upsert([doc('new#0', 'fresh words')]);
    assert.deepEqual(ids(loaded, 'fresh'), ['new#0']);
  });

  test('a large index is written a few thousand terms a line, each line JSON of its own; an empty one round-trips', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => doc(`many#${i}`, `word${i} shared w${i % 7}x${i}`));
    const index = indexOf(many);
    index.remove(['many#5']);
    const lines = await linesOf(index);
    assert.ok(lines.length >= 4, `${lines.length} lines`);
    for (const line of lines) {
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'));
      JSON.parse(line);
    }
    const loaded = await KeywordIndex.read(Buffer.from(lines.join('')));
    assert.deepEqual(loaded.terms().sort(), index.terms().sort());
    for (const query of ['word42', 'shared', 'w3x10', 'word5']) assert.deepEqual(loaded.search(query, 20), index.search(query, 20), query);
    assert.equal((await KeywordIndex.read(await bytesOf(KeywordIndex.create()))).size, 0);
  });

  test('searching a loaded index reads its postings in place: they stay varint bytes until an edit needs them', async () => {
    const many = Array.from({ length: 300 }, (_, i) => doc(`big#${i}`, `common words ${i % 7 === 0 ? 'sparse' : 'plain'} word${i}`));
    const original = indexOf(many);
    original.remove(['big#7']); // a discarded chunk: live counts are taken by walking the postings
    const { index, titles } = await readKeywordIndex(await bytesOf(original));
    const encoded = (term: string) => [...index.postings(term)!.values()].every((postings) => 'unreadBytes' in postings && (postings as { unreadBytes(): unknown }).unreadBytes() !== undefined);
    assert.ok(encoded('common') && encoded('sparse'));
    for (const query of ['common', 'sparse words', 'comm', 'spars']) {
      assert.deepEqual(searchChunks(index, titles, query, 20), original.search(query, 20), query);
    }
    assert.ok(encoded('common') && encoded('sparse'), 'scoring and live counts left them encoded');
    index.addAll([doc('big#300', 'common sparse')]);
    assert.ok(encoded('common') && encoded('sparse'), 'a chunk added is kept after the encoded postings, which stay undecoded');
    original.upsert([doc('big#300', 'common sparse')]);
    for (const query of ['common', 'sparse', 'comm']) assert.deepEqual(searchChunks(index, titles, query, 400), original.search(query, 400), query);
  });

  test('a save leaves the index that built it holding long postings as the file does, encoded until an edit needs them', async () => {
    const many = Array.from({ length: 300 }, (_, i) => doc(`big#${i}`, `common words ${i % 7 === 0 ? 'sparse' : 'plain'} word${i}`));
    const built = ChunkPostings.create();
    built.addAll(many);
    const titles = new TitleKeys();
    const encoded = (term: string) => [...built.postings(term)!.values()].every((postings) => (postings as { unreadBytes?(): unknown }).unreadBytes?.() !== undefined);
    const queries = ['common', 'sparse words', 'comm', 'spars', 'word42'];
    const before = queries.map((query) => searchChunks(built, titles, query, 20));
    assert.ok(!encoded('common'), 'built in memory: packed pairs');
    let first = '';
    for await (const piece of keywordIndexLines(built, titles)) first += piece;
    assert.ok(encoded('common') && encoded('sparse'), 'long lists swapped for their encoding');
    queries.forEach((query, i) => assert.deepEqual(searchChunks(built, titles, query, 20), before[i], query));
    assert.ok(encoded('common') && encoded('sparse'), 'queries count and score them without decoding them');
    let second = '';
    for await (const piece of keywordIndexLines(built, titles)) second += piece;
    assert.equal(second, first, 'saved again byte for byte');
    built.addAll([doc('big#300', 'common')]);
    assert.ok(encoded('common') && encoded('sparse'), 'an added chunk is kept after the bytes of the postings it joins');
    const fresh = ChunkPostings.create();
    fresh.addAll([...many, doc('big#300', 'common')]);
    const postingRows = async (index: ChunkPostings) => {
      let text = '';
      for await (const piece of keywordIndexLines(index, new TitleKeys())) text += piece;
      return text.split('\n').filter((line) => line.startsWith('[')).flatMap((line) => JSON.parse(line) as unknown[]).sort();
    };
    assert.deepEqual(await postingRows(built), await postingRows(fresh), 'saved with the added chunk, as a fresh index of the same chunks');
    const hits = searchChunks(built, titles, 'common', 400);
    assert.equal(hits.length, 301);
    const { index: loaded, titles: loadedTitles } = await readKeywordIndex(Buffer.from(second));
    loaded.addAll([doc('big#300', 'common')]);
    assert.deepEqual(searchChunks(loaded, loadedTitles, 'common', 400), hits, 'the same postings as an index loaded from the file');
  });

  test('tables of many chunks are written a few thousand entries a line, and read back whole', async () => {
    const many = Array.from({ length: 12_001 }, (_, i) => doc(`n${i}#0`, `word${i % 700} shared`, { title: `Note ${i}` }));
    const original = indexOf(many);
    original.remove(['n7#0']);
    const lines = await linesOf(original);
    const tableLines = lines.slice(1).filter((line) => line.startsWith('{'));
    const counts = tableLines.map((line) => Object.entries(JSON.parse(line) as Record<string, unknown[]>).map(([table, entries]) => `${table} ${entries.length}`)[0]);
    // 12,000 live chunks; each has two title keys (its title and its file's base name).
    const titleRows = (JSON.parse(lines[0]!) as { titles: number }).titles; // rows of title keys
    assert.equal(titleRows, 24_000);
    assert.deepEqual(counts, [
      ...['documentIds 5000', 'documentIds 5000', 'documentIds 2000', 'fieldLength 5000', 'fieldLength 5000', 'fieldLength 2000'],
      ...['titles 5000', 'titles 5000', 'titles 5000', 'titles 5000', 'titles 4000'],
    ]);
    assert.ok(Math.max(...lines.map((line) => line.length)) < 1_000_000, 'no line holds a whole table');
    // A title shared by many chunks (every section of a long note has its title): lines are cut by length too.
    const shared = indexOf(Array.from({ length: 6000 }, (_, i) => doc(`a-long-note-with-a-long-name.md#${i}`, `word${i}`, { title: 'Shared' })));
    const sharedLines = (await linesOf(shared)).filter((line) => line.startsWith('{'));
    assert.ok(sharedLines.every((line) => line.length < 400_000), 'table lines stay short');
    assert.deepEqual(ids(await KeywordIndex.read(Buffer.from((await linesOf(shared)).join(''))), 'Shared', 3), ids(shared, 'Shared', 3));
    const loaded = await KeywordIndex.read(Buffer.from(lines.join('')));
    for (const query of ['Note 11999', 'Note 7', 'word5 shared', 'shared']) assertSameScores(loaded.search(query, 20), original.search(query, 20), query);
    assert.deepEqual(await savedForm(loaded), await savedForm(original));
  });

  test('loaded postings (varint bytes until used) write back byte for byte, and take edits like the original', async () => {
    // Short ids past 127 and frequencies past 127 need multi-byte varints; titles exercise the exact-match map.
    const many = Array.from({ length: 400 }, (_, i) =>
      doc(`big#${i}`, `${i % 97 === 0 ? 'sparse ' : ''}word${i} ${'common '.repeat(1 + (i % 150))}`, { title: i % 50 === 0 ? `Title ${i / 50}` : `page ${i}` }),
    );
    const original = indexOf(many);
    original.remove(['big#3']);
    const saved = await bytesOf(original);
    const loaded = await KeywordIndex.read(saved);
    assert.deepEqual(await savedForm(loaded), await savedForm(original), 'write → read → write keeps every posting');
    for (const index of [original, loaded]) {
      index.upsert([doc('big#399', 'sparse common newword', { title: 'Title 1' }), doc('extra#0', 'common sparse')]);
      index.remove(['big#50', 'big#194']);
    }
    for (const query of ['sparse', 'common', 'word398', 'title 1', 'title 2', 'newword', 'comm']) {
      assert.deepEqual(loaded.search(query, 30), original.search(query, 30), query);
    }
    await Promise.all([original.settle(), loaded.settle()]);
    assert.deepEqual(await savedForm(loaded), await savedForm(original), 'the same edits give the same postings');
  });

  test('title rows name chunks by short id; indices of version 4 (postings without counts) and version 3 (title rows by chunk id) load the same and save as version 5', async () => {
    const many = Array.from({ length: 300 }, (_, i) => doc(`notes/n${i % 40}.md#${i}`, `word${i % 13} text`, { title: `Page ${i % 40}`, aliases: i % 7 === 0 ? ['Seven'] : [] }));
    const original = indexOf(many);
    original.remove(['notes/n3.md#3', 'notes/n7.md#7']);
    const lines = await linesOf(original);
    const header = JSON.parse(lines[0]!) as { version: number };
    assert.equal(header.version, 5);
    const table = (line: string) => JSON.parse(line) as Record<string, Array<[unknown, unknown]>>;
    const titleRows = lines.filter((line) => line.startsWith('{"titles"')).flatMap((line) => table(line).titles!);
    assert.ok(titleRows.length > 40 && titleRows.every(([key, docs]) => typeof key === 'string' && Array.isArray(docs) && docs.every(Number.isInteger)));

    // The same index as version 4 wrote it: each field's postings a base64 string of its own, without counts.
    const v4 = asVersion4(lines);
    assert.ok(v4.filter((line) => line.startsWith('[')).every((line) => (JSON.parse(line) as unknown[][]).every((row) => typeof row[2] === 'string')));
    const fromV4 = await KeywordIndex.read(Buffer.from(v4.join('')));
    for (const query of ['Page 12', 'page 3', 'Seven', 'word5', 'n7']) assert.deepEqual(fromV4.search(query, 20), original.search(query, 20), query);
    assert.deepEqual(await savedForm(fromV4), await savedForm(original), 'version 4 saved again, as version 5');

    // As version 3 wrote it: also each title row's short ids as the chunk ids the id table gives them.
    const idOf = new Map(lines.filter((line) => line.startsWith('{"documentIds"')).flatMap((line) => table(line).documentIds!) as Array<[number, string]>);
    const v3 = v4.map((line, n) => {
      if (n === 0) return `${JSON.stringify({ ...JSON.parse(line), version: 3 })}\n`;
      if (!line.startsWith('{"titles"')) return line;
      return `${JSON.stringify({ titles: table(line).titles!.map(([key, docs]) => [key, (docs as number[]).map((d) => idOf.get(d)!)]) })}\n`;
    });
    assert.ok(v3.join('').includes('"notes/n0.md#0"'), 'the converted title rows name chunk ids');
    const loaded = await KeywordIndex.read(Buffer.from(v3.join('')));
    for (const query of ['Page 12', 'page 3', 'Seven', 'word5', 'n7']) assert.deepEqual(loaded.search(query, 20), original.search(query, 20), query);
    assert.deepEqual(await savedForm(loaded), await savedForm(original), 'version 3 saved again, as version 5');

    // Version 5 with a title row naming a chunk by id, or a short id no chunk has, is damaged.
    const withTitles = (rows: unknown) => lines.map((line) => (line.startsWith('{"titles"') ? `${JSON.stringify({ titles: rows })}\n` : line)).join('');
    const rows = (docs: unknown[]) => [...titleRows.slice(0, titleRows.length - 1), ['page 1', docs]];
    await KeywordIndex.read(Buffer.from(withTitles(titleRows))); // sanity: the rows as written load
    for (const docs of [['notes/n1.md#1'], [9999], [-1], [1.5]]) {
      await assert.rejects(KeywordIndex.read(Buffer.from(withTitles(rows(docs)))), /title map names an unknown chunk/, JSON.stringify(docs));
    }
  });

  test('corrupt input throws KeywordIndexCorruptError', async () => {
    const [headerLine, ...rest] = await linesOf(indexOf(docs));
    const header = JSON.parse(headerLine);
    const isTable = (line: string) => line.startsWith('{');
    const tables = rest.filter(isTable);
    const postings = rest.filter((line) => !isTable(line)).join('');
    const tableLine = (name: string) => tables.find((line) => line.startsWith(`{"${name}"`))!;
    const withHeader = (changed: object) => `${JSON.stringify({ ...header, ...changed })}\n${tables.join('')}${postings}`;
    const withTables = (...lines: string[]) => `${headerLine}${lines.join('')}${postings}`;
    // One postings line standing for all (the header counting its terms).
    const withPostings = (line: unknown[]) => `${JSON.stringify({ ...header, terms: line.length - 1 })}\n${tables.join('')}${JSON.stringify(line)}\n`;
    const one = Buffer.from([0x01, 0x01]).toString('base64'); // chunk 1, once
    const two = Buffer.from([0x01, 0x01, 0x01, 0x01]).toString('base64'); // chunks 1 and 2, once each
    assert.deepEqual(
      tables.map((line) => Object.keys(JSON.parse(line))[0]),
      ['documentIds', 'fieldLength', 'titles'],
      'the fixture has one line of each table',
    );
    const corrupt = [
      '',
      'not json',
      `${headerLine}${tables.join('')}${postings.slice(0, postings.length / 2)}`,
      `${headerLine}${tables.join('')}`, // the postings lines are missing: fewer terms than the header counts
      '{}',
      'null',
      '[]',
      withHeader({ version: 99 }),
      withHeader({ version: 2 }),
      withHeader({ terms: -1 }),
      withHeader({ titles: 'x' }),
      withHeader({ titles: header.titles + 1 }),
      withHeader({ miniSearch: { ...header.miniSearch, serializationVersion: 7 } }),
      withHeader({ miniSearch: { ...header.miniSearch, fieldIds: { content: 0 } } }),
      withHeader({ miniSearch: { ...header.miniSearch, documentCount: 99 } }),
      withHeader({ miniSearch: { ...header.miniSearch, nextId: 1 } }), // short ids past nextId
      withTables(tableLine('fieldLength'), tableLine('titles')), // no document ids
      withTables(tableLine('documentIds'), tableLine('titles')), // no field lengths
      withTables(tableLine('documentIds'), tableLine('documentIds'), tableLine('fieldLength'), tableLine('titles')), // ids given twice
      withTables(tableLine('documentIds'), tableLine('fieldLength'), '{"titles":[["x",["no-such-chunk"]]]}\n'),
      withTables(tableLine('documentIds'), tableLine('fieldLength'), tableLine('titles'), '{"other":[]}\n'),
      withTables(tableLine('documentIds'), '{"fieldLength":[[0,[1,2]]]}\n', tableLine('titles')), // a row of the wrong width
      `${headerLine}"x"\n`,
      withPostings([[5, 0, 2, 1, 1], one]),
      withPostings([['term', 9, 2, 1, 1], one]), // no such field
      withPostings([['term', 0, 2, 1, 1, 0, 2, 1, 1], two]), // a field twice
      withPostings([['term', 0], one]),
      withPostings([['term', 0, 2, 1, 1]]), // no bytes
      withPostings([['term', 0, 4, 1, 1], one]), // more bytes than the line holds
      withPostings([['term', 0, 2, 1, 1], two]), // bytes no row claims
      withPostings([['term', 0, 2, 2, 1], one]), // more postings than the bytes can hold
      withPostings([['term', 0, 2, 1, 9999], one]), // a chunk past the last one
      withPostings([['term', 0, 2, 0, 1], one]),
    ];
    // Sanity: the pieces put back together are a valid index, and so is a postings line of valid counts.
    await KeywordIndex.read(Buffer.from(withTables(...tables)));
    assert.ok((await KeywordIndex.read(Buffer.from(withPostings([['term', 0, 2, 1, 1], one])))).search('term', 5).length > 0);
    for (const text of corrupt) await assert.rejects(KeywordIndex.read(Buffer.from(text)), KeywordIndexCorruptError, text.slice(0, 80));
    // Counts that disagree with their bytes (the file's digest matched, so only a faulty writer makes them), a varint
    // that never ends, a zero term frequency: found when the postings are first read.
    for (const line of [
      [['term', 0, 2, 1, 2], one],
      [['term', 0, 4, 2, 3], two],
      [['term', 0, 4, 1, 2], two],
      [['term', 0, 2, 1, 1], Buffer.from([0x81, 0x81]).toString('base64')],
      [['term', 0, 2, 1, 1], Buffer.from([0x01, 0x00]).toString('base64')],
    ]) {
      const loaded = await KeywordIndex.read(Buffer.from(withPostings(line)));
      assert.throws(() => loaded.search('term', 5), KeywordIndexCorruptError, JSON.stringify(line));
    }
  });
});

describe('property: random upserts and removes', () => {
  const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'Get-Item', 'node.js', '検索', 'café'];
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('upsert' as const),
      docs: fc.array(fc.record({ n: fc.integer({ min: 0, max: 15 }), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
    fc.record({ kind: fc.constant('remove' as const), ns: fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 4 }) }),
  );

  test('ids equal a reference set and every hit is live', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), fc.constantFrom(...WORDS, 'alp', 'gamm', 'nothing'), async (ops, query) => {
        const index = KeywordIndex.create();
        const live = new Map<string, string>();
        for (const step of ops) {
          if (step.kind === 'upsert') {
            index.upsert(step.docs.map(({ n, words }) => doc(`n${n}#0`, words.join(' '))));
            for (const { n, words } of step.docs) live.set(`n${n}#0`, words.join(' '));
          } else {
            index.remove(step.ns.map((n) => `n${n}#0`));
            for (const n of step.ns) live.delete(`n${n}#0`);
          }
        }
        assert.equal(index.size, live.size);
        for (let n = 0; n < 16; n++) assert.equal(index.has(`n${n}#0`), live.has(`n${n}#0`));
        const saved = await bytesOf(index);
        const hits = index.search(query, 100);
        for (const hit of hits) assert.ok(live.has(hit.id), hit.id);
        assert.equal(new Set(hits.map((h) => h.id)).size, hits.length, 'no duplicate hits');
        assert.deepEqual((await KeywordIndex.read(saved)).search(query, 100), hits);
      }),
      { numRuns: 150 },
    );
  });
});

describe('property: scoring', () => {
  const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'zeta', 'alp', 'del'];
  const docArb = fc.record({
    content: fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((words) => words.join(' ')),
    headerPath: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
    tags: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
    aliases: fc.array(fc.constantFrom(...WORDS), { maxLength: 1 }),
  });
  const queryArb = fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));

  test("holds the terms, postings and field lengths MiniSearch's own add makes, added in any turns", () => {
    const pairs = (fields: Map<number, Map<number, number>>) => [...fields].map(([fieldId, postings]) => [fieldId, [...postings]]);
    fc.assert(
      // Up to 80 chunks: a word's postings then pass the size from which they are packed (packedPostings.ts).
      fc.property(fc.array(docArb, { minLength: 1, maxLength: 80 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }), (specs, turns) => {
        const docs = specs.map((spec, n) => doc(`n${n}#0`, spec.content, { ...spec, title: `n${n}` }));
        const reference = new MiniSearch<KeywordDoc>({ fields: [...FIELDS], extractField, tokenize: tokenizeForSearch, processTerm: (term) => term, autoVacuum: false });
        reference.addAll(docs);
        const inner = reference as unknown as { _index: Iterable<[string, Map<number, Map<number, number>>]>; _fieldLength: Map<number, number[]>; _avgFieldLength: number[] };
        const built = ChunkPostings.create();
        for (let from = 0, turn = 0; from < docs.length; turn++) {
          let left = turns[turn % turns.length]!;
          from += built.addAll(docs.slice(from), () => --left === 0);
        }
        assert.deepEqual([...built.entries()].map(([term, fields]) => [term, pairs(fields)]), [...inner._index].map(([term, fields]) => [term, pairs(fields)]));
        for (const [shortId, id] of built.documentIds()) {
          assert.equal(reference.has(id), true);
          assert.equal(built.fieldLengthJson(shortId), JSON.stringify(inner._fieldLength.get(shortId)), id);
        }
        assert.deepEqual(FIELDS.map((_, fieldId) => built.averageFieldLength(fieldId)), inner._avgFieldLength);
      }),
      { numRuns: 150 },
    );
  });

  test('equals MiniSearch BM25+ with the same boosts, prefix on the last term', () => {
    fc.assert(
      // Up to 80 chunks: a word's postings then pass the size from which they are packed (packedPostings.ts).
      fc.property(fc.array(docArb, { minLength: 1, maxLength: 80 }), queryArb, (specs, query) => {
        // MiniSearch lets one index term match two query words ("alpha alp"); Cairn counts it for one.
        const words = query.split(' ');
        fc.pre(!words.slice(0, -1).some((word) => word.startsWith(words.at(-1)!)));
        const docs = specs.map((spec, n) => doc(`n${n}#0`, spec.content, { ...spec, title: `n${n}` }));
        const reference = new MiniSearch<KeywordDoc>({
          fields: ['title', 'aliases', 'headerPath', 'tags', 'content'],
          extractField: (d, field) => {
            const value = d[field as keyof KeywordDoc];
            return Array.isArray(value) ? value.join('\n') : value;
          },
          tokenize: tokenizeForSearch,
          processTerm: (term) => term,
        });
        reference.addAll(docs);
        const expected = reference.search(query, {
          boost: { ...KEYWORD_FIELD_BOOSTS },
          prefix: (term, i, terms) => i === terms.length - 1 && term.length >= 3,
        });
        const actual = indexOf(docs).search(query, 1000, { withTerms: true });
        assertSameScores(actual, expected, query);
        // Each hit lists the index terms it matched, as MiniSearch does (prefix completions included).
        const wantTerms = new Map(expected.map((hit) => [hit.id, [...hit.terms].sort()]));
        for (const hit of actual) assert.deepEqual([...hit.terms!].sort(), wantTerms.get(hit.id), `${query}: terms of ${hit.id}`);
      }),
      { numRuns: 200 },
    );
  });

  const opArb = fc.oneof(
    fc.record({ kind: fc.constant('upsert' as const), n: fc.integer({ min: 0, max: 40 }), spec: docArb }),
    fc.record({ kind: fc.constant('remove' as const), n: fc.integer({ min: 0, max: 40 }) }),
  );
  type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;
  /** Applies the operations to the index and to `live`, the chunks it should hold. */
  const apply = (index: KeywordIndex, live: Map<string, KeywordDoc>, ops: readonly Op[]) => {
    for (const op of ops) {
      const id = `n${op.n}#0`;
      if (op.kind === 'upsert') {
        const d = doc(id, op.spec.content, { ...op.spec, title: `n${op.n}` });
        index.upsert([d]);
        live.set(id, d);
      } else {
        index.remove([id]);
        live.delete(id);
      }
    }
  };

  test('a filter keeps the scores of the chunks it lets through (the IDF counts every live chunk)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), fc.array(fc.boolean(), { minLength: 41, maxLength: 41 }), queryArb, (ops, kept, query) => {
        const index = KeywordIndex.create();
        apply(index, new Map(), ops);
        const accept = (id: string) => kept[Number(id.slice(1, id.indexOf('#')))]!;
        const expected = index.search(query, 1000).filter((hit) => accept(hit.id));
        assertSameScores(index.search(query, 1000, { accept }), expected, query);
      }),
      { numRuns: 200 },
    );
  });

  test('changed between saves and loads (postings kept encoded, discarded chunks saved), scores equal a fresh index', async () => {
    await fc.assert(
      // Rounds of changes, each followed by a save and a load: the loaded index's postings stay encoded until used.
      fc.asyncProperty(fc.array(fc.array(opArb, { maxLength: 60 }), { minLength: 1, maxLength: 4 }), queryArb, async (rounds, query) => {
        let index = KeywordIndex.create();
        const live = new Map<string, KeywordDoc>();
        for (const ops of rounds) {
          apply(index, live, ops);
          // Changes to a loaded index: chunks added after its encoded postings, removals that decode them.
          assertSameScores(index.search(query, 1000), indexOf([...live.values()]).search(query, 1000), `${query} before saving`);
          index = await KeywordIndex.read(await bytesOf(index));
        }
        assertSameScores(index.search(query, 1000), indexOf([...live.values()]).search(query, 1000), query);
      }),
      { numRuns: 150 },
    );
  });

  test('after upserts and removes, scores equal those of a fresh index of the live chunks', () => {
    fc.assert(
      // Searched between changes too: what a search works out of the postings (live counts) must not outlive a change.
      fc.property(fc.array(opArb, { maxLength: 150 }), queryArb, fc.integer({ min: 1, max: 20 }), (ops, query, every) => {
        const index = KeywordIndex.create();
        const live = new Map<string, KeywordDoc>();
        for (let from = 0; from < ops.length; from += every) {
          apply(index, live, ops.slice(from, from + every));
          index.search(query, 10);
        }
        assertSameScores(index.search(query, 1000), indexOf([...live.values()]).search(query, 1000), query);
      }),
      { numRuns: 200 },
    );
  });
});
