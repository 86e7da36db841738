// Over 400 lines: CairnVault is the one object an open vault is; its parts (indexing, adaptation, related notes, texts) live in their own modules and this file only delegates.
// An open vault and the operations on it (index, update, search, note lookups, adaptation): what the app's use cases,
// the CLI's vault commands, tests and benchmarks work with.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createNoteChunker } from '../chunking/chunkerPool.js';
import type { NoteChunker } from '../chunking/types.js';
import { CHUNKER_VERSION } from '../chunking/noteChunker.js';
import type { CairnConfig } from '../config/schema.js';
import { EmbeddingCache } from '../embedding/embeddingCache.js';
import { createEmbedder, type Embedder, type EmbedderOptions, type TextRole } from '../embedding/embedder.js';
import { LazyEmbedder } from '../embedding/lazyEmbedder.js';
import { TextVectorCache } from '../embedding/textVectorCache.js';
import { changedShare, embeddingCacheFile, readAdaptation, type AdaptedTable } from '../adapt/adaptedTables.js';
import { faissStatus, type VectorIndexOptions } from '../indices/vector/vectorIndex.js';
import { dataFolderProblem, defaultDataRoot, vaultDataDir } from '../config/dataFolder.js';
import type { AdaptProgress, IndexListener, IndexSummary, VaultStatus } from '../contract/status.js';
import { IndexState } from '../indexing/indexState.js';
import { sectionPieces, type NoteRecord } from '../indexing/noteStore.js';
import type { ChunkTexts } from '../indexing/textStore.js';
import { shownText } from '../chunking/shownText.js';
import { readManifest, SCHEMA_VERSION, SHIPPED_TABLE, type IndexIdentity, type Manifest } from '../indexing/manifest.js';
import { VaultIndexer } from '../indexing/vaultIndexer.js';
import { GRAMMAR_VERSION } from '../parse/markdownTree.js';
import { DEFAULT_JOURNAL_FILE_FORMAT } from '../parse/pageNames.js';
import { journalFileFormat } from '../vault/logseqConfig.js';
import { NoteReadError, readNoteFile, type NoteSource } from '../vault/readNoteFile.js';
import type { VaultLink } from '../vault/scanVault.js';
import { OutsideVaultError, resolveInVault } from '../vault/vaultPaths.js';
import { EmbeddingNeighbourExpander } from '../search/queryExpander.js';
import { relatedNotes } from '../search/relatedNotes.js';
import { tagCounts, type TagCount } from '../search/tagIndex.js';
import type { ChunkSummary, SearchRequest, SearchResponse } from '../contract/search.js';
import { chunkSummary, QueryOrchestrator } from '../search/queryOrchestrator.js';
import { CairnError } from '../contract/errors.js';
import { adaptableModel, adaptTable, type AdaptableModel, type AdaptOutcome } from './tableAdaptation.js';


/** A vault with fewer chunks than this has too little text to learn its vocabulary from (no attempt is made). */
const MIN_CHUNKS_TO_ADAPT = 100;
/** A state a rebuild replaced keeps its pending texts this long: searches begun on it finish reading them. */
const REPLACED_STATE_GRACE_MS = 30_000;

/** Longest close() waits for the searches and answers under way (each takes milliseconds to seconds). */
const CLOSE_WAIT_MS = 15_000;

/** An open vault: its index, kept in memory, and the operations on it. */
export class CairnVault {
  private pendingRebuild?: string;
  /** What in the vault's own settings could not be used, and what applies instead (logseq/config.edn). */
  readonly warnings: string[] = [];
  /**
   * The query-expansion vocabulary lags the keyword index (not built yet in this process, or notes changed since):
   * the next search brings it up to date first, so results never depend on whether background work has finished.
   */
  private vocabularyStale = true;
  /** Vocabulary builds, one at a time. */
  private vocabularyBuilds: Promise<void> = Promise.resolve();
  /** What starts once a first search has most likely been answered (see `open`); a vault closed before then skips it. */
  private afterFirstSearch?: NodeJS.Timeout;
  /** Searches, answers and note views under way (see `use`): close() lets them finish. */
  private readonly inUse = new Set<Promise<unknown>>();

