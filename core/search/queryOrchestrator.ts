import type { SearchConfig } from '../config/schema.js';
import { rankingPolicy } from '../config/rankingPolicy.js';
import type { ChunkSummary, Explanation, PassagePlace, SearchRequest, SearchResponse, SearchResult } from '../contract/search.js';
import { hasFilters, incompleteOperators, mergeFilters, normalisePathPrefix, normaliseTagKey, parseQuery, type SearchFilters } from '../contract/filters.js';
import type { Embedder, TextRole } from '../embedding/embedder.js';
import { emptyTextVector, isEmptyLike } from '../embedding/emptyText.js';
import type { IndexState } from '../indexing/indexState.js';
import { shownText } from '../chunking/shownText.js';
import { isShown, noteTime, sectionPieces, type ChunkRef, type StoredChunk } from '../indexing/noteStore.js';
import { openFencesOf } from './answerUnits.js';
import { citeOpeningPart, citeQueriedPart } from './citedPart.js';
import { candidateDepths, extendRanking } from './ranking/depths.js';
import { emptyExplanation } from './ranking/fusion.js';
import { rankResults } from './ranking/rankResults.js';
import { COPY_ALLOWANCE } from './ranking/sameText.js';
import { rerankBySentences } from './ranking/sentenceRerank.js';
import type { QueryExpander } from './queryExpander.js';
import { highlightTerms } from './highlightTerms.js';
import { buildSnippet } from './snippet.js';
import { hasTag, nearestTags, tagCounts, type TagCount } from './tagIndex.js';
import { questionTerms } from './termOverlap.js';

/**
 * The code fence open where a later piece of a force-split section begins, once worked out from the pieces before it
 * (a long section's later pieces would otherwise be read and scanned again for every search that finds them). A
 * changed note's chunks are new objects, so an entry never outlives the pieces it was worked out from.
 */
const fenceAtStart = new WeakMap<StoredChunk, string | undefined>();

/** The explanation of a result listed by filters alone: no ranking took part. */
const UNRANKED: Explanation = emptyExplanation();

/** Vector ∥ keyword → ranking (core/search/ranking/rankResults.ts) → the page of results. */
export class QueryOrchestrator {
  constructor(
    private readonly state: IndexState,
    private readonly embedder: Embedder,
    private readonly config: () => SearchConfig,
    /** Embeds the re-ranked chunks' sentences (the vault's embed: as passages, through its cache of recent ones). */
    private readonly embedTexts: (texts: readonly string[], as?: TextRole) => Promise<Float32Array[]>,
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
      const listed = kept.slice(offset, offset + k);
      const results = this.resultsOf(
        listed.map((ref, i) => ({ ref, score: 1 / (offset + i + 1), explain: UNRANKED })),
        await this.shownTexts(listed, request.neighbours),
        null,
        about.highlightTerms,
        request.neighbours,
      );
      return { ...about, mode, results, expansions: [], tookMs: performance.now() - started, offset, total: kept.length, more: offset + results.length < kept.length };
    }
    const accept = this.acceptor(filters);
    const policy = rankingPolicy(config, this.embedder.searchDefaults);
    const depths = candidateDepths(policy, offset, k);
    const depth = depths.at(-1)!;
    const { store, keyword, vectors, graph } = this.state;

    const queryVector = mode === 'keyword' ? undefined : this.embedTexts([query]).then(([v]) => v);
    const expansions = mode !== 'vector' && config.query_expansion && this.expander ? await this.expander.expand(query) : [];
    // Deeper than fusion takes: copies of a passage in several notes count once (see sameText.ts).
    const searchKeywords = () => (mode === 'vector' ? [] : keyword.search(query, depth * COPY_ALLOWANCE, { accept, expansions }));
    // Keyword search runs while the query is embedded (the request has left: see Embedder.embed).
    const revision = keyword.revision;
    let keywordHits = searchKeywords();
    const vector = await queryVector;
    // A query of words the model does not know has no meaning to search by: keyword search alone answers it.
    const meaningful = vector !== undefined && !isEmptyLike(vector, await emptyTextVector(this.embedder));
    // From here to the ranking in one turn of the event loop: indexing goes on between turns, and both rankings
    // and the store must be read as one state. Keyword hits from before the wait stand only if the keyword index
    // did not change meanwhile (what leaves the store leaves the keyword index first): else they could name chunks
    // the store has since dropped.
    if (keyword.revision !== revision) keywordHits = searchKeywords();
    const vectorHits = meaningful ? vectors.search(vector, depth * COPY_ALLOWANCE, accept) : [];

