import { createHash } from 'node:crypto';
import type { EmbeddingCache } from '../embedding/embeddingCache.js';
import type { Embedder } from '../embedding/embedder.js';
import { emptyTextVector, isEmptyLike } from '../embedding/emptyText.js';
import { QUERY_STOP_WORDS, tokenizeForSearch } from '../indices/searchTokenizer.js';
import { createVectorIndex, type VectorIndex } from '../indices/vector/vectorIndex.js';

/** Adds weighted keyword terms to a query. */
export interface QueryExpander {
  expand(query: string): Promise<Array<{ term: string; weight: number }>>;
}

/** Nearest vault words per query word. */
const NEIGHBOURS_PER_TERM = 3;
/** Cosine below which a neighbour is more noise than synonym (measured on the Tasks eval, see README). */
const MIN_SIMILARITY = 0.6;
/** Expansion terms count this much of a real query term, times their similarity. */
const EXPANSION_WEIGHT = 0.35;
const PLAIN_WORD = /^\p{Ll}{3,}$/u;

export function termHash(term: string): string {
  return createHash('sha256').update(term).digest('hex').slice(0, 16);
}

/**
 * Query expansion over the vault's own vocabulary: each plain word of the query brings in the vault words
 * nearest to it in the embedding space (for the bundled word-vector model, its GloVe neighbours), so a
 * keyword search for "remove" also finds "delete". Only words that occur in the vault are ever added.
 */
export class EmbeddingNeighbourExpander implements QueryExpander {
  /** Vocabulary words in the index, and those the model does not know (kept out of it, but not embedded again). */
  private readonly indexed = new Set<string>();
  private readonly unknown = new Set<string>();
  private index?: VectorIndex;
  private readonly queryVectors = new Map<string, Float32Array | null>();

  constructor(
    private readonly embedder: Pick<Embedder, 'embed' | 'dims'>,
    /** Opened on first use. */
    private readonly cache: () => Promise<EmbeddingCache>,
  ) {}

  /** The cache hashes of the vocabulary's vectors (kept when the cache is pruned). */
  hashes(): string[] {
    return [...this.indexed, ...this.unknown].map(termHash);
  }

  /**
   * Brings the vocabulary index in line with `vocabulary`: words no longer in it are removed, new ones added (only
   * words never embedded before are embedded), so keeping up with an edited note costs little. The result is
   * the same whatever the order of the changes: ties between words rank by word (vectorIndex breaks ties by id).
   */
  async build(vocabulary: Iterable<string>): Promise<void> {
    const cache = await this.cache();
    const words = new Set<string>();
    for (const term of vocabulary) if (PLAIN_WORD.test(term) && !QUERY_STOP_WORDS.has(term)) words.add(term);
    const added = [...words].filter((w) => !this.indexed.has(w) && !this.unknown.has(w)).sort();
    // Hashed once: tens of thousands of words on a first build.
    const hashes = new Map(added.map((w) => [w, termHash(w)]));
    const missing = added.filter((w) => !cache.has(hashes.get(w)!));
    if (missing.length) {
      const vectors = await this.embedder.embed(missing);
      missing.forEach((w, i) => cache.set(hashes.get(w)!, vectors[i]));
    }
    const read = await cache.read(added.map((w) => hashes.get(w)!));
    const empty = await emptyTextVector(this.embedder);
    // No await below: a search sees the vocabulary before this build or after it, never half of it.
    const gone = [...this.indexed].filter((w) => !words.has(w));
    for (const word of this.unknown) if (!words.has(word)) this.unknown.delete(word);
    const items: Array<{ id: string; vector: Float32Array }> = [];
    for (const [i, word] of added.entries()) {
      const vector = read[i];
      if (!vector) continue; // unreadable (its file damaged since): the next build embeds it again
      // Words the model does not know embed like empty text: they have no neighbours to offer.
      if (isEmptyLike(vector, empty)) this.unknown.add(word);
      else items.push({ id: word, vector });
    }
    // The same exact inner-product index as the chunks' (faiss when it loads): a vocabulary scan per query word.
    this.index ??= createVectorIndex({ dims: this.embedder.dims, backend: 'auto', kind: 'flat', hnswThreshold: Number.MAX_SAFE_INTEGER });
    this.index.remove(gone);
    this.index.upsert(items);
    for (const word of gone) this.indexed.delete(word);
    for (const { id } of items) this.indexed.add(id);
    // Query words' vectors are remembered between builds only: the cache stays the size of recent queries.
    this.queryVectors.clear();
  }

  async expand(query: string): Promise<Array<{ term: string; weight: number }>> {
    const index = this.index;
    if (!index || index.size === 0) return [];
    const words = [...new Set(tokenizeForSearch(query).filter((t) => PLAIN_WORD.test(t) && !QUERY_STOP_WORDS.has(t)))];
    await this.embedUnseen(words);
    const best = new Map<string, number>();
    for (const word of words) {
      const vector = this.queryVectors.get(word);
      if (!vector) continue;
      // A few extra candidates: inflections of the query words are skipped below.
      let taken = 0;
      for (const hit of index.search(vector, Math.min(index.size, NEIGHBOURS_PER_TERM + 8))) {
        if (hit.score < MIN_SIMILARITY || taken >= NEIGHBOURS_PER_TERM) break;
        // Inflections of a query word are the keyword index's job (prefix matching), not expansion's.
        if (words.includes(hit.id) || hit.id.startsWith(word) || word.startsWith(hit.id)) continue;
        best.set(hit.id, Math.max(best.get(hit.id) ?? 0, hit.score));
        taken++;
      }
    }
    return [...best].map(([term, score]) => ({ term, weight: EXPANSION_WEIGHT * score })).sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
  }

  /** Query words' vectors: from the vocabulary when the vault has the word, else embedded (one call). */
  private async embedUnseen(words: string[]): Promise<void> {
    const unseen = words.filter((w) => !this.queryVectors.has(w));
    const fromVocabulary = unseen.filter((w) => this.indexed.has(w));
    for (const word of fromVocabulary) this.queryVectors.set(word, this.index?.vectorOf(word) ?? null);
    const toEmbed = unseen.filter((w) => !this.indexed.has(w));
    if (toEmbed.length === 0) return;
    const [vectors, empty] = await Promise.all([this.embedder.embed(toEmbed), emptyTextVector(this.embedder)]);
    toEmbed.forEach((word, i) => this.queryVectors.set(word, isEmptyLike(vectors[i], empty) ? null : vectors[i]));
  }
}
