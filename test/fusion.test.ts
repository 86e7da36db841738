import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reciprocalRankFusion } from '../core/search/ranking/fusion.js';
import { rankCandidates, type RankingContext, type RankingOptions } from '../core/search/ranking/rankCandidates.js';
import { firstRelevantRank, metricsOf, type EvalQuestion } from '../core/search/evaluation.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 25);

function context(notes: Record<string, { mtime?: number; links?: string[] }>): RankingContext {
  return {
    noteOf: (id) => id.split('#')[0],
    mtimeOf: (note) => notes[note]?.mtime ?? NOW - 365 * DAY,
    neighboursOf: (note) => notes[note]?.links ?? [],
    now: NOW,
  };
}

const options: RankingOptions = { graphMultiplier: 0, graphSources: 5, recencyBoost: false, maxChunksPerNote: 2, k: 10 };

describe('reciprocal rank fusion', () => {
  it('scores Σ weight / (k + rank) and records each list rank', () => {
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', weight: 1, ids: ['a#0', 'b#0'] },
        { name: 'vector', weight: 2, ids: ['b#0', 'c#0'] },
      ],
      60,
    );
    assert.equal(fused.get('a#0')!.rrf, 1 / 61);
    assert.equal(fused.get('b#0')!.rrf, 1 / 62 + 2 / 61);
    assert.deepEqual([fused.get('b#0')!.keywordRank, fused.get('b#0')!.vectorRank], [2, 1]);
    assert.equal(fused.get('c#0')!.keywordRank, null);
    const ranked = rankCandidates(fused, context({}), options).map((h) => h.id);
    assert.deepEqual(ranked, ['b#0', 'c#0', 'a#0']);
  });

  it('exact title matches come first whatever their score', () => {
    const fused = reciprocalRankFusion([{ name: 'keyword', weight: 1, ids: ['a#0', 'b#0', 'c#0'] }], 60);
    fused.get('c#0')!.exactTitle = true;
    assert.equal(rankCandidates(fused, context({}), options)[0].id, 'c#0');
  });

  it('lifts chunks of notes linked from or to a top note to the multiplier times its score', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `n${i}#0`);
    const fused = reciprocalRankFusion([{ name: 'keyword', weight: 1, ids }], 60);
    const ranked = rankCandidates(fused, context({ n0: { links: ['n29'] } }), { ...options, graphMultiplier: 0.9 });
    const lifted = ranked.find((h) => h.id === 'n29#0');
    assert.ok(lifted, 'the linked note joined the top 10');
    assert.deepEqual(lifted.explain.graph, { from: 'n0', score: (1 / 61) * 0.9 });
    assert.equal(rankCandidates(fused, context({ n0: { links: ['n29'] } }), options).find((h) => h.id === 'n29#0'), undefined);
  });

  it('recency breaks near-ties: notes modified within 7 days ×1.02, within 30 days ×1.01', () => {
    // Equal evidence: each chunk is first in one ranking and second in the other.
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', weight: 1, ids: ['old#0', 'week#0'] },
        { name: 'vector', weight: 1, ids: ['week#0', 'old#0'] },
      ],
      60,
    );
    const ranked = rankCandidates(fused, context({ week: { mtime: NOW - 2 * DAY } }), { ...options, recencyBoost: true });
    assert.deepEqual(ranked.map((h) => [h.id, h.explain.recency]), [['week#0', 1.02], ['old#0', 1]]);
  });

  it('recency never lifts a chunk past one with clearly better fused evidence', () => {
    // The case: with k = 60 a ×1.2 for "edited this week" lifted rank 13 to rank 1.
    const ids = Array.from({ length: 13 }, (_, i) => `n${i + 1}#0`);
    const fused = reciprocalRankFusion([{ name: 'keyword', weight: 1, ids }], 60);
    const ranked = rankCandidates(fused, context({ n13: { mtime: NOW - DAY }, n12: { mtime: NOW - 10 * DAY } }), { ...options, recencyBoost: true });
    assert.equal(ranked[0].id, 'n1#0');
    // A week's nudge passes at most the chunks within 2 % of its score: here, ranks 12 and 11 (1/72, 1/71 vs 1.02/73).
    const week = ranked.findIndex((h) => h.id === 'n13#0');
    assert.ok(week === -1 || week >= 9, `n13 stays near the bottom (at ${week + 1})`);
  });

  it('keeps at most max_chunks_per_note chunks of one note, and k in all', () => {
    const fused = reciprocalRankFusion([{ name: 'vector', weight: 1, ids: ['a#0', 'a#1', 'a#2', 'b#0', 'c#0', 'd#0'] }], 60);
    assert.deepEqual(rankCandidates(fused, context({}), { ...options, k: 4 }).map((h) => h.id), ['a#0', 'a#1', 'b#0', 'c#0']);
  });
});

describe('retrieval metrics', () => {
  const question: EvalQuestion = { id: 't', q: 'q', kind: 'keyword', relevant: [{ path: 'A.md', heading: 'Sub' }] };
  it('a chunk counts when its header path contains the heading', () => {
    const results = [
      { path: 'B.md', headerPath: ['Sub'] },
      { path: 'A.md', headerPath: ['Top'] },
      { path: 'A.md', headerPath: ['Top', 'Sub', 'Deeper'] },
    ];
    assert.equal(firstRelevantRank(results, question), 3);
    assert.equal(firstRelevantRank(results, { ...question, relevant: [{ path: 'A.md', heading: null }] }), 2);
    assert.equal(firstRelevantRank(results.slice(0, 2), question), 0);
  });
  it('Recall@5, Recall@10 and MRR@10', () => {
    assert.deepEqual(metricsOf([1, 2, 6, 0]), { 'recall@5': 0.5, 'recall@10': 0.75, 'mrr@10': Math.round(((1 + 0.5 + 1 / 6) / 4) * 1000) / 1000 });
  });
});
