import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Chunk, NoteChunker, OutlineUse } from '../chunking/types.js';
import type { EmbeddingCache } from '../embedding/embeddingCache.js';
import type { Embedder } from '../embedding/embedder.js';
import { readNoteFile, type NoteSource } from '../vault/readNoteFile.js';
import { OutsideVaultError, resolveInVault, specialFileReason } from '../vault/vaultPaths.js';
import { createPathFilter, openVaultRoot, scanVault, type PathFilter, type VaultFileEntry, type VaultLink, type VaultScanOptions } from '../vault/scanVault.js';
import type { IndexListener, IndexPhase, IndexSummary } from '../contract/status.js';
import type { IndexState } from './indexState.js';
import { hasShownText } from '../chunking/shownText.js';
import { graphNoteOf, type NewChunk, type NewNoteRecord, type StoredChunk } from './noteStore.js';
import { inOrderBounded } from './inOrderBounded.js';
import { OutlineCache, OUTLINES_DIR } from './outlineCache.js';
import { TimeSlices } from '../process/timeSlices.js';
import { blockRefsIn } from '../parse/logseqBlocks.js';
import { describeFsError } from './saveErrors.js';

export interface VaultIndexerDeps {
  vaultPath: string;
  scanOptions: VaultScanOptions;
  chunker: NoteChunker;
  /** The Logseq graph's journal file-name format, when it is not the default. */
  journalFormat?: string;
  /** Notes larger than this are neither read nor indexed (`[vault] max_note_mb`). */
  maxNoteBytes?: number;
  embedder: Embedder;
  /** Opened when first called (see CairnVault.open); called before each use. */
  cache: () => Promise<EmbeddingCache>;
  state: IndexState;
  /** Runs just before persisting; returns extra embedding-cache hashes to keep. */
  beforePersist?: () => Promise<Iterable<string>>;
}

/** A note read for chunking. */
interface NoteRead {
  source: NoteSource;
  textHash: string;
  outline: OutlineUse;
}

type ChunkOutcome = { failure: string } | { changed?: ChangedNote; warning?: string };

interface ChangedNote {
  record: NewNoteRecord;
  chunks: Chunk[];
  /** The blocks its text references, and the texts they read as when it was chunked. */
  blocksRead?: { refs: string[]; texts: Record<string, string> };
}

/** Notes read at once. */
const NOTES_IN_FLIGHT = 16;
/** Notes chunked, indexed and embedded together: bounds memory on a first index of a large vault. */
const NOTES_PER_BATCH = 500;
/**
 * The first and last batches are smaller: nothing is indexed or embedded until the first is chunked, so indexing and
 * embedding start (and a first index answers searches) sooner; and once chunking is done, only the last is left to
 * index and embed before the save.
 */
const FIRST_BATCH_NOTES = 50;
/** Chunks offered to MiniSearch at once (it stops when the turn is up), and vectors given to the vector index between two looks at the clock. */
const KEYWORD_DOCS_PER_STEP = 500;
const VECTORS_PER_STEP = 500;
/** Chunks taken out of the keyword index between two looks at the clock. */
const REMOVALS_PER_STEP = 200;

type PhaseTimer = <T>(phase: IndexPhase, work: () => Promise<T>) => Promise<T>;

/**
 * Brings the index in line with the vault, touching only what changed: unchanged files (same size and
 * mtime) are skipped, files whose text did not change are not re-chunked, and only chunk texts never
 * embedded before are embedded. Changes become searchable by keyword first; their vectors follow once
 * embedded (`pendingEmbeddings` counts the chunks waiting).
 */
export class VaultIndexer {
  private readonly filter: PathFilter;
  pendingEmbeddings = 0;
  /** The symbolic links the last full scan met (the live watcher watches the real targets of those it followed). */
  links: readonly VaultLink[] = [];
  /** Changes applied since the last save (by `update`, or a `sync` that found differences). */
  private unsaved = false;
  /** Why the last save failed, until one succeeds. */
  saveProblem: string | undefined;
  /** Chunks given to the keyword index so far (a run reports its share as `indexed`). */
  private indexedChunks = 0;
  /** Notes' parse outlines by text hash: a re-chunk after a `[chunking]` change does not parse again. */
  private readonly outlines: OutlineCache;

