import { createEmbedder, type Embedder, type EmbedderOptions } from './embedder.js';

/**
 * An embedder that loads its model (in its own worker process) on the first `embed` call: for work that may never
 * come, such as query expansion with the shipped table while the vault's search uses its adapted one.
 */
export class LazyEmbedder implements Pick<Embedder, 'embed' | 'dims' | 'close'> {
  private loading?: Promise<Embedder>;

  constructor(
    private readonly options: EmbedderOptions,
    readonly dims: number,
  ) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.loading ??= createEmbedder(this.options);
    return (await this.loading).embed(texts);
  }

  async close(): Promise<void> {
    const embedder = await this.loading?.catch(() => undefined);
    await embedder?.close();
  }
}
