import { lstat, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { KeywordIndex } from '../indices/keyword/keywordIndex.js';
import { LinkGraph } from '../indices/graph/linkGraph.js';
import { createVectorIndex, loadVectorIndex, type VectorIndex, type VectorIndexOptions } from '../indices/vector/vectorIndex.js';
import { checkedWhenLoaded, HEADER_FILE as VECTOR_HEADER, VectorIndexCorruptError } from '../indices/vector/vectorIndexFiles.js';
import { writeFileAtomic } from './atomicWrite.js';
import { digestBytes, digestFile, type FileDigest } from '../embedding/fileDigest.js';
import { loadManifest, MANIFEST_FILE, onlyChunkingChanged, rebuildReason, writeManifest, SCHEMA_VERSION, type IndexIdentity, type Manifest } from './manifest.js';
import { NOTES_FILE, NoteStore, TEXTS_FILE } from './noteStore.js';
import { withWriteLock } from './writeLock.js';
import { SharedStrings } from '../process/sharedStrings.js';
import { IndexSaveError } from './saveErrors.js';

const KEYWORD_FILE = 'keyword.jsonl';
// Lines of JSON since the graph's format 3; the name is kept, so that earlier indexes load as they are.
const GRAPH_FILE = 'graph.json';
const VECTORS_DIR = 'vectors';
const FROM_CACHE = 'rebuilding from cached embeddings';

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
    return new IndexState(dir, identity, new NoteStore(undefined, dir), KeywordIndex.create(), createVectorIndex(vectorOptions), LinkGraph.create(), new Date().toISOString(), 0);
  }

  /**
   * Loads the persisted index when it matches the identity. Otherwise returns an empty state and the reason a
   * full rebuild is needed (no index, changed config or model, or damaged files — never an exception): a rebuild
   * re-chunks the vault and takes the vectors from the embedding cache. When only the chunking config changed, the
   * persisted index is loaded all the same, with `rechunk` set: every note is chunked again into it, and chunks that
   * come out unchanged stay indexed as they are. The files load while the identity is still being worked out (the
   * embedding model loads in parallel).
   */
  static async open(
    dir: string,
    identityPromise: Promise<IndexIdentity>,
    vectorOptionsFor: (dims: number) => VectorIndexOptions,
  ): Promise<{ state: IndexState; rebuild?: string; rechunk?: boolean }> {
    const { manifest, damage } = await loadManifest(dir);
    const current = manifest?.schemaVersion === SCHEMA_VERSION ? manifest : undefined;
    const loading = current ? loadFiles(dir, current, vectorOptionsFor(current.embedding?.dims ?? 0)).catch((error: Error) => error) : undefined;
    const identity = await identityPromise;
    const empty = () => IndexState.empty(dir, identity, vectorOptionsFor(identity.embedding.dims));
    if (damage) return { state: empty(), rebuild: `index file ${MANIFEST_FILE} is damaged (${damage}): ${FROM_CACHE}` };
    const reason = rebuildReason(manifest, identity);
    const rechunk = current !== undefined && onlyChunkingChanged(current, identity);
    if ((reason && !rechunk) || !current || !loading) {
      await loading;
      return { state: empty(), rebuild: reason ?? 'no index yet' };
    }
    const loaded = await loading;
    if (loaded instanceof Error) return { state: empty(), rebuild: `${describeDamage(loaded, path.join(dir, generationDir(current.generation)))}: ${FROM_CACHE}` };
    const { store, keyword, graph, vectors } = loaded;
    store.holdTexts();
    const state = new IndexState(dir, identity, store, keyword, vectors, graph, current.builtAt, current.generation);
    return rechunk ? { state, rebuild: reason, rechunk } : { state };
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
    let writing = generationDir(generation);
    let notes: Awaited<ReturnType<NoteStore['save']>>;
    try {
      await rm(gen, { recursive: true, force: true });
      writing = `${generationDir(generation)}/${TEXTS_FILE} and ${NOTES_FILE}`;
      notes = await this.store.save(gen);
      const files: Record<string, FileDigest> = { ...notes.files };
      await this.keyword.settle();
      writing = `${generationDir(generation)}/${KEYWORD_FILE}`;
      files[KEYWORD_FILE] = await writeFileAtomic(path.join(gen, KEYWORD_FILE), this.keyword.lines());
      writing = `${generationDir(generation)}/${GRAPH_FILE}`;
      files[GRAPH_FILE] = await writeFileAtomic(path.join(gen, GRAPH_FILE), this.graph.lines());
      writing = `${generationDir(generation)}/${VECTORS_DIR}`;
      for (const [name, digest] of Object.entries(await this.vectors.save(path.join(gen, VECTORS_DIR)))) files[`${VECTORS_DIR}/${name}`] = digest;
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
      writing = MANIFEST_FILE;
      await writeManifest(this.dir, manifest);
    } catch (error) {
      // The manifest still names the generation saved before, complete; a part of this one would only take space
      // (on a full disk, the space the next save needs).
      await rm(gen, { recursive: true, force: true }).catch(() => {});
      throw new IndexSaveError(this.dir, writing, error as Error, this.generation > 0 || existing.length > 0);
    }
    this.generation = generation;
    notes.commit();
    // The generation before this one stays: another process that read the old manifest a moment ago is loading it.
    // Saved: a generation that cannot be deleted now is deleted by a later save.
    const older = (await readdir(this.dir).catch(() => [] as string[])).filter((e) => /^g\d+$/.test(e) && Number(e.slice(1)) < generation).sort();
    for (const entry of older.slice(0, -1)) await rm(path.join(this.dir, entry), { recursive: true, force: true }).catch(() => {});
  }
}

