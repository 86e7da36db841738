// Issue 14, "Search, filters and empty states": results are paged, never silently capped; a `tag:` being typed is
// no error; a tag no note has says so and offers the nearest; config.toml's unclosed quote says so.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pageLine } from '../cli/commands/vaultCommands.js';
import { CairnVault } from '../core/app/index.js';
import { problemOf } from '../core/config/checkConfigText.js';
import { ConfigError, parseConfig } from '../core/config/loadConfig.js';
import { defaultConfig } from '../core/config/schema.js';
import { ApiArgumentError } from '../core/contract/validation.js';
import { validateApiCall } from '../core/server/hostValidation.js';
import { incompleteOperators } from '../core/contract/filters.js';
import { completeTag } from '../core/contract/tags.js';
import { editDistance, hasTag, nearestTags, tagCounts } from '../core/search/tagIndex.js';
import { seededRandom } from '../core/random/seededRandom.js';

const NOTES = 25;

describe('tag list and nearest tags', () => {
  const notes = [
    { tags: ['project', 'Idea'], chunks: [{ tags: ['project', 'Idea'] }, { tags: ['project/alpha'] }] },
    { tags: ['project'], chunks: [{ tags: ['project'] }] },
    { tags: [], chunks: [{ tags: ['#reading'] }] },
  ];
  const tags = tagCounts(notes);

  it('counts each tag once per note, most used first, as first written', () => {
    assert.deepEqual(tags, [
      { tag: 'project', notes: 2 },
      { tag: 'Idea', notes: 1 },
      { tag: 'project/alpha', notes: 1 },
      { tag: 'reading', notes: 1 },
    ]);
  });

  it('knows a tag as the filter matches it: case-insensitive, a parent tag included', () => {
    assert.ok(hasTag(tags, 'idea'));
    assert.ok(hasTag(tags, '#PROJECT'));
    assert.ok(!hasTag(tags, 'proj'));
    assert.ok(!hasTag(tags, 'alpha'));
  });

  it('offers the nearest tags: prefixes first, then by edit distance; nothing for noise', () => {
    assert.deepEqual(nearestTags('proj', tags), ['project', 'project/alpha']);
    assert.deepEqual(nearestTags('projcet', tags), ['project']);
    assert.deepEqual(nearestTags('raeding', tags), ['reading']);
    assert.deepEqual(nearestTags('zzzzzz', tags), []);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('ab', 'ba'), 1);
  });

  it('completes a tag being typed', () => {
    assert.deepEqual(completeTag('pro', tags).map((t) => t.tag), ['project', 'project/alpha']);
    assert.deepEqual(completeTag('alp', tags).map((t) => t.tag), ['project/alpha']);
    assert.equal(completeTag('', tags).length, 4);
  });

  it('finds the operators still being typed', () => {
    assert.deepEqual(incompleteOperators('budget tag:'), ['tag:']);
    assert.deepEqual(incompleteOperators('tag: -path: x'), ['tag:', '-path:']);
    assert.deepEqual(incompleteOperators('tag:idea path:x/'), []);
  });
});

