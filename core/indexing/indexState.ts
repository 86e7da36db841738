import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { KeywordIndex } from '../indices/keywordIndex.js';
import { LinkGraph } from '../indices/linkGraph.js';
import { createVectorIndex, loadVectorIndex, type VectorIndex, type VectorIndexOptions } from '../indices/vectorIndex.js';
import { writeFileAtomic } from './atomicWrite.js';
import { readManifest, rebuildReason, writeManifest, SCHEMA_VERSION, type IndexIdentity, type Manifest } from './manifest.js';
import { NOTES_FILE, NoteStore } from './noteStore.js';
import { withWriteLock } from './writeLock.js';

const KEYWORD_FILE = 'keyword.jsonl';
const GRAPH_FILE = 'graph.json';
const VECTORS_DIR = 'vectors';

/** Everything one vault's index holds, in memory, with its persistence. */
export class IndexState {
  private constructor(
    readonly dir: string,
    readonly identity: IndexIdentity,
    readonly store: NoteStore,
    readonly keyword: KeywordIndex,
    readonly vectors: VectorIndex,
    readonly graph: LinkGraph,
    private builtAt: string,
    private generation: number,
  ) {}

  /** Whether this state was ever written (a fresh one, e.g. of a rebuild, was not). */
  get saved(): boolean {
    return this.generation > 0;
  }

  static empty(dir: string, identity: IndexIdentity, vectorOptions: VectorIndexOptions): IndexState {
    return new IndexState(dir, identity, new NoteStore(), KeywordIndex.create(), createVectorIndex(vectorOptions), LinkGraph.create(), new Date().toISOString(), 0);
  }

  /**
   * Loads the persisted index when it matches the identity. Otherwise returns an empty state and the reason a
   * full rebuild is needed (no index, changed config or model, or damaged files — never an exception).
   * The files load while the identity is still being worked out (the embedding model loads in parallel).
   */
  static async open(
    dir: string,
    identityPromise: Promise<IndexIdentity>,
    vectorOptionsFor: (dims: number) => VectorIndexOptions,
  ): Promise<{ state: IndexState; rebuild?: string }> {
    const manifest = await readManifest(dir);
    const loading = manifest ? loadFiles(dir, manifest, vectorOptionsFor(manifest.embedding?.dims ?? 0)).catch((error: Error) => error) : undefined;
    const identity = await identityPromise;
    const empty = () => IndexState.empty(dir, identity, vectorOptionsFor(identity.embedding.dims));
    const reason = rebuildReason(manifest, identity);
    if (reason || !manifest || !loading) {
      await loading;
      return { state: empty(), rebuild: reason ?? 'no index yet' };
    }
    const loaded = await loading;
    if (loaded instanceof Error) return { state: empty(), rebuild: `index files damaged (${loaded.message})` };
    const { store, keyword, graph, vectors } = loaded;
    return { state: new IndexState(dir, identity, store, keyword, vectors, graph, manifest.builtAt, manifest.generation) };
  }

  /**
   * Writes every part into a new generation folder, then the manifest that points at it (atomic rename),
   * then deletes all but the previous generation. A crash at any moment leaves the previous manifest and its
   * complete files. Processes sharing the folder take turns (a write lock).
   */
  async save(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await withWriteLock(this.dir, () => this.saveLocked());
  }

  private async saveLocked(): Promise<void> {
    const existing = (await readdir(this.dir).catch(() => [] as string[])).filter((e) => /^g\d+$/.test(e)).map((e) => Number(e.slice(1)));
    const generation = Math.max(this.generation, ...existing) + 1;
    const gen = path.join(this.dir, generationDir(generation));
    await rm(gen, { recursive: true, force: true });
    const files: Record<string, number> = {};
    files[NOTES_FILE] = await this.store.save(gen);
    await this.keyword.settle();
    files[KEYWORD_FILE] = await writeFileAtomic(path.join(gen, KEYWORD_FILE), this.keyword.lines());
    files[GRAPH_FILE] = await writeFileAtomic(path.join(gen, GRAPH_FILE), this.graph.toJSON());
    await this.vectors.save(path.join(gen, VECTORS_DIR));
    const manifest: Manifest = {
      ...this.identity,
      schemaVersion: SCHEMA_VERSION,
      generation,
      files,
      notes: this.store.noteCount,
      chunks: this.store.chunkCount,
      builtAt: this.builtAt,
      updatedAt: new Date().toISOString(),
    };
    await writeManifest(this.dir, manifest);
    this.generation = generation;
    // The generation before this one stays: another process that read the old manifest a moment ago is loading it.
    const older = (await readdir(this.dir)).filter((e) => /^g\d+$/.test(e) && Number(e.slice(1)) < generation).sort();
    for (const entry of older.slice(0, -1)) await rm(path.join(this.dir, entry), { recursive: true, force: true });
  }
}

async function loadFiles(dir: string, manifest: Manifest, vectorOptions: VectorIndexOptions) {
  const gen = path.join(dir, generationDir(manifest.generation));
  for (const [file, size] of Object.entries(manifest.files)) {
    const actual = (await stat(path.join(gen, file)).catch(() => undefined))?.size;
    if (actual !== size) throw new Error(`${file} is ${actual === undefined ? 'missing' : `${actual} bytes, expected ${size}`}`);
  }
  const [store, keyword, graph, vectors] = await Promise.all([
    NoteStore.load(gen),
    readFile(path.join(gen, KEYWORD_FILE)).then((bytes) => KeywordIndex.read(bytes)),
    readFile(path.join(gen, GRAPH_FILE), 'utf8').then((json) => LinkGraph.fromJSON(json)),
    loadVectorIndex(path.join(gen, VECTORS_DIR), vectorOptions),
  ]);
  if (store.chunkCount !== keyword.size || store.chunkCount !== vectors.size) {
    throw new Error(`indices disagree: ${store.chunkCount} chunks, ${keyword.size} keyword entries, ${vectors.size} vectors`);
  }
  return { store, keyword, graph, vectors };
}

function generationDir(generation: number): string {
  return `g${String(generation).padStart(6, '0')}`;
}
