// The fault suite's own checks: a difference the checker misses would let a lost note pass as "recovered".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify, type RunResult } from './cairnProcess.js';
import { compareProbes, type Probe } from './checker.js';

function probe(): Probe {
  return {
    notes: 2,
    chunks: 3,
    pendingRebuild: null,
    failed: ['bad.md'],
    snapshot: { chunkIds: ['a.md#0', 'a.md#1', 'b.md#0'], keywordIds: ['a.md#0', 'a.md#1', 'b.md#0'], vectorIds: ['a.md#0', 'a.md#1', 'b.md#0'], links: { 'a.md': ['b.md'], 'b.md': [] }, failures: ['bad.md'] },
    searches: { 'hybrid: x': [['a.md#0', 0.5], ['b.md#0', 0.25]] },
  };
}

describe('compareProbes', () => {
  it('finds no difference between equal indexes, nor in scores within rounding', () => {
    const actual = probe();
    actual.searches['hybrid: x']![0]![1] += 1e-9;
    assert.deepEqual(compareProbes(actual, probe()), []);
  });

  it('names a lost chunk in every index that lost it', () => {
    const actual = probe();
    actual.chunks = 2;
    actual.snapshot.chunkIds = ['a.md#0', 'b.md#0'];
    actual.snapshot.vectorIds = ['a.md#0', 'b.md#0'];
    const found = compareProbes(actual, probe());
    assert.ok(found.includes('chunks: 2, fresh index 3'));
    assert.ok(found.includes('chunk ids: 1 missing (a.md#1)'));
    assert.ok(found.includes('vector index ids: 1 missing (a.md#1)'));
    assert.ok(!found.some((line) => line.startsWith('keyword index ids')));
  });

  it('reports a changed order, a changed score, a missing result, links and a pending rebuild', () => {
    const swapped = probe();
    swapped.searches['hybrid: x'] = [['b.md#0', 0.25], ['a.md#0', 0.5]];
    assert.deepEqual(compareProbes(swapped, probe()), ['search "hybrid: x" differs at rank 1: b.md#0 (0.250000) instead of a.md#0 (0.500000)']);
    const rescored = probe();
    rescored.searches['hybrid: x']![1]![1] = 0.3;
    assert.equal(compareProbes(rescored, probe()).length, 1);
    const shorter = probe();
    shorter.searches['hybrid: x'] = [['a.md#0', 0.5]];
    assert.deepEqual(compareProbes(shorter, probe()), ['search "hybrid: x" differs at rank 2: nothing instead of b.md#0 (0.250000)']);
    const unlinked = probe();
    unlinked.snapshot.links['a.md'] = [];
    unlinked.pendingRebuild = 'index files damaged';
    assert.deepEqual(compareProbes(unlinked, probe()), ['the index still needs a rebuild: index files damaged', 'links differ for 1 notes: a.md']);
  });
});

describe('classify', () => {
  const run = (over: Partial<RunResult>): RunResult => ({ code: 0, signal: null, stdout: '', stderr: '', ms: 1000, timedOut: false, ...over });

  it('tells a clear error from an escaped exception, a signal and a hang', () => {
    assert.equal(classify(run({})).kind, 'ok');
    assert.equal(classify(run({ code: 1, stderr: 'cairn: error: the vault /x does not exist\n' })).kind, 'error');
    const stack = 'file:///work/core/a.ts:3\nTypeError: boom\n    at open (/work/core/a.ts:3:9)\n    at async main (file:///work/cli/main.ts:24:3)\n';
    assert.equal(classify(run({ code: 1, stderr: `cairn: error: boom\n${stack}` })).kind, 'crash');
    assert.equal(classify(run({ code: 1, stderr: 'something went wrong\n' })).kind, 'crash');
    assert.equal(classify(run({ code: 134, stderr: 'Aborted\n' })).kind, 'crash');
    assert.equal(classify(run({ code: null, signal: 'SIGSEGV' })).kind, 'crash');
    assert.equal(classify(run({ timedOut: true, code: null, signal: 'SIGKILL' })).kind, 'hang');
  });
});