  private constructor(
    readonly config: CairnConfig,
    readonly vaultPath: string,
    readonly dataDir: string,
    private readonly embedder: Embedder,
    private readonly cache: () => Promise<EmbeddingCache>,
    private readonly chunker: NoteChunker,
    private readonly identity: IndexIdentity,
    private readonly vectorOptions: VectorIndexOptions,
    private state: IndexState,
    rebuild: string | undefined,
    private readonly adaptable: AdaptableModel | undefined,
    private adapted: AdaptedTable | undefined,
    private readonly expansionWords: { embedder: Pick<Embedder, 'embed' | 'dims' | 'close'>; cache: () => Promise<EmbeddingCache> } | undefined,
  ) {
    this.pendingRebuild = rebuild;
    this.expander = new EmbeddingNeighbourExpander(expansionWords?.embedder ?? embedder, expansionWords?.cache ?? cache);
    this.passageVectors = new TextVectorCache(embedder.dims, 8 * 1024 * 1024);
    this.queryVectors = new TextVectorCache(embedder.dims, 256 * 1024);
    this.indexer = this.indexerFor(state);
  }

  private readonly expander: EmbeddingNeighbourExpander;
  /** Sentences hybrid search and answers embed as passages: 8 MB of vectors. */
  private readonly passageVectors: TextVectorCache;
  /**
   * Queries embedded lately: a hybrid search embeds its query for the first stage and again for the sentence stage,
   * and an answer after the search that found its sources: each is embedded once. 256 KB of vectors.
   */
  private readonly queryVectors: TextVectorCache;
  private indexer: VaultIndexer;

  private indexerFor(state: IndexState): VaultIndexer {
    return new VaultIndexer({
      vaultPath: this.vaultPath,
      scanOptions: this.config.vault,
      chunker: this.chunker,
      maxNoteBytes: this.config.vault.max_note_mb * 1e6,
      ...(this.identity.journalFormat !== DEFAULT_JOURNAL_FILE_FORMAT ? { journalFormat: this.identity.journalFormat } : {}),
      embedder: this.embedder,
      cache: this.cache,
      state,
      // The expansion vocabulary follows the keyword index; its word vectors stay in the cache with the chunks'.
      beforePersist: async () => {
        await this.refreshVocabulary(state);
        if (!this.expansionWords) return this.expander.hashes();
        await (await this.expansionWords.cache()).save(new Set(this.expander.hashes()));
        return [];
      },
    });
  }

