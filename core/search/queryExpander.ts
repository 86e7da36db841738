import { createHash } from 'node:crypto';
import type { EmbeddingCache } from '../embedding/embeddingCache.js';
import type { Embedder } from '../embedding/embedder.js';
import { emptyTextVector, isEmptyLike } from '../embedding/emptyText.js';
import { QUERY_STOP_WORDS, tokenizeForSearch } from '../indices/searchTokenizer.js';

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
  private terms: string[] = [];
  private matrix = new Float32Array(0);
  private readonly queryVectors = new Map<string, Float32Array | null>();

  constructor(
    private readonly embedder: Embedder,
    private readonly cache: EmbeddingCache,
  ) {}

  /** The cache hashes of the vocabulary's vectors (kept when the cache is pruned). */
  hashes(): string[] {
    return this.terms.map(termHash);
  }

  /** (Re)builds the vocabulary matrix; only words never embedded before are embedded. */
  async build(vocabulary: Iterable<string>): Promise<void> {
    const words = [...new Set([...vocabulary].filter((t) => PLAIN_WORD.test(t) && !QUERY_STOP_WORDS.has(t)))].sort();
    const missing = words.filter((w) => !this.cache.get(termHash(w)));
    if (missing.length) {
      const vectors = await this.embedder.embed(missing);
      missing.forEach((w, i) => this.cache.set(termHash(w), vectors[i]));
    }
    const empty = await emptyTextVector(this.embedder);
    const dims = this.embedder.dims;
    const kept: string[] = [];
    const matrix = new Float32Array(words.length * dims);
    for (const word of words) {
      const vector = this.cache.get(termHash(word))!;
      // Words the model does not know embed like empty text: they have no neighbours to offer.
      if (isEmptyLike(vector, empty)) continue;
      matrix.set(vector, kept.length * dims);
      kept.push(word);
    }
    this.terms = kept;
    this.matrix = matrix.subarray(0, kept.length * dims);
    this.queryVectors.clear();
  }

  async expand(query: string): Promise<Array<{ term: string; weight: number }>> {
    if (this.terms.length === 0) return [];
    const words = [...new Set(tokenizeForSearch(query).filter((t) => PLAIN_WORD.test(t) && !QUERY_STOP_WORDS.has(t)))];
    const best = new Map<string, number>();
    for (const word of words) {
      const vector = await this.vectorOf(word);
      if (!vector) continue;
      for (const { term, score } of this.nearest(vector, word, words)) best.set(term, Math.max(best.get(term) ?? 0, score));
    }
    return [...best].map(([term, score]) => ({ term, weight: EXPANSION_WEIGHT * score })).sort((a, b) => b.weight - a.weight);
  }

  private async vectorOf(word: string): Promise<Float32Array | null> {
    if (!this.queryVectors.has(word)) {
      const [vector] = await this.embedder.embed([word]);
      this.queryVectors.set(word, isEmptyLike(vector, await emptyTextVector(this.embedder)) ? null : vector);
    }
    return this.queryVectors.get(word)!;
  }

  private nearest(vector: Float32Array, word: string, queryWords: string[]): Array<{ term: string; score: number }> {
    const dims = this.embedder.dims;
    const top: Array<{ term: string; score: number }> = [];
    for (let row = 0; row < this.terms.length; row++) {
      let score = 0;
      const offset = row * dims;
      for (let d = 0; d < dims; d++) score += this.matrix[offset + d] * vector[d];
      if (score < MIN_SIMILARITY) continue;
      const term = this.terms[row];
      // Inflections of a query word are the keyword index's job (prefix matching), not expansion's.
      if (queryWords.includes(term) || term.startsWith(word) || word.startsWith(term)) continue;
      top.push({ term, score });
      top.sort((a, b) => b.score - a.score);
      if (top.length > NEIGHBOURS_PER_TERM) top.pop();
    }
    return top;
  }
}