  /** Every note is chunked again by the next sync (the chunking config changed), not only those that changed. */
  private rechunkAll = false;

  constructor(private readonly deps: VaultIndexerDeps) {
    this.filter = createPathFilter(deps.scanOptions);
    this.outlines = new OutlineCache(path.join(deps.state.dir, OUTLINES_DIR));
  }

  /**
   * Makes the next sync chunk every note again, into the index as it is: for a change of the chunking config,
   * where most chunks come out as they were and keep their place in the keyword and vector indices.
   */
  rechunkAllOnNextSync(): void {
    this.rechunkAll = true;
  }

  /** Full reconciliation: scans the whole vault, then applies every difference and persists. */
  async sync(listener: IndexListener = () => {}): Promise<IndexSummary> {
    const summary = await this.run(listener, true, async (timed) => {
      const scan = await timed('scan', () => scanVault(this.deps.vaultPath, this.deps.scanOptions));
      this.links = scan.links;
      const present = new Set(scan.files.map((f) => f.path));
      return {
        entries: scan.files,
        gone: [...this.deps.state.store.paths()].filter((p) => !present.has(p)),
        failures: new Map(scan.warnings.map((w) => [w.path, w.reason])),
        replaceFailures: true,
        rechunk: this.rechunkAll,
      };
    });
    this.rechunkAll = false;
    return summary;
  }

  /** Applies changes to the given vault-relative paths (added, changed or deleted files), without a full scan or persisting. */
  async update(paths: Iterable<string>, listener: IndexListener = () => {}): Promise<IndexSummary> {
    return this.run(listener, false, async (timed) =>
      timed('scan', async () => {
        const entries: VaultFileEntry[] = [];
        const gone: string[] = [];
        const failures = new Map<string, string>();
        const boundary = { followOutside: this.deps.scanOptions.follow_outside_links === true };
        for (const relPath of new Set(paths)) {
          // The same rule as the scan: a path whose real file is outside the vault is dropped and reported.
          const real = this.filter.isIncluded(relPath)
            ? await resolveInVault(this.deps.vaultPath, relPath, boundary).catch((error: unknown) => {
                if (error instanceof OutsideVaultError) failures.set(relPath, error.reason);
                return undefined;
              })
            : undefined;
          const info = real === undefined ? undefined : await stat(real).catch(() => undefined);
          if (info?.isFile()) entries.push({ path: relPath, absPath: real!, size: info.size, mtimeMs: info.mtimeMs });
          else {
            gone.push(relPath);
            const special = info && specialFileReason(info);
            if (special) failures.set(relPath, special);
          }
        }
        const removed = gone.filter((p) => this.deps.state.store.note(p) || this.deps.state.store.failures.has(p));
        // A note is missing because it was deleted, or because the whole vault folder is (moved, unmounted): the
        // latter must not empty the index. The error leaves every note as it was.
        if (removed.length > 0) await openVaultRoot(this.deps.vaultPath);
        return { entries, gone: removed, failures, replaceFailures: false };
      }),
    );
  }

  /**
   * Saves the index and the embedding cache. A save that fails (a full disk) keeps what was saved before and leaves
   * the changes unsaved, for the next save to write; `saveProblem` says why until a save succeeds.
   */
  async persist(): Promise<void> {
    this.unsaved = false;
    try {
      const live = new Set<string>(this.deps.beforePersist ? await this.deps.beforePersist() : []);
      await this.deps.state.save();
      const texts = new Set<string>();
      const turns = new TimeSlices();
      for (const note of this.deps.state.store.allNotes()) {
        for (const chunk of note.chunks) live.add(chunk.hash);
        texts.add(note.textHash);
        if (turns.due()) await turns.next();
      }
      const cache = await this.deps.cache();
      await cache.save(live).catch((error: Error) => {
        throw new Error(`the embedding cache could not be saved in ${this.deps.state.dir} (${describeFsError(error)}); the index was saved`, { cause: error });
      });
      await this.outlines.retain(texts);
      this.saveProblem = undefined;
    } catch (error) {
      this.unsaved = true;
      this.saveProblem = (error as Error).message;
      throw error;
    }
  }

