import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { configProblemLines, problemOf } from '../core/config/checkConfigText.js';
import { ConfigError, loadConfig, parseConfig } from '../core/config/loadConfig.js';
import { CONFIG_SCHEMA, defaultConfig } from '../core/config/schema.js';
import { configErrorOf as errorOf } from './support/configError.js';

describe('config.toml', () => {
  it('the shipped config.toml is valid and states every default', async () => {
    const text = await readFile(new URL('../config.toml', import.meta.url), 'utf8');
    const config = parseConfig(text, 'config.toml');
    const defaults = defaultConfig();
    for (const [section, options] of Object.entries(CONFIG_SCHEMA)) {
      for (const key of Object.keys(options)) {
        const value = (config as Record<string, Record<string, unknown>>)[section][key];
        const expected = (defaults as Record<string, Record<string, unknown>>)[section][key];
        if (`${section}.${key}` === 'vault.path') assert.equal(value, 'sample-vault');
        else assert.deepEqual(value, expected, `${section}.${key} in config.toml differs from its default`);
        assert.match(text, new RegExp(`^${key} = `, 'm'), `${section}.${key} is not documented in config.toml`);
      }
    }
  });

  it('the README documents every option', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    for (const [section, options] of Object.entries(CONFIG_SCHEMA)) {
      for (const key of Object.keys(options)) assert.ok(readme.includes(`\`${section}.${key}\``), `README does not document ${section}.${key}`);
    }
  });

  it('omitted sections and keys take defaults', () => {
    const config = parseConfig('[chunking]\nmax_chunk_chars = 1500\n', 'c.toml');
    assert.equal(config.chunking.max_chunk_chars, 1500);
    assert.equal(config.chunking.min_chunk_chars, 200);
    assert.equal(config.chunking.overlap_chars, 50);
    assert.equal(config.chunking.strategy, 'header_based');
    assert.deepEqual(config.vault.exclude, ['.obsidian/**', '.git/**', '.trash/**', 'node_modules/**', 'logseq/bak/**', 'logseq/version-files/**']);
  });

  it('a TOML syntax error names line and column', () => {
    const error = errorOf('[chunking]\nmin_chunk_chars = 100\nmax_chunk_chars = = 3\n');
    assert.equal(error.line, 3);
    assert.ok(error.column && error.column > 1);
    assert.match(error.message, /^config\.toml:3:\d+: invalid TOML/);
  });

  it('an unknown key names the key, its line and the keys the section takes', () => {
    const error = errorOf('[chunking]\nmin_chunk_chars = 100\nmax_chunk_size = 3\n');
    assert.equal(error.key, 'chunking.max_chunk_size');
    assert.equal(error.line, 3);
    assert.match(error.message, /takes strategy, min_chunk_chars, max_chunk_chars/);
  });

  it('an unknown section is rejected', () => {
    const error = errorOf('[chunkin]\nx = 1\n');
    assert.equal(error.key, 'chunkin');
    assert.equal(error.line, 1);
  });

  it('a wrong type names the key and what is expected', () => {
    assert.match(errorOf('[chunking]\nmax_chunk_chars = "2000"\n').message, /chunking\.max_chunk_chars: expected a whole number, got the string "2000"/);
    assert.match(errorOf('[chunking]\nmax_chunk_chars = 20.5\n').message, /expected a whole number/);
    assert.match(errorOf('[chunking]\ninclude_parent_headers = "yes"\n').message, /expected true or false/);
    assert.match(errorOf('[vault]\nexclude = ".git"\n').message, /vault\.exclude: expected an array of strings/);
    assert.match(errorOf('[chunking]\nstrategy = "paragraphs"\n').message, /expected one of "header_based", "none"/);
  });

  it('impossible values are rejected with the key named', () => {
    const minOverMax = errorOf('[chunking]\nmin_chunk_chars = 3000\nmax_chunk_chars = 2000\n');
    assert.equal(minOverMax.key, 'chunking.min_chunk_chars');
    assert.equal(minOverMax.line, 2);
    assert.match(errorOf('[chunking]\noverlap_chars = -5\n').message, /chunking\.overlap_chars: must be at least 0/);
    assert.match(errorOf('[chunking]\noverlap_chars = 2000\n').message, /chunking\.overlap_chars: must be smaller than chunking\.max_chunk_chars/);
  });

  let dir: string | undefined;
  after(() => dir && rm(dir, { recursive: true, force: true }));
  describe('loading from a path', () => {
    it('resolves relative paths from the config file folder', async () => {
      dir ??= await mkdtemp(path.join(os.tmpdir(), 'cairn-config-'));
      const file = path.join(dir, 'my.toml');
      await writeFile(file, '[vault]\npath = "notes"\n[index]\ndata_dir = "../data"\n');
      const { config, file: loaded } = await loadConfig(file);
      assert.equal(loaded, file);
      assert.equal(config.vault.path, path.join(dir, 'notes'));
      assert.equal(config.index.data_dir, path.resolve(dir, '../data'));
    });
    it('a missing file is a ConfigError naming it', async () => {
      await assert.rejects(loadConfig(path.join(dir!, 'nope.toml')), (error: unknown) => error instanceof ConfigError && /nope\.toml: cannot read config file \(ENOENT\)/.test(error.message));
    });
  });

  describe('every problem of a bad file, in one pass', () => {
    const bad = '[search]\nk = "ten"\nmode = "fast"\n\n[chunking]\nmax_chunk_size = 3\n\n[nope]\nx = 1\n';

    it('lists each schema problem with its file, line and key; `message` of the first still sums them up', () => {
      const problem = problemOf(errorOf(bad));
      assert.equal(problem.key, 'search.k');
      assert.equal(problem.line, 2);
      assert.match(problem.message, /also line 3/);
      assert.deepEqual(
        problem.problems?.map(({ file, line, key }) => ({ file, line, key })),
        [
          { file: 'config.toml', line: 2, key: 'search.k' },
          { file: 'config.toml', line: 3, key: 'search.mode' },
          { file: 'config.toml', line: 6, key: 'chunking.max_chunk_size' },
          { file: 'config.toml', line: 8, key: 'nope' },
        ],
      );
      assert.match(problem.problems![1].message, /^expected one of "hybrid", "keyword", "vector", got "fast"$/);
      assert.deepEqual(configProblemLines(problem).map((line) => line.split(': ')[0]), ['config.toml:2:5', 'config.toml:3:8', 'config.toml:6:18', 'config.toml:8:1']);
    });

    it('a TOML syntax error stops the parse: it is the one problem', () => {
      const problem = problemOf(errorOf('[search]\nk = "ten"\nmode = = 3\n'));
      assert.equal(problem.problems, undefined);
      assert.equal(problem.line, 3);
      assert.deepEqual(configProblemLines(problem).length, 1);
    });

    it('the CLI prints every problem, one a line, and exits 2', async () => {
      dir ??= await mkdtemp(path.join(os.tmpdir(), 'cairn-config-'));
      const file = path.join(dir, 'bad.toml');
      await writeFile(file, bad);
      const cli = spawnSync(process.execPath, [new URL('../bin/cairn', import.meta.url).pathname, 'index', '--config', file], {
        encoding: 'utf8',
        env: { ...process.env, XDG_DATA_HOME: path.join(dir, 'data') },
        timeout: 60_000,
      });
      assert.equal(cli.status, 2, cli.stderr);
      const lines = cli.stderr.trim().split('\n');
      assert.deepEqual(lines.map((line) => /^cairn: error: config: .*bad\.toml:(\d+):\d+: ([\w.]+): /.exec(line)?.slice(1)), [
        ['2', 'search.k'],
        ['3', 'search.mode'],
        ['6', 'chunking.max_chunk_size'],
        ['8', 'nope'],
      ]);
    });
  });
});