describe('search paging and unknown tags on a vault', { timeout: 120_000 }, () => {
  let root: string;
  let vault: CairnVault;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-paging-'));
    const dir = path.join(root, 'vault');
    await mkdir(path.join(dir, 'log'), { recursive: true });
    for (let i = 0; i < NOTES; i++) {
      const day = String(i + 1).padStart(2, '0');
      await writeFile(path.join(dir, 'log', `Entry ${day}.md`), `---\ntags: [journal${i % 2 ? ', gardening' : ''}]\n---\n# Entry ${day}\n\nWatered the tomato plants and noted the weather on day ${day}.\n`);
    }
    await writeFile(path.join(dir, 'Recipes.md'), '---\ntags: [cooking]\n---\n# Recipes\n\nBake the bread for forty minutes.\n');
    const config = defaultConfig();
    config.vault.path = dir;
    config.index.data_dir = path.join(root, 'data');
    config.search.k = 10;
    vault = await CairnVault.open(config);
    await vault.index();
  });
  after(async () => {
    await vault?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('filters alone say how many notes they keep, and page through all of them', async () => {
    const first = await vault.search({ query: 'tag:journal' });
    assert.equal(first.results.length, 10);
    assert.equal(first.total, NOTES);
    assert.equal(first.offset, 0);
    assert.equal(first.more, true);
    const seen = new Set(first.results.map((r) => r.path));
    for (let offset = 10; ; offset += 10) {
      const page = await vault.search({ query: 'tag:journal', offset });
      assert.equal(page.total, NOTES);
      for (const r of page.results) {
        assert.ok(!seen.has(r.path), `${r.path} shown twice`);
        seen.add(r.path);
      }
      if (!page.more) break;
    }
    assert.equal(seen.size, NOTES);
    assert.equal(pageLine(first, 10), `1–10 of ${NOTES} notes kept by the filters — next page: --offset 10 --k 10`);
  });

  it('a ranked search pages the same ranking: page 2 continues page 1', async () => {
    const all = await vault.search({ query: 'tomato weather', mode: 'keyword', k: 20 });
    const first = await vault.search({ query: 'tomato weather', mode: 'keyword', k: 5 });
    const second = await vault.search({ query: 'tomato weather', mode: 'keyword', k: 5, offset: 5 });
    assert.ok(first.total >= 20, `total ${first.total}`);
    assert.equal(first.more, true);
    assert.deepEqual([...first.results, ...second.results].map((r) => r.chunkId), all.results.slice(0, 10).map((r) => r.chunkId));
    const last = await vault.search({ query: 'tomato weather', mode: 'keyword', k: 5, offset: first.total - 2 });
    assert.equal(last.results.length, 2);
    assert.equal(last.more, false);
  });

  it('a tag no note has says so and offers the nearest tags', async () => {
    const response = await vault.search({ query: 'tag:gardenin' });
    assert.deepEqual(response.results, []);
    assert.deepEqual(response.unknownTags, [{ tag: 'gardenin', suggestions: ['gardening'] }]);
    assert.deepEqual(response.problems, ['no note has the tag #gardenin — did you mean #gardening?']);
    const known = await vault.search({ query: 'tag:Gardening' });
    assert.equal(known.unknownTags, undefined);
    assert.equal(known.total, 12);
  });

  it('a filter being typed (`tag:`) is no error: it filters nothing and is reported as incomplete', async () => {
    const typing = await vault.search({ query: 'tag:' });
    assert.deepEqual(typing.results, []);
    assert.equal(typing.problems, undefined);
    assert.deepEqual(typing.incomplete, ['tag:']);
    const withWords = await vault.search({ query: 'bread tag:' });
    assert.equal(withWords.results[0]?.path, 'Recipes.md');
    assert.deepEqual(withWords.incomplete, ['tag:']);
  });

  it('lists the index\'s tags with their note counts', async () => {
    assert.deepEqual(await vault.tags(), [
      { tag: 'journal', notes: NOTES },
      { tag: 'gardening', notes: 12 },
      { tag: 'cooking', notes: 1 },
    ]);
  });
});

describe('the API takes paging and the tag list', () => {
  it('search takes an offset; listTags takes nothing', () => {
    assert.deepEqual(validateApiCall('search', [{ query: 'x', k: 10, offset: 20 }]), { method: 'search', args: [{ query: 'x', k: 10, offset: 20 }] });
    assert.throws(() => validateApiCall('search', [{ query: 'x', offset: -1 }]), ApiArgumentError);
    assert.throws(() => validateApiCall('search', [{ query: 'x', offset: 1.5 }]), ApiArgumentError);
    assert.deepEqual(validateApiCall('listTags', []), { method: 'listTags', args: [] });
    assert.throws(() => validateApiCall('listTags', [1]), ApiArgumentError);
  });
});