  /** Opens (without indexing) the vault named by `config.vault.path`, loading its persisted index if it matches. */
  static async open(config: CairnConfig): Promise<CairnVault> {
    if (!config.vault.path) throw new CairnError('no vault given: pass --vault DIR or set [vault] path in config.toml');
    const vaultPath = path.resolve(config.vault.path);
    const info = await stat(vaultPath).catch(() => undefined);
    if (!info?.isDirectory()) throw new CairnError(`the vault ${vaultPath} ${info ? 'is not a folder' : 'does not exist'}`);
    const dataRoot = config.index.data_dir ? path.resolve(config.index.data_dir) : defaultDataRoot();
    const dataFolderConflict = await dataFolderProblem(dataRoot, vaultPath);
    if (dataFolderConflict) throw new CairnError(dataFolderConflict);
    const dataDir = vaultDataDir(dataRoot, vaultPath);
    await mkdir(dataDir, { recursive: true });
    const modelOptions: EmbedderOptions = {
      model: config.embedding.model,
      dtype: config.embedding.dtype,
      batchSize: config.embedding.batch_size,
      maxTokens: config.embedding.max_tokens,
      dataRoot,
    };
    const journal = await journalFileFormat(vaultPath);
    const adaptable = config.embedding.adapt ? await adaptableModel(modelOptions) : undefined;
    const adapted = adaptable ? await readAdaptation(dataDir, adaptable) : undefined;
    const tableHash = adapted?.modelsDir ? adapted.state.tableHash : undefined;
    // An adapted table loads like the shipped model, from its own folder in the data folder.
    const embedderReady = createEmbedder(adapted?.modelsDir ? { ...modelOptions, modelsDir: adapted.modelsDir } : modelOptions);
    const identityReady = embedderReady.then(
      (embedder): IndexIdentity => ({
        schemaVersion: SCHEMA_VERSION,
        chunkerVersion: CHUNKER_VERSION,
        chunking: { ...config.chunking },
        embedding: {
          modelId: embedder.modelId,
          dims: embedder.dims,
          dtype: embedder.dtype,
          fingerprint: embedder.fingerprint,
          tokenWindow: embedder.tokens.window,
          table: tableHash ?? SHIPPED_TABLE,
        },
        grammarVersion: GRAMMAR_VERSION,
        journalFormat: journal.format,
        vaultPath,
      }),
    );
    const vectorOptionsFor = (dims: number): VectorIndexOptions => ({
      dims,
      backend: config.index.vector_backend,
      kind: config.index.vector_kind,
      hnswThreshold: config.index.hnsw_threshold,
    });
    // The model loads in its own process while this one reads the index files.
    const stateReady = IndexState.open(dataDir, identityReady, vectorOptionsFor);
    // The embedding caches are for indexing, not for answering: read when indexing first needs one, or once the
    // first search has most likely been answered (read as the index loaded, a first query at 50,000 chunks waited
    // some 300 ms for them; read as it ran, they took 0.1–0.2 s of its main thread).
    const afterLoad = Promise.all([embedderReady, stateReady]);
    const cache = onFirstUse(() =>
      afterLoad.then(([embedder]) =>
        EmbeddingCache.open(embeddingCacheFile(dataDir, tableHash), `${embedder.modelId}|${embedder.dtype}|${embedder.fingerprint}`, embedder.dims),
      ),
    );
    const [embedder, identity, { state, rebuild, rechunk }] = await Promise.all([embedderReady, identityReady, stateReady]);
    const chunker = createNoteChunker(config.chunking, embedder.tokens);
    const vectorOptions = vectorOptionsFor(embedder.dims);
    // With an adapted table, query expansion keeps the shipped table's neighbours: a table trained on one vault
    // pulls its topical words together ("date" near "thursdays"), which are not synonyms. Loaded on first use.
    const expansionWords =
      tableHash && adaptable
        ? {
            embedder: new LazyEmbedder(modelOptions, embedder.dims),
            cache: onFirstUse(() => afterLoad.then(() => EmbeddingCache.open(path.join(dataDir, 'expansion-words.bin'), `${embedder.modelId}|${embedder.dtype}|${adaptable.fingerprint}`, embedder.dims))),
          }
        : undefined;
    const vault = new CairnVault(config, vaultPath, dataDir, embedder, cache, chunker, identity, vectorOptions, state, rebuild, adaptable, adapted, expansionWords);
    // Searches need no link keys; resolving a link or changing the graph does. They are filed in turns once the
    // first search has most likely been answered (filed at once, they held up a first search by 0.1 s at 50,000
    // chunks); a change or a link lookup before then files what is left first. The chunks' embedding cache follows.
    vault.afterFirstSearch = setTimeout(() => {
      caught(state.graph.keyLinks());
      void cache();
    }, AFTER_FIRST_SEARCH_MS).unref();
    if (journal.problem) vault.warnings.push(journal.problem);
    if (rechunk) vault.indexer.rechunkAllOnNextSync();
    return vault;
  }

  /**
   * Why this vault's table should be adapted (again) now, or undefined: adaptation is on, the model is a shipped
   * static table, the vault has enough text, and it was never adapted or enough of it changed since.
   */
  adaptationDue(): string | undefined {
    if (!this.adaptable || this.state.store.chunkCount < MIN_CHUNKS_TO_ADAPT) return undefined;
    if (!this.adapted) return `${this.adaptable.model} not yet adapted to this vault`;
    const share = changedShare(this.adapted.trainedOn, this.chunkHashes());
    if (share < this.config.embedding.adapt_after_changed) return undefined;
    return `${Math.round(share * 100)}% of the chunks are new or changed since the last adaptation`;
  }

  /**
   * Learns this vault's vocabulary: trains a copy of the shipped table on pairs mined from the last saved index, in a
   * child process (the event loop and searches are not held up). The new table is recorded in the data folder; it
   * takes effect when the vault is opened again (the caller reopens and re-indexes; cached embeddings are reused).
   * A failure or an abort leaves the table in force as it was.
   */
  async adapt(options: { onProgress?: (p: AdaptProgress) => void; signal?: AbortSignal } = {}): Promise<AdaptOutcome> {
    const base = this.adaptable;
    if (!base) return { adapted: false, reason: this.config.embedding.adapt ? `${this.config.embedding.model} is not a shipped static table` : '[embedding] adapt is off' };
    const { outcome, recorded } = await adaptTable({ dataDir: this.dataDir, base, current: this.adapted, chunkHashes: () => this.chunkHashes(), ...options });
    if (recorded) this.adapted = recorded;
    return outcome;
  }