/** A file of the index that is missing, not a file, or not what the manifest says was written. */
class IndexFileDamage extends Error {
  constructor(file: string, reason: string) {
    super(`index file ${file} is damaged (${reason})`);
  }
}

/**
 * Loads a generation, checking every file against the manifest first: present, a file, of its size (all before
 * anything is parsed), then its SHA-256 — on the bytes that are then parsed, so each file is read once.
 */
async function loadFiles(dir: string, manifest: Manifest, vectorOptions: VectorIndexOptions) {
  const gen = path.join(dir, generationDir(manifest.generation));
  const listed = Object.entries(manifest.files);
  for (const name of [NOTES_FILE, TEXTS_FILE, KEYWORD_FILE, GRAPH_FILE, `${VECTORS_DIR}/${VECTOR_HEADER}`]) {
    if (!manifest.files[name]) throw new IndexFileDamage(name, 'not listed in the manifest');
  }
  await Promise.all(listed.map(([name, digest]) => checkPresent(gen, name, digest)));
  const readChecked = async (name: string): Promise<Buffer> => {
    const bytes = await readFile(path.join(gen, name));
    checkDigest(name, await digestBytes(bytes), manifest.files[name]);
    return bytes;
  };
  // The text store is read a chunk at a time when shown, never whole: its digest is checked here, streaming.
  const textsChecked = digestFile(path.join(gen, TEXTS_FILE)).then((digest) => checkDigest(TEXTS_FILE, digest, manifest.files[TEXTS_FILE]));
  // The vector files checked here are named to the vector index, which then need not hash its faiss file again.
  const vectorFilesChecked = Promise.all(
    listed
      .filter(([name]) => name.startsWith(`${VECTORS_DIR}/`) && !checkedWhenLoaded(name.slice(VECTORS_DIR.length + 1)))
      .map(async ([name, digest]) => {
        checkDigest(name, await digestFile(path.join(gen, name)), digest);
        return [name.slice(VECTORS_DIR.length + 1), digest] as const;
      }),
  ).then((checked) => new Map(checked));
  // Each file names every chunk by its id, and the store and the graph every note by its path: one copy each.
  const strings = new SharedStrings();
  const [store, keyword, graph, vectors] = await Promise.all([
    Promise.all([readChecked(NOTES_FILE), textsChecked]).then(([bytes]) => NoteStore.read(bytes, path.join(gen, TEXTS_FILE), dir, strings)),
    readChecked(KEYWORD_FILE).then((bytes) => KeywordIndex.read(bytes, strings)),
    readChecked(GRAPH_FILE).then((bytes) => LinkGraph.read(bytes, strings)),
    vectorFilesChecked.then((checked) => loadVectorIndex(path.join(gen, VECTORS_DIR), vectorOptions, checked, strings)),
  ]);
  // Chunks with nothing to show are stored but neither searchable nor embedded. The store's count is its header's
  // until its notes are read (which checks the header).
  const searchable = store.searchableCount;
  if (searchable !== keyword.size || searchable !== vectors.size) {
    throw new Error(`indices disagree: ${searchable} searchable chunks, ${keyword.size} keyword entries, ${vectors.size} vectors`);
  }
  return { store, keyword, graph, vectors };
}

async function checkPresent(gen: string, name: string, expected: FileDigest): Promise<void> {
  // lstat: a link in the index folder (ours never holds one) is not followed out of it.
  const info = await lstat(path.join(gen, name)).catch(() => undefined);
  if (!info) throw new IndexFileDamage(name, 'missing');
  if (!info.isFile()) throw new IndexFileDamage(name, info.isDirectory() ? 'a folder' : 'not a regular file');
  if (info.size !== expected.bytes) throw new IndexFileDamage(name, `${info.size} bytes, expected ${expected.bytes}`);
}

function checkDigest(name: string, actual: FileDigest, expected: FileDigest): void {
  if (actual.bytes !== expected.bytes || actual.sha256 !== expected.sha256) throw new IndexFileDamage(name, 'checksum mismatch');
}

/** What is wrong with a generation, naming the file (relative to the generation folder) when one is to blame. */
function describeDamage(error: Error, gen: string): string {
  if (error instanceof IndexFileDamage) return error.message;
  if (error instanceof VectorIndexCorruptError) return new IndexFileDamage(path.relative(gen, error.file).split(path.sep).join('/'), error.reason).message;
  return `index files damaged (${error.message})`;
}

/** The notes file of the generation a manifest names (what vault adaptation mines its training pairs from; its texts are beside it, see `textsFileBeside`). */
export function notesFileOf(dir: string, manifest: { generation: number }): string {
  return path.join(dir, generationDir(manifest.generation), NOTES_FILE);
}

function generationDir(generation: number): string {
  return `g${String(generation).padStart(6, '0')}`;
}