describe('config.toml: an unclosed quote', () => {
  const errorOf = (text: string): ConfigError => {
    try {
      parseConfig(text, 'config.toml');
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    assert.fail('no error');
  };

  it('is reported as an unclosed string at its opening quote', () => {
    const error = errorOf('[vault]\npath = "/home/me/notes\n\n[search]\nk = 10\n');
    assert.equal(error.line, 2);
    assert.equal(error.column, 8);
    assert.match(error.detail, /^unclosed string: add the closing " before the end of line 2$/);
    assert.equal(problemOf(error).message, error.detail);
  });

  it('single quotes, an escaped quote inside, and a multi-line string too', () => {
    assert.equal(errorOf("[vault]\npath = '/x\n").column, 8);
    const escaped = errorOf('[vault]\npath = "a \\" b\n');
    assert.match(escaped.detail, /unclosed string/);
    assert.equal(escaped.column, 8);
    assert.match(errorOf('[vault]\npath = """abc\n').detail, /^unclosed string: the """ opened here is never closed$/);
  });

  it('other syntax errors keep their own message', () => {
    assert.match(errorOf('[search]\nk = = 3\n').detail, /^invalid TOML/);
    assert.match(errorOf('[search]\nk = "a" # "\n').detail, /expected a|must be|integer|number/);
  });

  it('every bad value of a file is listed, not only the first', () => {
    const error = errorOf('[search]\nk = "ten"\nmode = "fast"\n');
    assert.equal(error.problems.length, 2);
    assert.match(problemOf(error).message, /also line 3/);
  });
});

describe('paging a broad ranked search', { timeout: 180_000 }, () => {
  let root: string;
  let vault: CairnVault;
  const WORDS = ['harvest', 'compost', 'seedlings', 'mulch', 'pruning', 'irrigation', 'greenhouse', 'trellis', 'tomatoes', 'beans', 'orchard', 'weeds', 'frost', 'rain', 'shade', 'bees', 'soil', 'roots', 'spade', 'fence'];
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'cairn-paging-broad-'));
    const dir = path.join(root, 'vault');
    await mkdir(dir, { recursive: true });
    // 200 notes that match the query by different words in different amounts (seeded): both rankers' lists run past
    // the fusion's first depth, in different orders, so later pages need deeper lists than the first.
    const random = seededRandom(7);
    const some = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!);
    for (let i = 0; i < 200; i++) {
      await writeFile(path.join(dir, `Plot ${String(i).padStart(3, '0')}.md`), `# Plot ${i}\n\n## Log\n\nThe garden of plot ${i}: ${some(3 + (i % 7)).join(', ')}.\n\n## Plan\n\nNext season: ${some(2 + (i % 5)).join(' and ')}.\n`);
    }
    const config = defaultConfig();
    config.vault.path = dir;
    config.index.data_dir = path.join(root, 'data');
    config.embedding.adapt = false;
    vault = await CairnVault.open(config);
    await vault.index();
  });
  after(async () => {
    await vault?.close();
    await rm(root, { recursive: true, force: true });
  });

  for (const mode of ['keyword', 'hybrid'] as const) {
    it(`${mode}: pages of 10 are one ranking, each result once, the same as asking for all at once`, async () => {
      const query = 'compost mulch trellis harvest frost';
      const all = await vault.search({ query, mode, k: 200 });
      assert.ok(all.results.length > 100, `${all.results.length} results`);
      const paged: string[] = [];
      for (let offset = 0; offset < all.results.length; offset += 10) {
        const page = await vault.search({ query, mode, k: 10, offset });
        paged.push(...page.results.map((r) => r.chunkId));
      }
      assert.equal(new Set(paged).size, paged.length, 'a result shown on two pages');
      assert.deepEqual(paged, all.results.map((r) => r.chunkId));
    });
  }
});