  private async run(
    listener: IndexListener,
    persist: boolean,
    collect: (timed: PhaseTimer) => Promise<{ entries: VaultFileEntry[]; gone: string[]; failures: Map<string, string>; replaceFailures: boolean; rechunk?: boolean }>,
  ): Promise<IndexSummary> {
    const { state } = this.deps;
    const started = performance.now();
    // A loaded store's notes are read when first asked for (see NoteStore.unread); a pass compares and changes them all.
    await state.store.readAll();
    const phaseSeconds: Record<IndexPhase, number> = { scan: 0, chunk: 0, embed: 0, index: 0, persist: 0 };
    const timed: PhaseTimer = async (phase, work) => {
      const t = performance.now();
      try {
        return await work();
      } finally {
        phaseSeconds[phase] += (performance.now() - t) / 1000;
      }
    };

    const { entries, gone, failures, replaceFailures, rechunk = false } = await collect(timed);
    const indexedBefore = this.indexedChunks;
    const candidates = entries.filter((entry) => {
      const known = state.store.note(entry.path);
      return rechunk || !known || known.size !== entry.size || known.mtimeMs !== entry.mtimeMs;
    });
    listener({ type: 'indexing-started', files: candidates.length + gone.length });

    // Removals first; then the changed notes in batches, each chunked, indexed by keyword, embedded and indexed
    // by vector before the next: memory stays bounded and a first index is searchable after its first batch.
    const removed = new Set(gone);
    await timed('index', () => this.applyText([], gone));
    // Notes showing a block of a removed note now show it as missing.
    const orphaned = await timed('chunk', () => this.rechunkReferrers());
    const failuresBefore = failureKey(state.store.failures);
    // An entry of a note still indexed is a warning (chunked as plain text): it lasts until the note is chunked again.
    if (replaceFailures) for (const p of [...state.store.failures.keys()]) if (!state.store.note(p)) state.store.failures.delete(p);
    for (const p of gone) state.store.failures.delete(p);
    const changedPaths = new Set<string>(orphaned.map((c) => c.record.path));
    let embedded = 0;
    let cached = 0;
    if (orphaned.length) {
      const counts = await timed('embed', () => this.embedMissing(orphaned, () => {}));
      embedded += counts.embedded;
      cached += counts.cached;
      await timed('index', () => this.applyVectors(orphaned, counts.vectors));
    }
    let touched = 0;
    const runStarted = performance.now();
    const progress = (phase: IndexPhase, done: number, currentFile?: string) => {
      const elapsed = (performance.now() - runStarted) / 1000;
      listener({ type: 'progress', phase, done: Math.floor(done), total: candidates.length, currentFile, etaSeconds: done > 0 ? (elapsed / done) * (candidates.length - done) : undefined });
    };
    // A batch is embedded (in the embedding process) while the next one is chunked (in the chunker threads) and
    // indexed by keyword: the stages overlap, so their phase times add up to more than the run's.
    let embedding: Promise<void> | undefined;
    let embeddingBatch = false;
    const embedBatch = async (changed: ChangedNote[], from: number, size: number) => {
      embeddingBatch = true;
      try {
        const counts = await timed('embed', () => this.embedMissing(changed, (done, total) => progress('embed', from + (total ? (done / total) * size : size))));
        embedded += counts.embedded;
        cached += counts.cached;
        await timed('index', () => this.applyVectors(changed, counts.vectors));
      } finally {
        embeddingBatch = false;
      }
    };
    /** Where the batch starting at `from` ends (see FIRST_BATCH_NOTES). */
    const batchEnd = (from: number) => {
      const left = candidates.length - from;
      if (from === 0 || left <= FIRST_BATCH_NOTES) return from + Math.min(left, FIRST_BATCH_NOTES);
      return from + (left <= NOTES_PER_BATCH + FIRST_BATCH_NOTES ? left - FIRST_BATCH_NOTES : NOTES_PER_BATCH);
    };
    // A batch is read, then chunked in the chunker threads while the one before is indexed on this thread. (Read
    // first and at once: reading as the indexing goes, each file's steps would wait for its turns.)
    const chunkBatch = async (from: number) => {
      const batch = candidates.slice(from, batchEnd(from));
      const reads = await inOrderBounded(batch, NOTES_IN_FLIGHT, (entry) => this.readNote(entry, rechunk), (done) => {
        // While a batch is embedded its progress is the one shown: embedding is the slower stage.
        if (done % NOTES_IN_FLIGHT === 0 && !embeddingBatch) progress('chunk', from + done, batch[done]?.path);
      });
      const chunking: Array<Promise<ChunkOutcome> | ChunkOutcome> = [];
      const turns = await TimeSlices.inTurn();
      for (const [j, read] of reads.entries()) {
        chunking.push('source' in read ? this.chunkRead(batch[j], read) : read);
        if (turns.due()) await turns.next();
      }
      const results = Promise.all(chunking);
      // Awaited in its turn, or when the run ends early; a failure meanwhile is not an unhandled one.
      results.catch(() => {});
      return { batch, results };
    };
    let ahead = candidates.length > 0 ? await timed('chunk', () => chunkBatch(0)) : undefined;
    try {
      for (let from = 0; from < candidates.length; from = batchEnd(from)) {
        const { batch, results: chunking } = ahead!;
        const changed: ChangedNote[] = [];
        const failedKnown: string[] = [];
        await timed('chunk', async () => {
          // The next batch is read while the chunker threads still work on this one, and queued behind it.
          ahead = batchEnd(from) < candidates.length ? await chunkBatch(batchEnd(from)) : undefined;
          const results = await chunking;
          for (const [j, chunked] of results.entries()) {
            const entry = batch[j];
            // Chunked while the batch before was indexed: a block it shows may have changed since. Chunked again.
            const result = 'changed' in chunked && chunked.changed && this.readStaleBlocks(chunked.changed) ? await this.readAndChunk(entry, true) : chunked;
            if ('failure' in result) {
              failures.set(entry.path, result.failure);
              if (state.store.note(entry.path)) failedKnown.push(entry.path);
            } else {
              if (result.changed) changed.push(result.changed);
              else touched++;
              if (result.warning) failures.set(entry.path, result.warning);
            }
          }
          await this.outlines.flush();
        });
        await timed('index', () => this.applyText(changed, failedKnown));
        // Notes referencing blocks whose text this batch changed read them anew, before anything is embedded.
        const referrers = await timed('chunk', () => this.rechunkReferrers());
        if (referrers.length) {
          const again = new Set(referrers.map((c) => c.record.path));
          changed.splice(0, changed.length, ...changed.filter((c) => !again.has(c.record.path)), ...referrers);
        }
        for (const p of failedKnown) removed.add(p);
        for (const c of changed) changedPaths.add(c.record.path);
        // The embedding process takes one batch at a time: the previous one's vectors go in first.
        await embedding;
        embedding = embedBatch(changed, from, batch.length);
        // Awaited before the next batch is embedded or the run ends; a failure meanwhile is not an unhandled one.
        embedding.catch(() => {});
      }
      await embedding;
    } finally {
      // Never left running past a run that failed: its vectors would land in a later one.
      await embedding?.catch(() => {});
      await ahead?.results.catch(() => {});
    }
    for (const [p, reason] of failures) {
      state.store.failures.set(p, reason);
      listener({ type: 'file-failed', path: p, reason, ...(state.store.note(p) ? { indexed: true as const } : {}) });
    }

    if (changedPaths.size > 0 || removed.size > 0 || touched > 0 || failureKey(state.store.failures) !== failuresBefore) this.unsaved = true;
    // A flat faiss index built afresh on opening (its file unusable, or saved in another form) is saved once, not
    // rebuilt on every open until something else changes.
    if (state.vectors.nativeRebuilt) this.unsaved = true;
    // A reconciliation that found nothing new writes nothing (opening a large vault stays cheap).
    let unsaved: string | undefined;
    if (persist && (this.unsaved || !state.saved)) {
      await timed('persist', async () => {
        listener({ type: 'progress', phase: 'persist', done: 0, total: 1 });
        // The index in memory is whole and answers searches whether or not it could be written.
        await this.persist().catch((error: Error) => (unsaved = error.message));
      });
    }

    const summary: IndexSummary = {
      notes: state.store.noteCount,
      chunks: state.store.chunkCount,
      changedNotes: changedPaths.size,
      removedNotes: [...removed].filter((p) => !changedPaths.has(p)).length,
      embedded,
      cached,
      indexed: this.indexedChunks - indexedBefore,
      failed: failures.size,
      seconds: (performance.now() - started) / 1000,
      phaseSeconds,
      ...(unsaved ? { unsaved } : {}),
    };
    listener({ type: 'indexing-finished', summary });
    return summary;
  }

