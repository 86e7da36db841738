import type { ChunkPart } from '../chunking/types.js';
import type { SearchConfig } from '../config/schema.js';
import type { Embedder } from '../embedding/embedder.js';
import { emptyTextVector, isEmptyLike } from '../embedding/emptyText.js';
import type { IndexState } from '../indexing/indexState.js';
import { hasShownText, shownText } from '../chunking/shownText.js';
import { noteTime, type ChunkRef } from '../indexing/noteStore.js';
import { citeOpeningPart, citeQueriedPart } from './citedPart.js';
import { convexFusion, emptyExplanation, rankCandidates, reciprocalRankFusion, type Explanation, type RankedList } from './fusion.js';
import { GENERIC_FUSION_DEFAULTS } from './fusionDefaults.js';
import { keywordConfidence, vectorConfidence } from './rankerConfidence.js';
import type { QueryExpander } from './queryExpander.js';
import { hasFilters, mergeFilters, parseQuery, type QueryOperator } from './queryOperators.js';
import { highlightTerms } from './highlightTerms.js';
import { hasTag, nearestTags, tagCounts, type TagCount } from './tagIndex.js';
import { questionTerms } from './termOverlap.js';

export type SearchMode = 'hybrid' | 'keyword' | 'vector';

export interface SearchFilters {
  /** Vault-relative folder or path prefix, e.g. "Projects/" or "Daily/2026-". */
  pathPrefix?: string;
  /** Notes or chunks carrying every one of these tags (case-insensitive; "a" also matches "a/b"). */
  tags?: string[];
  /** Leaves out notes under these folders or path prefixes. */
  excludePaths?: string[];
  /** Leaves out notes or chunks carrying any of these tags. */
  excludeTags?: string[];
  /** Modified at or after / before these times (ms since epoch); a journal page by its day (see `noteTime`). */
  modifiedAfter?: number;
  modifiedBefore?: number;
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

export interface SearchResult extends ChunkSummary {
  score: number;
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
   * the rankers returned (each looks a fixed depth down, see `CANDIDATE_DEPTH`, so a broad query may match more).
   */
  total: number;
  /** More results follow these: ask again with `offset` + `results.length`. */
  more: boolean;
  /** `tag:` filters no note matches, each with the nearest tags the index has (also said in `problems`). */
  unknownTags?: Array<{ tag: string; suggestions: string[] }>;
  /** Operators typed without a value yet (`tag:`, `path:`): they filter nothing, and are no error. */
  incomplete?: string[];
}

/** The explanation of a result listed by filters alone: no ranking took part. */
const UNRANKED: Explanation = emptyExplanation();

/** Candidates each ranker contributes to the fusion. */
const CANDIDATE_DEPTH = 60;
/** Best notes whose links lift their neighbours. */
const GRAPH_SOURCES = 5;

/** Vector ∥ keyword → weighted RRF → 1-hop graph lift → recency → per-note cap → top k. */
export class QueryOrchestrator {
  constructor(
    private readonly state: IndexState,
    private readonly embedder: Embedder,
    private readonly config: () => SearchConfig,
    private readonly expander?: QueryExpander,
  ) {}

