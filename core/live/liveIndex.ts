// What happens when a file is saved: the vault watcher's debounced batch is applied to the index (searchable at once),
// each note's change is announced, the index is saved once the vault has been quiet a while (one write for a burst of
// saves; longer on a vault whose save takes long), and the whole vault is reconciled on a timer and whenever folders
// change. Every change to the index runs in one queue.
import type { AppEvent } from '../contract/appApi.js';
import type { CairnConfig } from '../config/schema.js';
import type { IndexListener } from '../contract/status.js';
import type { VaultLink } from '../vault/scanVault.js';
import { SerialQueue } from './serialQueue.js';
import { VaultWatcher, type VaultChangeBatch } from './vaultWatcher.js';

/** Changes are saved at least this long after the last update, so a burst of saves is one write. */
export const PERSIST_DELAY_MS = 2000;
/**
 * ... and at least this many times as long as the last save took. A save holds the writers' queue, so an edit made
 * during it waits for it, and on a vault of a million chunks a save takes about a minute: saving after every burst
 * kept edits waiting behind saves. Saving is for a quick restart only: what a crash leaves unsaved, the next open's
 * reconcile indexes again (changed files are told by size and modification time).
 */
export const PERSIST_DELAY_PER_SAVE_TIME = 20;

/** A save that failed (a full disk) is tried again this long after, and after every change meanwhile. */
export const SAVE_RETRY_MS = 60_000;

/** How long after the last update the index is saved, given how long the last save took. */
export function persistDelay(lastSaveMs: number): number {
  return Math.max(PERSIST_DELAY_MS, PERSIST_DELAY_PER_SAVE_TIME * lastSaveMs);
}

/** What the loop needs of an open vault (CairnVault has it). */
export interface LiveVault {
  readonly vaultPath: string;
  hasNote(notePath: string): boolean;
  /** Applies changes to these vault-relative paths now; `persist()` saves them. */
  update(paths: Iterable<string>, listener: IndexListener): Promise<unknown>;
  /** Brings the whole index up to date with the vault, and saves it. */
  index(listener: IndexListener): Promise<unknown>;
  persist(): Promise<void>;
  links(): readonly VaultLink[];
}

export interface LiveIndexHost<V extends LiveVault> {
  /** The vault the app serves now: a batch for any other (a replaced vault) is dropped. */
  vault(): V | undefined;
  /** True once the app is closing: nothing more is applied. */
  closed(): boolean;
  onIndexEvent: IndexListener;
  emit(event: Extract<AppEvent, { type: 'note-changed' | 'vault-folder' | 'error' }>): void;
  /** After a batch or a reconcile changed the index. */
  indexChanged(vault: V): Promise<void>;
  /** After each save this loop makes: why it failed, or undefined when it succeeded. */
  saved(problem: string | undefined): void;
}

/** The live-update loop of the open vault, and the single writer of its index. */
export class LiveIndex<V extends LiveVault> {
  private watcher?: VaultWatcher;
  private reconcileTimer?: NodeJS.Timeout;
  private persistTimer?: NodeJS.Timeout;
  /** How long the last save by this loop took (see persistDelay). */
  private lastSaveMs = 0;
  private readonly queue = new SerialQueue();
  private readonly pending = new Set<string>();
  /** While a replacement is built in the queue: the vault that answers meanwhile, and its updates in order. */
  private answering?: { vault: V; applied: Promise<void> };

  constructor(private readonly host: LiveIndexHost<V>) {}

  /** The followed vault's folder is gone (see VaultWatcher): the index answers as it was until it is back. */
  get vaultFolderGone(): boolean {
    return this.watcher?.rootMissing === true;
  }

  /** Files of a batch being applied now. */
  get pendingFiles(): ReadonlySet<string> {
    return this.pending;
  }

  /** Runs `job` in the writers' queue: after every change queued before it (opening a vault goes here too). */
  run<T>(job: () => Promise<T>): Promise<T> {
    return this.queue.run(job);
  }

  /** Follows `vault`'s folder with the watcher and starts the reconcile timer ([index] reconcile_interval_seconds). */
  async watch(vault: V, config: CairnConfig): Promise<void> {
    this.watcher = new VaultWatcher(vault.vaultPath, config.vault, {
      debounceMs: config.index.debounce_ms,
      onBatch: (batch) => {
        this.mirror(vault, batch);
        return this.queue.run(() => this.applyBatch(vault, batch));
      },
      onError: (error) => this.host.emit({ type: 'error', message: `watching ${vault.vaultPath}: ${error.message}` }),
      onRootChange: (present) => this.host.emit({ type: 'vault-folder', path: vault.vaultPath, present }),
      links: async () => vault.links(),
    });
    await this.watcher.start();
    const every = config.index.reconcile_interval_seconds;
    if (every > 0) {
      this.reconcileTimer = setInterval(
        // A vault folder that is gone cannot be scanned: it is reconciled once it is back.
        () => this.vaultFolderGone || void this.queue.run(() => this.reconcile(vault)).catch((error: Error) => this.host.emit({ type: 'error', message: `checking ${vault.vaultPath} for changes: ${error.message}` })),
        every * 1000,
      );
      this.reconcileTimer.unref();
    }
  }

