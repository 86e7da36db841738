/**
 * The vectors of texts embedded lately, by text, least recently used out first. Hybrid search embeds the sentences
 * of its best chunks for every query, and the queries a person types one after another ("how do I", "how do I
 * archive") and the answer that follows a search meet the same chunks: their sentences are embedded once.
 *
 * One cache per embedder (its vectors are that model's); bounded by the bytes its vectors take.
 */
export class TextVectorCache {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly capacity: number;

  constructor(dims: number, maxBytes: number) {
    this.capacity = Math.max(1, Math.floor(maxBytes / (dims * Float32Array.BYTES_PER_ELEMENT)));
  }

  get size(): number {
    return this.vectors.size;
  }

  clear(): void {
    this.vectors.clear();
  }

  /** The vectors of `texts` in order: cached ones as they are, the others from one call of `embed` (each text once). */
  async embed(texts: readonly string[], embed: (missing: string[]) => Promise<Float32Array[]>): Promise<Float32Array[]> {
    // Taken before waiting: another call may evict them meanwhile.
    const known = new Map<string, Float32Array>();
    for (const text of texts) {
      const vector = this.vectors.get(text);
      if (vector) known.set(text, vector);
    }
    const missing = [...new Set(texts.filter((text) => !known.has(text)))];
    if (missing.length) (await embed(missing)).forEach((vector, i) => known.set(missing[i]!, vector));
    for (const text of texts) this.touch(text, known.get(text)!);
    return texts.map((text) => known.get(text)!);
  }

  /** Marks a text as the most recently used (a Map iterates in insertion order), evicting the least when full. */
  private touch(text: string, vector: Float32Array): void {
    this.vectors.delete(text);
    this.vectors.set(text, vector);
    if (this.vectors.size > this.capacity) this.vectors.delete(this.vectors.keys().next().value!);
  }
}