  /** True when the vault opened with a different table than the one now recorded (an adaptation finished): reopen to use it. */
  get tableOutdated(): boolean {
    const recorded = this.adapted?.modelsDir ? this.adapted.state.tableHash : undefined;
    return this.adaptable !== undefined && (recorded ?? SHIPPED_TABLE) !== this.identity.embedding.table;
  }

  private chunkHashes(): string[] {
    const hashes: string[] = [];
    for (const note of this.state.store.allNotes()) for (const chunk of note.chunks) hashes.push(chunk.hash);
    return hashes;
  }

  /** Brings the index up to date: a full rebuild when the manifest says so, else only what changed. */
  async index(listener: IndexListener = () => {}): Promise<IndexSummary> {
    if (this.pendingRebuild) listener({ type: 'rebuild-started', reason: this.pendingRebuild });
    const summary = await this.indexer.sync(listener);
    this.pendingRebuild = undefined;
    return summary;
  }

  /**
   * Builds the index again from the vault into a fresh state (cached embeddings are reused) while the current
   * one keeps answering searches; the new one takes over when complete.
   */
  async rebuild(listener: IndexListener = () => {}, reason = 'requested'): Promise<IndexSummary> {
    const fresh = IndexState.empty(this.dataDir, this.identity, this.vectorOptions);
    const indexer = this.indexerFor(fresh);
    listener({ type: 'rebuild-started', reason });
    const summary = await indexer.sync(listener);
    const replaced = this.state;
    this.state = fresh;
    this.indexer = indexer;
    // Its scratch file of pending texts closes once a search begun on it can no longer be reading from it.
    setTimeout(() => replaced.store.dispose(), REPLACED_STATE_GRACE_MS).unref();
    this.pendingRebuild = undefined;
    this.vocabularyStale = true;
    return summary;
  }

  /** Applies changes to these vault-relative paths now (searchable at once); `persist()` saves them. */
  update(paths: Iterable<string>, listener: IndexListener = () => {}): Promise<IndexSummary> {
    // Stale from the start (a search meanwhile sees part of the change) to the end.
    this.vocabularyStale = true;
    return this.indexer.update(paths, listener).finally(() => (this.vocabularyStale = true));
  }

  persist(): Promise<void> {
    return this.indexer.persist();
  }

  search(request: SearchRequest): Promise<SearchResponse> {
    return this.use(async () => {
      await this.currentVocabulary();
      const response = await new QueryOrchestrator(this.state, this.embedder, () => this.config.search, (texts, as) => this.embed(texts, as), this.expander).search(request);
      return { ...response, pendingEmbeddings: this.indexer.pendingEmbeddings };
    });
  }

  /**
   * Runs work that reads this vault (its store, indices and embedder) so that close() waits for it: the app replaces
   * its vault after a rebuild or a new table and closes the old one, and a search or answer that began on the old
   * one a moment before must still get its results, not "the embedder was closed".
   */
  use<T>(work: () => Promise<T>): Promise<T> {
    const running = work();
    const tracked = running.finally(() => this.inUse.delete(tracked));
    this.inUse.add(tracked);
    return tracked;
  }

  /** The index's tags with how many notes carry each, most used first (every note read first, in turns). */
  async tags(): Promise<TagCount[]> {
    const { store } = this.state;
    await store.readAll();
    return tagCounts(store.allNotes());
  }

  /** Resolves once no vocabulary build is running (benchmarks wait for it before timing searches). */
  settled(): Promise<void> {
    return this.vocabularyBuilds;
  }

  /** Chunks whose text is searchable by keyword but whose vectors are still being computed. */
  get pendingEmbeddings(): number {
    return this.indexer.pendingEmbeddings;
  }