  /**
   * Stops following the vault (a vault being replaced; called from inside the queue). A batch already queued runs
   * after the caller's job, and only if its vault is still the app's; a save already scheduled still runs.
   */
  async unwatch(): Promise<void> {
    await this.watcher?.close();
    clearInterval(this.reconcileTimer);
  }

  /**
   * A replacement for `vault` is being built in the queue (a config change, a learned vocabulary), which holds every
   * batch back until it is done. Until `replaced()`, each batch for `vault`'s folder is also applied at once to
   * `vault`, which answers searches meanwhile: in memory only, since its successor writes the index.
   */
  mirrorWhileReplacing(vault: V): void {
    this.answering = { vault, applied: Promise.resolve() };
  }

  /** The replacement is done or failed: waits for the updates of the vault that answered meanwhile. */
  async replaced(): Promise<void> {
    const answering = this.answering;
    this.answering = undefined;
    await answering?.applied;
  }

  /** The vault was scanned while watched (its first index): follow the links that scan found. */
  async linksScanned(): Promise<void> {
    await this.watcher?.refreshLinks();
  }

  /** Resolves when every queued change has been applied and saved. */
  async idle(): Promise<void> {
    await this.watcher?.idle();
    await this.queue.idle();
    if (this.persistTimer) await this.flushPersist();
  }

  /** Stops the loop: what is queued is applied, then saved. */
  async close(): Promise<void> {
    clearInterval(this.reconcileTimer);
    await this.watcher?.close();
    await this.queue.idle();
    await this.flushPersist();
  }

  /** Brings the whole index of `vault` up to date (it saves, so a scheduled save is dropped). */
  private async reconcile(vault: V): Promise<void> {
    if (!this.isCurrent(vault)) return;
    clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    await vault.index(this.host.onIndexEvent);
    await this.host.indexChanged(vault);
  }

  private isCurrent(vault: V): boolean {
    return vault === this.host.vault() && !this.host.closed();
  }

  private async applyBatch(vault: V, batch: VaultChangeBatch): Promise<void> {
    if (!this.isCurrent(vault)) return;
    if (batch.folders) return this.reconcile(vault);
    for (const file of batch.files) this.pending.add(file);
    try {
      await this.applyFiles(vault, batch.files, this.host.onIndexEvent);
    } finally {
      for (const file of batch.files) this.pending.delete(file);
    }
    this.schedulePersist(vault);
    await this.host.indexChanged(vault);
  }

  /**
   * While a replacement is built, a batch of the answering vault's folder (from its own watcher, or its successor's
   * on the same folder) also goes to it at once; folder changes wait for the replacement.
   */
  private mirror(source: V, batch: VaultChangeBatch): void {
    const answering = this.answering;
    if (!answering || batch.folders || source.vaultPath !== answering.vault.vaultPath) return;
    answering.applied = answering.applied
      .then(async () => {
        if (this.answering !== answering || !this.isCurrent(answering.vault)) return;
        // Its progress is not shown: the replacement's is.
        await this.applyFiles(answering.vault, batch.files, () => {});
        await this.host.indexChanged(answering.vault);
      })
      .catch((error: unknown) => this.host.emit({ type: 'error', message: `applying a change to ${answering.vault.vaultPath}: ${(error as Error).message}` }));
  }

  /** Applies changes to these files and announces each note added, changed or removed. */
  private async applyFiles(vault: V, files: ReadonlySet<string>, listener: IndexListener): Promise<void> {
    const before = new Set([...files].filter((f) => vault.hasNote(f)));
    await vault.update(files, listener);
    for (const file of files) {
      const now = vault.hasNote(file);
      if (!now && before.has(file)) this.host.emit({ type: 'note-changed', path: file, change: 'removed' });
      else if (now) this.host.emit({ type: 'note-changed', path: file, change: before.has(file) ? 'changed' : 'added' });
    }
  }

  private schedulePersist(vault: V): void {
    clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => void this.flushPersist(vault), persistDelay(this.lastSaveMs));
  }

  private async flushPersist(vault = this.host.vault()): Promise<void> {
    clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    if (!vault) return;
    await this.queue.run(async () => {
      if (vault !== this.host.vault()) return;
      const started = performance.now();
      try {
        await vault.persist();
      } catch (error) {
        // What was saved before is kept, and the changes stay searchable: a save is no reason to stop the loop.
        this.host.saved((error as Error).message);
        if (this.isCurrent(vault) && !this.persistTimer) this.persistTimer = setTimeout(() => void this.flushPersist(vault), SAVE_RETRY_MS);
        return;
      }
      this.lastSaveMs = performance.now() - started;
      this.host.saved(undefined);
    });
  }
}
