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
    textOf: (id) => id,
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

  it('lifts chunks of notes linked from or to a top note by the multiplier times their own score', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `n${i}#0`);
    const fused = reciprocalRankFusion([{ name: 'keyword', weight: 1, ids }], 60);
    const ranked = rankCandidates(fused, context({ n0: { links: ['n12'] } }), { ...options, graphMultiplier: 0.9 });
    const lifted = ranked.find((h) => h.id === 'n12#0');
    assert.ok(lifted, 'the linked note joined the top 10');
    assert.deepEqual(lifted.explain.graph, { from: 'n0', score: (1 / 73) * 0.9 });
    assert.equal(lifted.score, (1 / 73) * 1.9);
    assert.equal(rankCandidates(fused, context({ n0: { links: ['n12'] } }), options).find((h) => h.id === 'n12#0'), undefined);
  });

  it('lends less from a weaker top note, and never lifts a chunk past one with far better evidence', () => {
    // n0 ranks first by both rankers; n1 second by keyword; n2 and n3 only deep in the keyword list.
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', weight: 1, ids: ['n0#0', 'n1#0', ...Array.from({ length: 40 }, (_, i) => `x${i}#0`), 'n2#0', 'n3#0'] },
        { name: 'vector', weight: 1, ids: ['n0#0', 'v#0'] },
      ],
      2,
    );
    const ranked = rankCandidates(fused, context({ n0: { links: ['n2'] }, n1: { links: ['n3'] } }), { ...options, graphMultiplier: 0.5, k: 100 });
    const n2 = ranked.find((h) => h.id === 'n2#0')!;
    const n3 = ranked.find((h) => h.id === 'n3#0')!;
    const bestScore = fused.get('n0#0')!.rrf;
    assert.equal(n2.explain.graph!.score, fused.get('n2#0')!.rrf * 0.5);
    assert.equal(n3.explain.graph!.score, fused.get('n3#0')!.rrf * 0.5 * (fused.get('n1#0')!.rrf / bestScore));
    // The vector ranker's second, with no keyword rank, stays above both lifted chunks (a floor at half of n0's
    // score put them above it).
    const rank = (id: string) => ranked.findIndex((h) => h.id === id);
    assert.ok(rank('v#0') < rank('n2#0') && rank('v#0') < rank('n3#0'), ranked.map((h) => h.id).join(' '));
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