  /**
   * Reads a file (unless it is over the size limit); re-chunks it only when its text changed. A note that cannot
   * be chunked fails alone, with the reason; one chunked as plain text comes with a warning saying why.
   */
  private async readAndChunk(entry: VaultFileEntry, force = false): Promise<ChunkOutcome> {
    const read = await this.readNote(entry, force);
    return 'source' in read ? this.chunkRead(entry, read) : read;
  }

  /**
   * Reads a file and, when its text changed (or `force`), what chunking it needs from this thread: the text's hash
   * and its cached parse outline. A text that did not change gives `{}`.
   */
  private async readNote(entry: VaultFileEntry, force: boolean): Promise<ChunkOutcome | NoteRead> {
    const tooLarge = this.sizeProblem(entry.size);
    if (tooLarge) return { failure: tooLarge };
    let source;
    try {
      source = await readNoteFile(entry);
    } catch (error) {
      return { failure: (error as Error).message };
    }
    // It may have grown since it was listed.
    const grown = this.sizeProblem(source.size);
    if (grown) return { failure: grown };
    const textHash = createHash('sha256').update(source.text).digest('hex');
    const known = this.deps.state.store.note(entry.path);
    if (known && known.textHash === textHash && known.notice === source.notice && !force) {
      // Touched but not changed (a sync tool, `touch`, a save without edits): remember the new identity only.
      known.size = source.size;
      known.mtimeMs = source.mtimeMs;
      return {};
    }
    return { source, textHash, outline: await this.outlines.useFor(textHash) };
  }