  async search(request: SearchRequest): Promise<SearchResponse> {
    const started = performance.now();
    const config = this.config();
    const mode = request.mode ?? config.mode;
    const k = request.k ?? config.k;
    const offset = Math.max(0, Math.floor(request.offset ?? 0));
    const parsed = parseQuery(request.query);
    const filters = mergeFilters(request.filters, parsed.filters);
    const unknownTags = this.unknownTags(filters.tags ?? []);
    const problems = [...parsed.problems, ...unknownTags.map(describeUnknownTag)];
    const incomplete = incompleteOperators(request.query);
    const about = {
      query: request.query.trim(),
      text: parsed.text,
      highlightTerms: highlightTerms(parsed.text),
      filters,
      operators: parsed.operators,
      ...(problems.length ? { problems } : {}),
      ...(unknownTags.length ? { unknownTags } : {}),
      ...(incomplete.length ? { incomplete } : {}),
    };
    const query = parsed.text;
    if (!query) {
      // Filters alone ("tag:idea") list what they admit, newest first.
      const kept = hasFilters(filters) ? this.browse(filters) : [];
      const results = kept.slice(offset, offset + k).map((ref, i) => this.resultOf(ref, 1 / (offset + i + 1), UNRANKED, null, request.neighbours));
      return { ...about, mode, results, expansions: [], tookMs: performance.now() - started, offset, total: kept.length, more: offset + results.length < kept.length };
    }
    const accept = this.acceptor(filters);
    const depth = Math.max(CANDIDATE_DEPTH, (offset + k) * 3 * config.max_chunks_per_note);
    const { store, keyword, vectors, graph } = this.state;

    // The query embedding runs in the embedder's worker while the keyword search runs here.
    const queryVector = mode === 'keyword' ? undefined : this.embedder.embed([query]).then(([v]) => v);
    const expansions = mode !== 'vector' && config.query_expansion && this.expander ? await this.expander.expand(query) : [];
    const keywordHits = mode === 'vector' ? [] : keyword.search(query, depth, { accept, expansions });
    const vector = await queryVector;
    // A query of words the model does not know has no meaning to search by: keyword search alone answers it.
    const vectorHits = vector && !isEmptyLike(vector, await emptyTextVector(this.embedder)) ? vectors.search(vector, depth, accept) : [];

    // Each ranking counts by the model's base weight (scaled by [search]) times how sure the ranker is this time.
    const model = this.embedder.searchDefaults ?? GENERIC_FUSION_DEFAULTS;
    const base = { keyword: model.keyword_weight * config.keyword_weight, vector: model.vector_weight * config.vector_weight };
    const exactTitle = keywordHits.some((h) => h.exactTitle);
    const lists: RankedList[] = [];
    if (mode !== 'vector') {
      const scores = keywordHits.map((h) => h.score);
      lists.push({ name: 'keyword', weight: base.keyword * keywordConfidence(scores, exactTitle), ids: keywordHits.map((h) => h.id), scores });
    }
    if (mode !== 'keyword') {
      const scores = vectorHits.map((h) => h.score);
      lists.push({ name: 'vector', weight: base.vector * vectorConfidence(scores), ids: vectorHits.map((h) => h.id), scores });
    }
    // A single ranking is taken as it is, and rankings equally unsure (all flat) count by their base weights:
    // a confidence of 0 must not erase an order.
    if (lists.length === 1) lists[0]!.weight = 1;
    else if (lists.every((l) => l.weight === 0)) for (const l of lists) l.weight = base[l.name];
    const fused = config.fusion === 'convex' ? convexFusion(lists) : reciprocalRankFusion(lists, config.rrf_k > 0 ? config.rrf_k : model.rrf_k);
    for (const hit of keywordHits) if (hit.exactTitle) fused.get(hit.id)!.exactTitle = true;

    const ranked = rankCandidates(
      fused,
      {
        noteOf: (id) => store.chunk(id)!.note.path,
        mtimeOf: (note) => store.note(note)?.mtimeMs ?? 0,
        neighboursOf: (note) => graph.neighbours(note),
        now: Date.now(),
      },
      // Every candidate is ranked (the per-note cap applied) so the response can say how many there are in all.
      { graphMultiplier: mode === 'hybrid' ? config.graph_multiplier : 0, graphSources: GRAPH_SOURCES, recencyBoost: config.recency_boost, maxChunksPerNote: config.max_chunks_per_note, k: Number.POSITIVE_INFINITY },
    );
    const terms = questionTerms(query);
    const results = ranked.slice(offset, offset + k).map((hit) => this.resultOf(store.chunk(hit.id)!, hit.score, hit.explain, terms, request.neighbours));
    return { ...about, mode, results, expansions, tookMs: performance.now() - started, offset, total: ranked.length, more: offset + results.length < ranked.length };
  }

  /**
   * The notes the filters admit, newest first (a journal page by its day, any other note by its mtime), each by its
   * first admitted chunk with text to show (else its first admitted chunk).
   */
  private browse(filters: SearchFilters): ChunkRef[] {
    const accept = this.acceptor(filters);
    if (!accept) return [];
    const picks: ChunkRef[] = [];
    for (const note of this.state.store.allNotes()) {
      const admitted = note.chunks.filter((c) => accept(c.id));
      const chunk = admitted.find(hasShownText) ?? admitted[0];
      if (chunk) picks.push({ note, chunk });
    }
    return picks.sort((a, b) => noteTime(b.note) - noteTime(a.note) || (a.note.path < b.note.path ? -1 : 1));
  }

  /** The index's tags with their note counts (see `tagCounts`). */
  tags(): TagCount[] {
    return tagCounts(this.state.store.allNotes());
  }

