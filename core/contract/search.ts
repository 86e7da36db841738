/**
 * What a search asks and answers: the types every transport (CLI, HTTP, Electron IPC) and the renderer share.
 * Types and constants only, importing nothing from the rest of core.
 */
import type { QueryOperator, SearchFilters } from './filters.js';

export type { QueryOperator, SearchFilters } from './filters.js';

export const SEARCH_MODES = ['hybrid', 'keyword', 'vector'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** One heading's part of a chunk that small sections were merged into. */
export interface ChunkPart {
  /** 1-based line where this part starts (its heading line, or the chunk's first line). */
  startLine: number;
  headerPath: string[];
  anchor: string;
}

export interface SearchRequest {
  query: string;
  k?: number;
  /** Results to skip: the next page starts where the last ended (`offset` = results already shown). */
  offset?: number;
  mode?: SearchMode;
  filters?: SearchFilters;
  /** Also return the chunks just before and after each result in its note. */
  neighbours?: boolean;
}

export interface ChunkSummary {
  chunkId: string;
  path: string;
  title: string;
  /** The heading the passage is cited by: for a chunk of merged sections, the part a search matched. */
  headerPath: string[];
  anchor: string;
  /** Set when the chunk merges several small sections: each one's heading and first line. */
  parts?: ChunkPart[];
  startLine: number;
  endLine: number;
  text: string;
}

/** Why a result ranks where it does: each ranking's part, the graph lift and recency. */
export interface Explanation {
  keywordRank: number | null;
  vectorRank: number | null;
  /** The keyword ranker's BM25 score of the chunk (null when it did not rank it). */
  keywordScore: number | null;
  /** The cosine similarity of the chunk to the query (null when the vector ranker did not rank it). */
  vectorScore: number | null;
  /** Each ranking's weight in this query's fusion (0 when it took no part): base weight × its confidence. */
  weights: { keyword: number; vector: number };
  /**
   * The share of the query's words (IDF-weighted) the keyword ranker's best hit holds: part of its confidence, the
   * same for every result of the query; null when keyword search took no part or found nothing.
   */
  keywordCoverage: number | null;
  /** The fused score before graph and recency: weighted RRF, or the convex combination when [search] fusion = "convex". */
  rrf: number;
  /** Set when the chunk was lifted by a link from/to a top result's note: that note, and the score added. */
  graph: { from: string; score: number } | null;
  /** Recency multiplier applied (1 when none). */
  recency: number;
  /** The whole query is the note's title or one of its aliases. */
  exactTitle: boolean;
  /**
   * Hybrid search's second stage (core/search/ranking/sentenceRerank.ts): the chunk's rank among the first stage's
   * best by its best sentence, that sentence's score (0..1) and first line; null when the chunk was not re-ranked
   * or has no sentence.
   */
  sentence: { rank: number; score: number; line: number } | null;
}

/** A piece of a snippet: plain text, and whether it is a word the search matched (the app marks those). */
export interface SnippetSegment {
  text: string;
  match: boolean;
}

/** Where a passage is: its chunk, note, heading path and lines. */
export type PassagePlace = Pick<ChunkSummary, 'chunkId' | 'path' | 'title' | 'headerPath' | 'startLine' | 'endLine'>;

/** Copies of a passage named where a result is shown before the rest are summed up as "N more". */
const COPIES_NAMED = 3;

/**
 * The copies a result names at first, and how many more there are: a template's text kept in hundreds of notes,
 * or a long line cut into many identical pieces, would otherwise bury the results under its copies' names.
 */
export function namedCopies<T>(copies: readonly T[]): { named: T[]; more: number } {
  return { named: copies.slice(0, COPIES_NAMED), more: Math.max(0, copies.length - COPIES_NAMED) };
}

export interface SearchResult extends ChunkSummary {
  score: number;
  /**
   * The same passage, word for word, in other notes (a vault's copies of a page, a pasted paragraph): shown once,
   * as this result, with where else it is (core/search/ranking/sameText.ts), in order of their chunk ids.
   */
  sameText?: PassagePlace[];
  /** The chunk as one line of readable text around its first matched word, cut into segments (core/search/snippet.ts). */
  snippet: SnippetSegment[];
  tags: string[];
  /** ISO time of the note's last modification. */
  modified: string;
  explain: Explanation;
  neighbours?: { before?: ChunkSummary; after?: ChunkSummary };
}

export interface SearchResponse {
  query: string;
  /** The words searched for: the query without its filter operators (`path:`, `tag:`, `after:`, `before:`). */
  text: string;
  /** The filters applied: those given with the request and those the query names. */
  filters: SearchFilters;
  /** The filter operators of the query that were used, as typed and in words. */
  operators: QueryOperator[];
  /** Operators of the query that could not be used, each saying why. */
  problems?: string[];
  mode: SearchMode;
  results: SearchResult[];
  /** Query terms added from the embedding space (query expansion), with their weights. */
  expansions: Array<{ term: string; weight: number }>;
  /** The words of `text` the app marks in snippets (stop and question words left out, as the keyword search does). */
  highlightTerms: string[];
  tookMs: number;
  /** Chunks already searchable by keyword whose vectors are still being computed (0 when the index is complete). */
  pendingEmbeddings?: number;
  /** The results skipped before these (the request's offset). */
  offset: number;
  /**
   * How many results there are in all: for filters alone, every note they keep; for a ranked search, the passages
   * the rankers returned (each looks a fixed depth down, deeper for later pages: see `candidateDepths` in core/search/ranking/depths.ts, so a broad query may match more).
   */
  total: number;
  /** More results follow these: ask again with `offset` + `results.length`. */
  more: boolean;
  /** `tag:` filters no note matches, each with the nearest tags the index has (also said in `problems`). */
  unknownTags?: Array<{ tag: string; suggestions: string[] }>;
  /** Operators typed without a value yet (`tag:`, `path:`): they filter nothing, and are no error. */
  incomplete?: string[];
}

export interface TagCount {
  /** As first written in the vault (without `#`); tags are compared case-insensitively. */
  tag: string;
  /** Notes carrying it (in front matter, inline, or on one of their blocks). */
  notes: number;
}
