import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../core/config/loadConfig.js';
import { CONFIG_SCHEMA, type OptionSpec } from '../core/config/schema.js';
import { configErrorOf as errorOf } from './support/configError.js';

/** Node's timers fire at once (after 1 ms) for any delay above this. */
const NODE_TIMER_MAX_MS = 2 ** 31 - 1;

describe('config.toml number values', () => {
  for (const written of ['nan', '+nan', 'inf', '+inf', '-inf']) {
    it(`${written} is rejected with file, line, column and key`, () => {
      const error = errorOf(`# weights\n[search]\nmode = "hybrid"\nkeyword_weight = ${written}\n`);
      assert.equal(error.key, 'search.keyword_weight');
      assert.equal(error.line, 4);
      assert.equal(error.column, 18, 'the column of the value');
      assert.equal(error.message, `config.toml:4:18: search.keyword_weight: must be a finite number, got ${written.replace('+', '')}`);
    });
  }

  it('every number option refuses nan and inf (one rule for all, driven by the schema)', () => {
    for (const [section, options] of Object.entries(CONFIG_SCHEMA)) {
      for (const [key, spec] of Object.entries(options as Record<string, OptionSpec>)) {
        if (spec.type !== 'number' && spec.type !== 'integer') continue;
        for (const written of ['nan', 'inf', '-inf']) {
          const error = errorOf(`[${section}]\n${key} = ${written}\n`);
          assert.equal(error.key, `${section}.${key}`);
          assert.match(error.detail, /finite number/, `${section}.${key} = ${written}`);
        }
      }
    }
  });

  it('answer.min_confidence = nan no longer turns the confidence check off', () => {
    assert.equal(errorOf('[answer]\nmin_confidence = nan\n').key, 'answer.min_confidence');
  });

  it('a reconcile interval that overflows Node timers is rejected, not turned into a 1 ms loop', () => {
    const error = errorOf('[index]\nreconcile_interval_seconds = 2592000\n');
    assert.equal(error.key, 'index.reconcile_interval_seconds');
    assert.equal(error.line, 2);
    assert.match(error.message, /must be at most \d+, got 2592000/);
  });

  it('llm.timeout_seconds = inf is rejected (it used to fail every request at once)', () => {
    const error = errorOf('[llm]\ntimeout_seconds = inf\n');
    assert.equal(error.key, 'llm.timeout_seconds');
    assert.equal(errorOf('[llm]\ntimeout_seconds = 3000000\n').key, 'llm.timeout_seconds');
  });

  it('every option that feeds a timer has a max that fits Node timers', () => {
    const timers: Array<[OptionSpec, number]> = [
      [CONFIG_SCHEMA.index.reconcile_interval_seconds, 1000],
      [CONFIG_SCHEMA.index.debounce_ms, 1],
      [CONFIG_SCHEMA.llm.timeout_seconds, 1000],
    ];
    for (const [spec, msPerUnit] of timers) {
      assert.ok(spec.max !== undefined && spec.max * msPerUnit <= NODE_TIMER_MAX_MS, spec.doc);
    }
  });

  it('every number option has finite bounds', () => {
    for (const [section, options] of Object.entries(CONFIG_SCHEMA)) {
      for (const [key, spec] of Object.entries(options as Record<string, OptionSpec>)) {
        if (spec.type !== 'number' && spec.type !== 'integer') continue;
        assert.ok(spec.min !== undefined && spec.max !== undefined, `${section}.${key} has no min or no max`);
        assert.ok(Number.isFinite(spec.min) && Number.isFinite(spec.max) && spec.min <= spec.max, `${section}.${key} bounds`);
      }
    }
  });

  it('a whole-number option written as a huge float is rejected', () => {
    const error = errorOf('[index]\nhnsw_threshold = 1e300\n');
    assert.equal(error.key, 'index.hnsw_threshold');
  });

  it('lists every bad value of the file, not only the first', () => {
    const error = errorOf('[search]\nkeyword_weight = nan\nvector_weight = inf\n\n[index]\nreconcile_interval_seconds = 2592000\n');
    assert.equal(error.key, 'search.keyword_weight');
    assert.equal(error.line, 2);
    const lines = error.message.split('\n');
    assert.equal(lines.length, 3, error.message);
    assert.match(lines[1], /^config\.toml:3:\d+: search\.vector_weight: must be a finite number, got inf$/);
    assert.match(lines[2], /^config\.toml:6:\d+: index\.reconcile_interval_seconds: must be at most/);
    assert.equal(error.problems.length, 3);
  });

  it('a rejected value is not compared with the others (no second, misleading problem)', () => {
    const error = errorOf('[chunking]\nmin_chunk_chars = nan\nmax_chunk_chars = 100\n');
    assert.deepEqual(error.problems.map((p) => p.key), ['chunking.min_chunk_chars']);
  });

  it('finite values within bounds still load', () => {
    const config = parseConfig('[search]\nkeyword_weight = 0.25\n[index]\nreconcile_interval_seconds = 86400\n[llm]\ntimeout_seconds = 0.5\n', 'config.toml');
    assert.equal(config.search.keyword_weight, 0.25);
    assert.equal(config.index.reconcile_interval_seconds, 86400);
    assert.equal(config.llm.timeout_seconds, 0.5);
  });
});

describe('config.toml keys', () => {
  it('names of Object members are unknown keys, not options', () => {
    assert.equal(errorOf('[search]\ntoString = 1\n').key, 'search.toString');
    assert.equal(errorOf('[search]\nconstructor = 1\n').key, 'search.constructor');
    assert.equal(errorOf('[toString]\nx = 1\n').key, 'toString');
  });
});