  /** Chunks a note read by `readNote` (in a chunker thread), with the block texts its references read now. */
  private async chunkRead(entry: VaultFileEntry, { source, textHash, outline }: NoteRead): Promise<ChunkOutcome> {
    let chunked;
    const refs = blockRefsIn(source.text);
    const blocksRead = refs.length > 0 ? { refs, texts: this.deps.state.store.blocks.textsFor(refs) } : undefined;
    try {
      const blockTexts = blocksRead?.texts ?? {};
      const journalFormat = this.deps.journalFormat;
      const note = { path: entry.path, text: source.text, mtimeMs: source.mtimeMs, ...(Object.keys(blockTexts).length ? { blockTexts } : {}), ...(journalFormat ? { journalFormat } : {}) };
      chunked = await this.deps.chunker.chunk(note, outline);
    } catch (error) {
      return { failure: (error as Error).message };
    }
    const { chunks, metadata, frontmatterError, warning, blockTexts } = chunked;
    const record: NewNoteRecord = {
      path: entry.path,
      size: source.size,
      mtimeMs: source.mtimeMs,
      textHash,
      title: metadata.title,
      aliases: metadata.aliases,
      tags: metadata.tags,
      frontmatter: metadata.frontmatter,
      ...(frontmatterError ? { frontmatterError: `line ${frontmatterError.line}: ${frontmatterError.message}` } : {}),
      ...(source.notice ? { notice: source.notice } : {}),
      ...(metadata.date ? { date: metadata.date } : {}),
      ...(blockTexts ? { blockTexts } : {}),
      chunks: chunks.map(storedChunk),
    };
    // How the file was read (not as UTF-8) and how it was chunked (as plain text) are both said with the note.
    const said = [source.notice, warning].filter(Boolean).join('; ');
    return { changed: { record, chunks, ...(blocksRead ? { blocksRead } : {}) }, ...(said ? { warning: said } : {}) };
  }