  /**
   * The chunks of the section a chunk belongs to, in order: all `_sub_N` pieces of a force-split section, or just
   * the chunk itself. Undefined for an unknown id.
   */
  async sectionChunks(chunkId: string): Promise<ChunkSummary[] | undefined> {
    const { store } = this.state;
    const ref = store.chunk(chunkId);
    if (!ref) return undefined;
    const sameSection = sectionPieces(ref.note, ref.chunk);
    const texts = await store.texts(sameSection);
    return sameSection.map((chunk, i) => chunkSummary({ note: ref.note, chunk }, shownText(texts[i])));
  }

  /** The texts of a note's chunks, in order (read from the index), if it holds the note. */
  async noteTexts(notePath: string): Promise<ChunkTexts[] | undefined> {
    const { store } = this.state;
    const record = store.note(notePath);
    return record && store.texts(record.chunks);
  }

  /** Whether the index holds this note (a cheap lookup). */
  hasNote(notePath: string): boolean {
    return this.state.store.note(notePath) !== undefined;
  }

  /** The index's record of a note (title, tags, chunks), if it holds the note. */
  noteRecord(notePath: string): NoteRecord | undefined {
    return this.state.store.note(notePath);
  }

  /** What the index knows of a note: its record, links both ways, and the notes nearest to it by meaning. */
  noteInfo(notePath: string, relatedCount = 8): { record: NoteRecord; outgoing: string[]; backlinks: string[]; related: string[] } | undefined {
    const record = this.state.store.note(notePath);
    if (!record) return undefined;
    const { graph, vectors, store } = this.state;
    const related = relatedNotes({ store, vectors }, notePath, relatedCount);
    return { record, outgoing: graph.outgoing(notePath), backlinks: graph.backlinks(notePath), related };
  }

  /**
   * A note's current text, read from disk through the vault's boundary: a note whose file has since become a link
   * out of the vault is refused (OutsideVaultError) unless `[vault] follow_outside_links` is on.
   */
  async readNote(notePath: string): Promise<NoteSource> {
    const absPath = await resolveInVault(this.vaultPath, notePath, { followOutside: this.config.vault.follow_outside_links }).catch((error: unknown) => {
      if (error instanceof OutsideVaultError) throw error;
      throw new NoteReadError(notePath, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message);
    });
    return readNoteFile({ path: notePath, absPath, size: 0, mtimeMs: 0 });
  }

  /** The vault's symbolic links as the last full scan met them. */
  links(): readonly VaultLink[] {
    return this.indexer.links;
  }

  /** The note defining a Logseq block (`id:: uuid`), as the index knows it. */
  blockNote(uuid: string): string | undefined {
    return this.state.store.blocks.note(uuid.toLowerCase());
  }

  /** The note a link target points to, as Obsidian resolves it from `fromPath`. */
  resolveLink(target: string, fromPath: string): string | undefined {
    return this.state.graph.resolve(target, fromPath);
  }

  /** The index's contents in comparable form (tests, diagnostics): what a full rebuild must reproduce. */
  snapshot(): { chunkIds: string[]; keywordIds: string[]; vectorIds: string[]; links: Record<string, string[]>; failures: string[] } {
    const { store, keyword, vectors, graph } = this.state;
    const chunkIds = [...store.allNotes()].flatMap((n) => n.chunks.map((c) => c.id)).sort();
    const keywordIds = chunkIds.filter((id) => keyword.has(id));
    if (keyword.size !== keywordIds.length) keywordIds.push(`(${keyword.size - keywordIds.length} keyword entries of no chunk)`);
    const links = Object.fromEntries([...store.paths()].sort().map((p) => [p, graph.outgoing(p).sort()]));
    return { chunkIds, keywordIds, vectorIds: vectors.ids().sort(), links, failures: [...store.failures.keys()].sort() };
  }

  /**
   * Embeds texts with the vault's model (unit vectors), off the event loop: as queries, or as passages (a model
   * trained with instructions gets its passage prefix, as chunk texts do when they are indexed).
   */
  embed(texts: readonly string[], as: TextRole = 'query'): Promise<Float32Array[]> {
    if (as === 'query') return this.use(() => this.queryVectors.embed(texts, (missing) => this.embedder.embed(missing)));
    // Passages here are sentences of chunks found (see TextVectorCache); chunks are embedded by the indexer.
    return this.use(() => this.passageVectors.embed(texts, (missing) => (this.embedder.embedPassages ? this.embedder.embedPassages(missing) : this.embedder.embed(missing))));
  }

