/**
 * How search results are ranked, in one object: the `[search]` options combined with the embedding model's fusion
 * defaults, plus the fixed depths. Every part of core/search/ranking/ reads this instead of config keys.
 */
import type { SearchConfig } from './schema.js';

/**
 * Fusion settings that belong to the embedding model, not to the code: a static word model ranks far less
 * reliably than a sentence transformer, so it deserves less weight against BM25. A model folder may hold
 * cairn.json → { "fusion": { "rrf_k": 10, "keyword_weight": 1, "vector_weight": 0.5 } }; [search] rrf_k (when
 * not 0) replaces the model's constant and [search] keyword_weight / vector_weight scale its weights.
 */
export interface FusionDefaults {
  rrf_k: number;
  keyword_weight: number;
  vector_weight: number;
}

/** For a model folder without cairn.json (a hub transformer): the classic equal-weight RRF of Cormack et al. */
export const GENERIC_FUSION_DEFAULTS: Readonly<FusionDefaults> = { rrf_k: 60, keyword_weight: 1, vector_weight: 1 };

/** Candidates each ranker contributes to the fusion, at the least. */
const CANDIDATE_DEPTH = 60;
/** Best notes whose links lift their neighbours. */
const GRAPH_SOURCES = 5;

export interface RankingPolicy {
  fusion: SearchConfig['fusion'];
  /** The RRF constant: [search] rrf_k, or the model's when that is 0. */
  rrfK: number;
  /** Each ranking's base weight: the model's × [search]'s; the ranker's confidence scales it per query. */
  baseWeights: { keyword: number; vector: number };
  /** Share of a top note's score its linked notes' chunks join with (hybrid search only; 0 = off). */
  graphMultiplier: number;
  graphSources: number;
  recencyBoost: boolean;
  maxChunksPerNote: number;
  /** The least depth each ranker is asked for (see `candidateDepths`). */
  candidateDepth: number;
  /** Hybrid search's best chunks ranked again by their best sentence (0 = none; see sentenceRerank). */
  rerankDepth: number;
}

export function rankingPolicy(search: SearchConfig, model: Readonly<FusionDefaults> = GENERIC_FUSION_DEFAULTS): RankingPolicy {
  return {
    fusion: search.fusion,
    rrfK: search.rrf_k > 0 ? search.rrf_k : model.rrf_k,
    baseWeights: { keyword: model.keyword_weight * search.keyword_weight, vector: model.vector_weight * search.vector_weight },
    graphMultiplier: search.graph_multiplier,
    graphSources: GRAPH_SOURCES,
    recencyBoost: search.recency_boost,
    maxChunksPerNote: search.max_chunks_per_note,
    candidateDepth: CANDIDATE_DEPTH,
    rerankDepth: search.rerank_depth,
  };
}