  /** Whether a block a chunked note shows reads differently now than when it was chunked. */
  private readStaleBlocks({ blocksRead }: ChangedNote): boolean {
    if (!blocksRead) return false;
    const now = this.deps.state.store.blocks.textsFor(blocksRead.refs);
    const keys = Object.keys(now);
    return keys.length !== Object.keys(blocksRead.texts).length || keys.some((uuid) => now[uuid] !== blocksRead.texts[uuid]);
  }

  /**
   * Chunks again (and indexes by keyword) the notes that show a block whose text changed since the last call:
   * their `((uuid))` read the new text. Their own block texts do not depend on others', so this settles at once;
   * the loop only guards. A note that cannot be read now keeps its chunks until the next change or sync.
   */
  private async rechunkReferrers(): Promise<ChangedNote[]> {
    const { store } = this.deps.state;
    const done = new Map<string, ChangedNote>();
    for (let round = 0; round < 3; round++) {
      const uuids = store.blocks.takeChanged();
      if (uuids.length === 0) break;
      const changed: ChangedNote[] = [];
      for (const relPath of store.blocks.referencing(uuids)) {
        const entry = await this.entryOf(relPath);
        const result = entry && (await this.readAndChunk(entry, true));
        if (result && 'changed' in result && result.changed) changed.push(result.changed);
      }
      await this.applyText(changed, []);
      for (const c of changed) done.set(c.record.path, c);
    }
    return [...done.values()];
  }

  /** The file entry of an indexed note, or undefined when it is no longer a readable file in the vault. */
  private async entryOf(relPath: string): Promise<VaultFileEntry | undefined> {
    const boundary = { followOutside: this.deps.scanOptions.follow_outside_links === true };
    const real = await resolveInVault(this.deps.vaultPath, relPath, boundary).catch(() => undefined);
    const info = real === undefined ? undefined : await stat(real).catch(() => undefined);
    return info?.isFile() ? { path: relPath, absPath: real!, size: info.size, mtimeMs: info.mtimeMs } : undefined;
  }

  private sizeProblem(bytes: number): string | undefined {
    const limit = this.deps.maxNoteBytes;
    if (limit === undefined || bytes <= limit) return undefined;
    return `${Number((bytes / 1e6).toPrecision(3))} MB, over the ${limit / 1e6} MB limit set by [vault] max_note_mb: not indexed`;
  }

  /** The vectors of the changed notes' chunks, by chunk hash: read from the cache, or embedded (and cached). */
  private async embedMissing(changed: ChangedNote[], onProgress: (done: number, total: number) => void): Promise<{ embedded: number; cached: number; vectors: Map<string, Float32Array> }> {
    const { embedder } = this.deps;
    const cache = await this.deps.cache();
    // Chunks that came out as they were kept their vectors (see applyText): only the others need one.
    const needed = changed.flatMap(({ chunks }) => chunks.filter((chunk) => hasShownText(chunk) && !this.deps.state.vectors.has(chunk.id)));
    const texts = new Map<string, string>();
    for (const chunk of needed) texts.set(chunk.hash, chunk.content);
    const vectors = new Map<string, Float32Array>();
    const known = [...texts.keys()].filter((hash) => cache.has(hash));
    // A cached vector that cannot be read back (its file damaged since it was opened) is embedded again.
    (await cache.read(known)).forEach((vector, i) => vector && vectors.set(known[i], vector));
    let cached = 0;
    for (const chunk of needed) if (vectors.has(chunk.hash)) cached++;
    const missing = new Map([...texts].filter(([hash]) => !vectors.has(hash)));
    const hashes = [...missing.keys()];
    if (hashes.length === 0) return { embedded: 0, cached, vectors };
    onProgress(0, hashes.length);
    this.pendingEmbeddings += hashes.length;
    try {
      // Chunk texts are passages: the model's passage prefix, not its query prefix (e5's "passage: ").
      const embedPassages = embedder.embedPassages?.bind(embedder) ?? embedder.embed.bind(embedder);
      const embedded = await embedPassages([...missing.values()], ({ done, total }) => onProgress(done, total));
      const turns = await TimeSlices.inTurn();
      for (const [i, hash] of hashes.entries()) {
        cache.set(hash, embedded[i]);
        vectors.set(hash, embedded[i]);
        if (turns.due()) await turns.next();
      }
    } finally {
      this.pendingEmbeddings -= hashes.length;
    }
    return { embedded: hashes.length, cached, vectors };
  }