    const context = {
      noteOf: (id: string) => store.chunk(id)!.note.path,
      textOf: (id: string) => store.chunk(id)!.chunk.hash,
      mtimeOf: (note: string) => store.note(note)?.mtimeMs ?? 0,
      neighboursOf: (note: string) => graph.neighbours(note),
      now: Date.now(),
    };
    // Ranked at each depth from the front of the deepest lists: a ranker's best d hits are the front of its best 2d.
    const rankedAt = (d: number) => rankResults(keywordHits.slice(0, d * COPY_ALLOWANCE), vectorHits.slice(0, d * COPY_ALLOWANCE), mode, policy, d, context);
    const ranked = rankedAt(depths[0]!);
    // The sentence stage takes the first depth's best: what deeper pages add must not change the first page.
    const rerankDepth = Math.min(policy.rerankDepth, ranked.length);
    for (const d of depths.slice(1)) extendRanking(ranked, rankedAt(d));
    // Every page of a hybrid search goes through the sentence stage, so pages fit together and scores keep one scale
    // (a later page's sentences were embedded for the first: the cache has them).
    const rerank = mode === 'hybrid' && meaningful && rerankDepth > 0;
    // The chunks the page can hold, and their texts, are taken from the store in the ranking's turn too: an update
    // applied while the stage waits for vectors must not remove what this ranking found.
    const pageable = ranked.slice(0, rerank ? Math.max(offset + k, rerankDepth) : offset + k);
    const refs = new Map(pageable.map((hit) => [hit.id, store.chunk(hit.id)!]));
    // The copies' places too: the sentence stage can bring a hit from below the page into it.
    const copies = new Map(pageable.flatMap((hit) => (hit.sameText ? [[hit.id, hit.sameText.map((id) => passagePlace(store.chunk(id)!))] as const] : [])));
    const texts = this.shownTexts([...refs.values()], request.neighbours, rerank);
    const final = rerank
      ? await rerankBySentences({
          query,
          hits: ranked,
          depth: rerankDepth,
          rrfK: policy.rrfK,
          summaries: async (hits) => withFences(hits.map((hit) => refs.get(hit.id)!), await texts),
          embed: this.embedTexts,
        })
      : ranked;
    const terms = questionTerms(query);
    const page = final.slice(offset, offset + k).map((hit) => ({ ref: refs.get(hit.id)!, score: hit.score, explain: hit.explain, sameText: copies.get(hit.id) }));
    const results = this.resultsOf(page, await texts, terms, about.highlightTerms, request.neighbours);
    return { ...about, mode, results, expansions, tookMs: performance.now() - started, offset, total: ranked.length, more: offset + results.length < ranked.length };
  }

  /**
   * The shown texts of these chunks, looked up now (see `NoteStore.texts`): with their neighbours' when asked, and
   * with the earlier pieces of a force-split section's later piece when `pieces` (`withFences` needs them).
   */
  private shownTexts(refs: readonly ChunkRef[], neighbours: boolean | undefined, pieces = false): Promise<Map<StoredChunk, string>> {
    const wanted = new Set<StoredChunk>();
    for (const { note, chunk } of refs) {
      wanted.add(chunk);
      if (neighbours) for (const near of [note.chunks[chunk.index - 1], note.chunks[chunk.index + 1]]) if (near) wanted.add(near);
      if (pieces && chunk.sub && !fenceAtStart.has(chunk)) for (const piece of sectionPieces(note, chunk)) if (piece.sub! < chunk.sub) wanted.add(piece);
    }
    const chunks = [...wanted];
    return this.state.store.texts(chunks).then((texts) => new Map(chunks.map((chunk, i) => [chunk, shownText(texts[i]!)])));
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
      const chunk = admitted.find(isShown) ?? admitted[0];
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

  /**
   * The page's results, from texts read in one go (`shownTexts`: the page's and its neighbours', never all the
   * ranked candidates'). `terms`: the query's words, to cite the part of a merged chunk they are in; null when filters
   * alone listed it. `highlight`: the words a snippet marks.
   */
  private resultsOf(
    hits: ReadonlyArray<{ ref: ChunkRef; score: number; explain: Explanation; sameText?: PassagePlace[] }>,
    shown: ReadonlyMap<StoredChunk, string>,
    terms: readonly string[] | null,
    highlight: readonly string[],
    neighbours: boolean | undefined,
  ): SearchResult[] {
    return hits.map(({ ref, score, explain, sameText }) => {
      const summary = chunkSummary(ref, shown.get(ref.chunk)!);
      const result: SearchResult = {
        ...(terms ? citeQueriedPart(summary, terms) : citeOpeningPart(summary)),
        snippet: buildSnippet(summary.text, highlight),
        score,
        tags: [...ref.chunk.tags],
        modified: new Date(ref.note.mtimeMs).toISOString(),
        explain,
        ...(sameText ? { sameText } : {}),
      };
      if (neighbours) {
        const before = ref.note.chunks[ref.chunk.index - 1];
        const after = ref.note.chunks[ref.chunk.index + 1];
        result.neighbours = {
          ...(before ? { before: chunkSummary({ note: ref.note, chunk: before }, shown.get(before)!) } : {}),
          ...(after ? { after: chunkSummary({ note: ref.note, chunk: after }, shown.get(after)!) } : {}),
        };
      }
      return result;
    });
  }

  private acceptor(filters: SearchFilters): ((id: string) => boolean) | undefined {
    const { modifiedAfter, modifiedBefore } = filters;
    const pathPrefix = filters.pathPrefix === undefined ? undefined : normalisePathPrefix(filters.pathPrefix);
    const tagKeys = (list: string[] | undefined) => (list ?? []).map(normaliseTagKey).filter(Boolean);
    const tags = tagKeys(filters.tags);
    const excludeTags = tagKeys(filters.excludeTags);
    const excludePaths = (filters.excludePaths ?? []).map(normalisePathPrefix).filter(Boolean);
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

/**
 * Chunks as results show them, each with the code fence open where it begins: for a later piece of a force-split
 * section, from the pieces before it (the chunker cuts a long code block at its lines; see `fenceAtStart`). `shown`
 * holds the texts of the pieces whose fence is not known yet.
 */
function withFences(refs: readonly ChunkRef[], shown: ReadonlyMap<StoredChunk, string>): Array<{ chunk: ChunkSummary; openFence?: string }> {
  return refs.map((ref) => {
    const chunk = chunkSummary(ref, shown.get(ref.chunk)!);
    if (!ref.chunk.sub) return { chunk };
    if (!fenceAtStart.has(ref.chunk)) {
      const pieces = sectionPieces(ref.note, ref.chunk).filter((piece) => piece.sub! <= ref.chunk.sub!);
      const fences = openFencesOf(pieces.map((piece) => ({ text: shown.get(piece)!, startLine: piece.startLine })));
      pieces.forEach((piece, i) => fenceAtStart.set(piece, fences[i]));
    }
    return { chunk, openFence: fenceAtStart.get(ref.chunk) };
  });
}

/** Where a chunk is, as a result lists the copies of its passage. */
function passagePlace({ note, chunk }: ChunkRef): PassagePlace {
  return { chunkId: chunk.id, path: note.path, title: note.title, headerPath: [...chunk.headerPath], startLine: chunk.startLine, endLine: chunk.endLine };
}

/** A chunk as results cite it, with `text`: what it shows (read from the index: see `NoteStore.texts`). */
export function chunkSummary({ note, chunk }: ChunkRef, text: string): ChunkSummary {
  return {
    chunkId: chunk.id,
    path: note.path,
    title: note.title,
    // A copy: the index shares one header path among the chunks that have it.
    headerPath: [...chunk.headerPath],
    anchor: chunk.anchor,
    ...(chunk.parts ? { parts: chunk.parts } : {}),
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    // What the chunk shows (no `key:: value`, `((uuid))`, macros or `#+BEGIN_`), line for line with its source.
    text,
  };
}

/** `no note has the tag #x — did you mean #a, #b?` */
export function describeUnknownTag({ tag, suggestions }: { tag: string; suggestions: string[] }): string {
  return `no note has the tag #${tag}${suggestions.length ? ` — did you mean ${suggestions.map((s) => `#${s}`).join(', ')}?` : ''}`;
}