  /** The `tag:` filters no note carries, each with the nearest tags the index has. */
  private unknownTags(tags: readonly string[]): Array<{ tag: string; suggestions: string[] }> {
    const wanted = tags.map((t) => t.replace(/^#/, '')).filter(Boolean);
    if (!wanted.length) return [];
    // A known tag is usually found within the first notes; the full tag list is counted only for one no note has.
    const unknown = wanted.filter((tag) => {
      for (const note of this.state.store.allNotes()) if (hasTag(tagCounts([note]), tag)) return false;
      return true;
    });
    if (!unknown.length) return [];
    const known = this.tags();
    return unknown.map((tag) => ({ tag, suggestions: nearestTags(tag, known) }));
  }

  /** `terms`: the query's words, to cite the part of a merged chunk they are in; null when filters alone listed it. */
  private resultOf(ref: ChunkRef, score: number, explain: Explanation, terms: readonly string[] | null, neighbours: boolean | undefined): SearchResult {
    const result: SearchResult = {
      ...(terms ? citeQueriedPart(chunkSummary(ref), terms) : citeOpeningPart(chunkSummary(ref))),
      score,
      tags: ref.chunk.tags,
      modified: new Date(ref.note.mtimeMs).toISOString(),
      explain,
    };
    if (neighbours) {
      const before = ref.note.chunks[ref.chunk.index - 1];
      const after = ref.note.chunks[ref.chunk.index + 1];
      result.neighbours = {
        ...(before ? { before: chunkSummary({ note: ref.note, chunk: before }) } : {}),
        ...(after ? { after: chunkSummary({ note: ref.note, chunk: after }) } : {}),
      };
    }
    return result;
  }

  private acceptor(filters: SearchFilters): ((id: string) => boolean) | undefined {
    const { modifiedAfter, modifiedBefore } = filters;
    const pathPrefix = filters.pathPrefix?.replace(/^\.?\//, '');
    const tagKeys = (list: string[] | undefined) => (list ?? []).map((t) => t.replace(/^#/, '').toLowerCase()).filter(Boolean);
    const tags = tagKeys(filters.tags);
    const excludeTags = tagKeys(filters.excludeTags);
    const excludePaths = (filters.excludePaths ?? []).map((p) => p.replace(/^\.?\//, '')).filter(Boolean);
    if (!pathPrefix && !tags.length && !excludeTags.length && !excludePaths.length && modifiedAfter === undefined && modifiedBefore === undefined) return undefined;
    const tagged = (chunkTags: string[], tag: string) => chunkTags.some((t) => t.toLowerCase() === tag || t.toLowerCase().startsWith(`${tag}/`));
    return (id) => {
      const ref = this.state.store.chunk(id);
      if (!ref) return false;
      const { note, chunk } = ref;
      if (pathPrefix && !note.path.startsWith(pathPrefix)) return false;
      if (excludePaths.some((prefix) => note.path.startsWith(prefix))) return false;
      const time = modifiedAfter === undefined && modifiedBefore === undefined ? 0 : noteTime(note);
      if (modifiedAfter !== undefined && time < modifiedAfter) return false;
      // Strictly before: `before:2024-01-15` leaves out the journal page of that day (its time is that midnight).
      if (modifiedBefore !== undefined && time >= modifiedBefore) return false;
      if (!tags.every((tag) => tagged(chunk.tags, tag)) || excludeTags.some((tag) => tagged(chunk.tags, tag))) return false;
      return true;
    };
  }
}

export function chunkSummary({ note, chunk }: ChunkRef): ChunkSummary {
  return {
    chunkId: chunk.id,
    path: note.path,
    title: note.title,
    headerPath: chunk.headerPath,
    anchor: chunk.anchor,
    ...(chunk.parts ? { parts: chunk.parts } : {}),
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    // What the chunk shows (no `key:: value`, `((uuid))`, macros or `#+BEGIN_`), line for line with its source.
    text: shownText(chunk),
  };
}

/** `no note has the tag #x — did you mean #a, #b?` */
export function describeUnknownTag({ tag, suggestions }: { tag: string; suggestions: string[] }): string {
  return `no note has the tag #${tag}${suggestions.length ? ` — did you mean ${suggestions.map((s) => `#${s}`).join(', ')}?` : ''}`;
}

/** The operators typed with nothing after them yet (`tag:`, `-path:`), as typed. */
export function incompleteOperators(query: string): string[] {
  return [...query.matchAll(/(?:^|\s)(-?(?:path|tag|after|before):)(?=\s|$)/gi)].map((m) => m[1]!);
}