  /**
   * First stage: the store, keyword index and graph take the changes; stale vectors go. Searchable by keyword now.
   * A chunk of a changed note that comes out as it was (same id and text, under the same headings, tags and note
   * title) keeps its place in the keyword and vector indices: an edit to one section of a long note, or a change of
   * the chunking config that leaves most sections whole, re-indexes only the chunks that changed.
   */
  private async applyText(changed: ChangedNote[], removed: string[]): Promise<void> {
    const { state } = this.deps;
    // A batch of 500 notes is ~7,000 chunks, about a second of store, graph and MiniSearch work: in turns, so
    // searches (and, in browser mode, the server) are answered meanwhile. What goes leaves the indices before the
    // store, and a note's new record replaces its old one at once: a search between turns never meets a chunk the
    // store does not hold.
    const turns = new TimeSlices();
    // A graph just read files its links under their keys in turns; changing it needs them all.
    await state.graph.keyLinks();
    const gone: string[] = [];
    for (const p of removed) for (const chunk of state.store.note(p)?.chunks ?? []) gone.push(chunk.id);
    const unchanged = new Set<string>();
    // Chunks that come out as they were under another id (a section above them split, merged or added moved their
    // ordinal): their entries move to the new id, by note, in the turn the store takes the note's new record.
    const moves = new Map<string, Array<[string, string]>>();
    const moved = new Set<string>();
    // Notes that came out exactly as the store holds them (most notes when a chunking change splits only long
    // sections differently): the store and the graph keep their records.
    const heldAsIs = new Set<string>();
    for (const { record } of changed) {
      const before = state.store.note(record.path);
      if (!before) continue;
      if (state.store.holds(record)) {
        heldAsIs.add(record.path);
        for (const chunk of record.chunks) unchanged.add(chunk.id);
        if (turns.due()) await turns.next();
        continue;
      }
      if (before.title === record.title && sameList(before.aliases, record.aliases)) {
        const kept = new Map(before.chunks.map((chunk) => [chunk.id, indexedForm(chunk)]));
        for (const chunk of record.chunks) if (kept.get(chunk.id) === indexedForm(chunk)) unchanged.add(chunk.id);
        const pairs = movedChunks(before.chunks, record.chunks);
        if (pairs.length > 0) moves.set(record.path, pairs);
        for (const [from, to] of pairs) moved.add(from).add(to);
      }
      for (const chunk of before.chunks) if (!unchanged.has(chunk.id) && !moved.has(chunk.id)) gone.push(chunk.id);
      if (turns.due()) await turns.next();
    }
    // Vectors in one call: a removal compacts the whole store whatever its count, so removing a batch's chunks a few
    // hundred at a time compacted it once per few hundred (at 200,000 vectors, 3.6 s for 50,000 removals, against
    // 0.2 s at once). It starts a turn of its own: after the loop above's turn it held the event loop for 110 ms.
    if (gone.length > 0) await turns.next();
    state.vectors.remove(gone);
    for (let from = 0; from < gone.length; from += REMOVALS_PER_STEP) {
      state.keyword.remove(gone.slice(from, from + REMOVALS_PER_STEP));
      if (turns.due()) await turns.next();
    }
    for (const p of removed) {
      state.store.delete(p);
      state.graph.removeNote(p);
      if (turns.due()) await turns.next();
    }
    for (const { record } of changed) {
      if (heldAsIs.has(record.path)) {
        // As `put` would: a note chunked again without failing has no failure noted.
        state.store.failures.delete(record.path);
        continue;
      }
      const pairs = moves.get(record.path);
      if (pairs) {
        state.keyword.relabel(pairs);
        state.vectors.relabel(pairs);
        // An entry that was not there to move (an index saved without it) is made below; a vector, by applyVectors.
        for (const [, to] of pairs) if (!state.keyword.has(to)) moved.delete(to);
      }
      state.store.put(record);
      state.graph.upsertNote(graphNoteOf(record));
      if (turns.due()) await turns.next();
    }
    // A chunk with nothing to show (an empty block, a page of only properties) is no search result.
    const docs = changed.flatMap(({ record, chunks }) =>
      chunks.filter((c) => hasShownText(c) && !unchanged.has(c.id) && !moved.has(c.id)).map((c) => ({ id: c.id, path: record.path, title: record.title, aliases: record.aliases, headerPath: c.headerPath, tags: c.tags, content: c.content })),
    );
    this.indexedChunks += docs.length;
    for (let from = 0; from < docs.length; ) {
      // As many as the turn has time for: a first edit after loading decodes the postings of each word it meets.
      from += state.keyword.upsert(docs.slice(from, from + KEYWORD_DOCS_PER_STEP), () => turns.due());
      if (turns.due()) await turns.next();
    }
  }