  /** Drops the vectors of recently embedded queries and sentences: benchmarks time each search mode from cold. */
  forgetEmbeddedTexts(): void {
    this.queryVectors.clear();
    this.passageVectors.clear();
  }

  /** Why the last save failed, until one succeeds (`status().unsaved`). */
  get saveProblem(): string | undefined {
    return this.indexer.saveProblem;
  }

  status(manifest?: Manifest): VaultStatus {
    // Compared with every chunk hash: computed once per status.
    const adaptationDue = this.adaptationDue();
    const faiss = faissStatus();
    const failed = [...this.state.store.failures].map(([p, reason]) => ({ path: p, reason, ...(this.state.store.note(p) ? { indexed: true as const } : {}) }));
    const frontmatterErrors = this.state.store.frontmatterErrors();
    return {
      vault: this.vaultPath,
      dataDir: this.dataDir,
      notes: this.state.store.noteCount,
      chunks: this.state.store.chunkCount,
      vectorBackend: this.state.vectors.backend,
      vectorKind: this.state.vectors.kind,
      ...(faiss.available ? {} : { faissUnavailable: faiss.reason }),
      model: this.embedder.modelId,
      dims: this.embedder.dims,
      dtype: this.embedder.dtype,
      tokenWindow: this.embedder.tokens.window,
      table: this.tableStatus(),
      ...(adaptationDue ? { adaptationDue } : {}),
      ...(this.pendingRebuild ? { pendingRebuild: this.pendingRebuild } : {}),
      ...(manifest ? { manifest } : {}),
      ...(this.saveProblem ? { unsaved: this.saveProblem } : {}),
      failed,
      frontmatterErrors,
      ...(this.warnings.length ? { warnings: [...this.warnings] } : {}),
    };
  }

  private tableStatus(): VaultStatus['table'] {
    const hash = this.identity.embedding.table;
    const state = this.adapted?.state;
    if (hash === SHIPPED_TABLE || !state || state.tableHash !== hash) return { kind: 'shipped' };
    return { kind: 'adapted', hash, adaptedAt: state.adaptedAt, ...(state.heldOutMrr ? { heldOutMrr: state.heldOutMrr } : {}), ...(state.pairs ? { pairs: state.pairs } : {}), ...(state.seconds !== undefined ? { seconds: state.seconds } : {}) };
  }

  async statusWithManifest(): Promise<VaultStatus> {
    return this.status(await readManifest(this.dataDir));
  }

  async close(): Promise<void> {
    clearTimeout(this.afterFirstSearch);
    // What was asked of it finishes first (failures are its callers' to see); a stuck one does not keep it open.
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inUse]), new Promise((resolve) => (waited = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(waited);
    this.state.store.dispose();
    await Promise.all([this.embedder.close(), this.chunker.close(), this.expansionWords?.embedder.close()]);
  }

  /** Waits for the vocabulary to match the keyword index (incremental: ~0.1 s the first time on 36,000 terms). */
  private async currentVocabulary(): Promise<void> {
    await this.vocabularyBuilds;
    while (this.config.search.query_expansion && this.vocabularyStale) await this.refreshVocabulary(this.state, true);
  }

  /** Builds the vocabulary of `state`'s keyword index, after any build already running. */
  private refreshVocabulary(state: IndexState, onlyIfStale = false): Promise<void> {
    const run = this.vocabularyBuilds.then(async () => {
      if (onlyIfStale && !this.vocabularyStale) return;
      // Cleared before the terms are read: a change during the build marks it stale again.
      this.vocabularyStale = !this.config.search.query_expansion;
      if (this.vocabularyStale) return;
      try {
        await this.expander.build(state.keyword.terms());
      } catch (error) {
        this.vocabularyStale = true;
        throw error;
      }
    });
    this.vocabularyBuilds = run.catch(() => {});
    return run;
  }
}

/** When work that a first search does not need starts, after the vault opened. */
const AFTER_FIRST_SEARCH_MS = 1000;

/** The promise, marked as handled: its rejection reaches whoever awaits it later, never the process. */
function caught<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** `make()`, started by the first call and shared by every later one (a failure reaches each caller, never the process). */
function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= caught(make()));
}