  /**
   * Second stage: vectors of the chunks still current, in turns. Each step looks at the store as it is then: the
   * next batch is indexed meanwhile, and may have replaced some (a note showing a block that changed).
   */
  private async applyVectors(changed: ChangedNote[], vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    const { state } = this.deps;
    const shown = changed.flatMap(({ chunks }) => chunks).filter(hasShownText);
    const turns = await TimeSlices.inTurn();
    for (let from = 0; from < shown.length; from += VECTORS_PER_STEP) {
      const current = shown.slice(from, from + VECTORS_PER_STEP).filter((c) => state.store.chunk(c.id) && !state.vectors.has(c.id) && vectors.has(c.hash));
      state.vectors.upsert(current.map((c) => ({ id: c.id, vector: vectors.get(c.hash)! })));
      if (turns.due()) await turns.next();
    }
  }
}

/** What the keyword and vector indices hold of a chunk (besides its note's path, title and aliases). */
function indexedForm(chunk: Pick<StoredChunk, 'hash' | 'headerPath' | 'tags'>): string {
  return JSON.stringify([chunk.hash, chunk.headerPath, chunk.tags]);
}

/**
 * Pairs [old id, new id] of a note's chunks that kept their indexed form under a new id, in reading order, each
 * chunk paired once: from ids the new record no longer holds to ids the old one did not, so no move lands on an id
 * in use (nor touches a chunk kept under its own id).
 */
function movedChunks(before: readonly StoredChunk[], after: readonly NewChunk[]): Array<[string, string]> {
  const afterIds = new Set(after.map((chunk) => chunk.id));
  const beforeIds = new Set(before.map((chunk) => chunk.id));
  const leaving = new Map<string, string[]>();
  for (const chunk of before) {
    if (afterIds.has(chunk.id) || chunk.blank) continue;
    const form = indexedForm(chunk);
    const ids = leaving.get(form);
    if (ids) ids.push(chunk.id);
    else leaving.set(form, [chunk.id]);
  }
  const pairs: Array<[string, string]> = [];
  if (leaving.size === 0) return pairs;
  for (const chunk of after) {
    if (beforeIds.has(chunk.id)) continue;
    const from = leaving.get(indexedForm(chunk))?.shift();
    if (from !== undefined) pairs.push([from, chunk.id]);
  }
  return pairs;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function failureKey(failures: ReadonlyMap<string, string>): string {
  return JSON.stringify([...failures].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function storedChunk(chunk: Chunk): NewChunk {
  const { docId: _docId, content: _content, title: _title, aliases: _aliases, frontmatter: _frontmatter, mtime: _mtime, displayText, ...stored } = chunk;
  // The shown text only where it differs: an ordinary vault's notes file does not hold every text twice.
  return displayText === chunk.text ? stored : { ...stored, displayText };
}
