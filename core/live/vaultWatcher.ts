import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isInside } from '../config/pathContainment.js';
import { createPathFilter, directoryIdentity, type PathFilter, type VaultLink, type VaultScanOptions } from '../vault/scanVault.js';

/** One debounced batch of file system changes, vault-relative and `/`-separated. */
export interface VaultChangeBatch {
  /** Files added, changed or deleted: each is re-examined on disk when the batch is applied. */
  files: Set<string>;
  /** A folder (or a link to one) was added or removed: the whole vault is reconciled. */
  folders: boolean;
}

export interface VaultWatcherOptions {
  debounceMs: number;
  /** Called with each batch; a batch is never delivered while the previous one's promise is pending. */
  onBatch: (batch: VaultChangeBatch) => Promise<void>;
  onError: (error: Error) => void;
  /**
   * The vault's symbolic links as its last full scan met them: read when watching starts and after each batch with
   * folder changes (which the caller reconciles with a scan), so the watcher never scans the vault itself.
   */
  links: () => Promise<readonly VaultLink[]>;
  /** Told when the vault folder goes (false) and when it is back and followed again (true); see VaultWatcher. */
  onRootChange?: (present: boolean) => void;
  /** How often a vault folder that is gone is looked for (ROOT_POLL_MS; shorter in tests). */
  rootPollMs?: number;
}

/** How often a vault folder that is gone (moved, deleted, unmounted) is looked for again. */
export const ROOT_POLL_MS = 2000;

/**
 * Watches the vault folder with chokidar, filtered by the config's include/exclude rules (chokidar takes no
 * globs), and turns bursts of events into batches: editors that save in pieces (awaitWriteFinish), atomic
 * rename-over saves, `git checkout` touching hundreds of files, all become few updates. The first event after a
 * quiet spell (longer than the debounce) is applied at once, so that a lone save is searchable without waiting
 * out the debounce; the events that follow it within the debounce gather into the next batch.
 *
 * chokidar never follows symbolic links here: following them made it spin forever on a link loop and watch
 * folders outside the vault. Instead the links the vault scan followed (loops already cut, outside links only
 * when allowed) have their real targets watched, and events there are reported under the links' names.
 *
 * When the vault folder itself goes (moved, deleted, a drive unmounted) chokidar stops watching for good, even
 * once the folder is back. The watcher then drops the events the folder's going caused (a deletion of every note,
 * which the index must not take for one), tells `onRootChange`, and looks for the folder every ROOT_POLL_MS; once
 * it is back it watches it again and sends a batch with `folders` set, so the whole vault is reconciled.
 */
export class VaultWatcher {
  private watcher?: FSWatcher;
  private pending: VaultChangeBatch = { files: new Set(), folders: false };
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** Ends `start()`'s wait for chokidar's ready event. */
  private stopWaiting?: () => void;
  /** When the last event came (performance.now()). */
  private lastEventAt = -Infinity;
  private closed = false;
  /** A look for the returned vault folder is starting to follow it. */
  private restarting = false;
  /** Set while the vault folder is gone: the timer that looks for it. */
  private rootPoll?: NodeJS.Timeout;
  /** The followed vault folder's device and inode: a folder made anew under its name is not the one followed. */
  private rootIdentity = '';
  /** A look at whether the followed folder is still there, under way. */
  private rootCheck?: Promise<void>;
  private realRoot = '';
  private readonly filter: PathFilter;
  /** Links followed by the last scan. */
  private links: VaultLink[] = [];
  /** Every link to a note or folder, followed or not, by vault-relative name: to tell a new or retargeted link from noise. */
  private knownLinks = new Map<string, { realPath: string; isDirectory: boolean }>();
  /** Link targets watched besides the vault folder. */
  private watchedTargets = new Set<string>();

  constructor(
    private readonly root: string,
    scanOptions: VaultScanOptions,
    private readonly options: VaultWatcherOptions,
  ) {
    this.filter = createPathFilter(scanOptions);
  }

  async start(): Promise<void> {
    this.realRoot = await realpath(this.root);
    await this.findLinks();
    if (this.closed) return;
    await this.follow();
  }

  /** True while the vault folder is gone (its changes cannot be followed, nor the vault scanned). */
  get rootMissing(): boolean {
    return this.rootPoll !== undefined;
  }

  /** Starts chokidar on the vault folder and the link targets outside it; resolves once it is ready. */
  private async follow(): Promise<void> {
    this.rootIdentity = await directoryIdentity(this.realRoot);
    // Closed meanwhile (while the folder was looked for): nothing would close a watcher started now.
    if (this.closed) return;
    const watcher = watch([this.realRoot, ...this.watchedTargets], {
      ignoreInitial: true,
      followSymlinks: false,
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 25 },
      atomic: true,
      ignored: (absolute, stats) => {
        const names = this.namesOf(absolute);
        // Kept unless ignored under every name it has in the vault (a folder chokidar passes on its way is kept).
        return names.length > 0 && names.every((rel) => rel !== '' && (this.filter.isExcludedDir(rel) || (stats?.isFile() === true && !this.filter.isIncluded(rel))));
      },
    });
    this.watcher = watcher;
    watcher.on('all', (event, absolute, stats) => {
      if (this.watcher !== watcher) return;
      if (event === 'unlinkDir' && absolute === this.realRoot) return void this.rootGone(watcher);
      const names = this.namesOf(absolute).filter((rel) => rel !== '');
      if (names.length === 0) return;
      if (event === 'addDir' || event === 'unlinkDir') this.pending.folders = true;
      else if (event === 'unlink' && names.some((rel) => this.knownLinks.has(rel))) this.linkRemoved(names);
      // Links come as file events, also when only their target's contents moved (fs.watch follows them).
      else if (stats?.isSymbolicLink() || stats?.isDirectory()) return void this.linkEvent(absolute, names).catch((error: unknown) => this.report(error));
      else for (const rel of names) this.pending.files.add(rel);
      this.schedule();
    });
    // A name that is not valid UTF-8 reaches us with U+FFFD in place of its bad bytes, a path chokidar cannot stat,
    // so only its raw event arrives: a scan, which reads names as bytes, reports that file.
    watcher.on('raw', (_event, rawPath) => {
      if (typeof rawPath === 'string' && rawPath.includes('\uFFFD')) {
        this.pending.folders = true;
        this.schedule();
      }
    });
    watcher.on('error', (error) => this.report(error));
    // Closed before chokidar is ready (the app closing while a vault opens), it never will be: stop waiting then.
    await new Promise<void>((resolve) => {
      watcher.once('ready', () => resolve());
      this.stopWaiting = resolve;
    });
    this.stopWaiting = undefined;
  }

  /**
   * The vault folder is gone. What its going set off (every note and folder "deleted") is dropped; a batch already
   * being applied fails on the missing folder and changes nothing (see VaultIndexer.update).
   */
  private rootGone(watcher: FSWatcher): void {
    if (this.closed || this.rootMissing) return;
    this.watcher = undefined;
    // Not from inside chokidar's own event: closed there, it went on to open a watch that nothing closes (the
    // process then never exits).
    setImmediate(() => void watcher.close());
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = { files: new Set(), folders: false };
    this.options.onRootChange?.(false);
    this.rootPoll = setInterval(() => void this.lookForRoot(), this.options.rootPollMs ?? ROOT_POLL_MS);
  }

  /** Whether the followed folder is still there, as itself: if not, it is gone (and looked for). */
  private checkRoot(): Promise<void> {
    this.rootCheck ??= (async () => {
      const watcher = this.watcher;
      const identity = await directoryIdentity(this.root).catch(() => undefined);
      if (watcher && watcher === this.watcher && identity !== this.rootIdentity) this.rootGone(watcher);
    })().finally(() => (this.rootCheck = undefined));
    return this.rootCheck;
  }

  /** While the vault folder is gone: once it is a folder again, follow it and reconcile the whole vault. */
  private async lookForRoot(): Promise<void> {
    if (this.closed || this.restarting) return;
    const back = await stat(this.root).then((info) => info.isDirectory(), () => false);
    if (!back || this.closed) return;
    this.restarting = true;
    try {
      this.realRoot = await realpath(this.root);
      await this.follow();
    } catch {
      // Back but not readable yet (a drive still mounting): the next look tries again.
      await this.watcher?.close();
      this.watcher = undefined;
      return;
    } finally {
      this.restarting = false;
    }
    clearInterval(this.rootPoll);
    this.rootPoll = undefined;
    if (this.closed) return;
    this.options.onRootChange?.(true);
    this.pending.folders = true;
    this.schedule();
  }

  /** Resolves when no batch is pending or being applied. */
  async idle(): Promise<void> {
    while (this.timer || this.running) {
      await (this.running ?? new Promise((resolve) => setTimeout(resolve, this.options.debounceMs)));
    }
  }

  /**
   * Stops watching; pending changes are dropped. A batch already handed to `onBatch` is not waited for: its consumer
   * may be the very caller (a vault replaced from inside the queue that applies batches), which would wait forever.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.rootPoll);
    this.stopWaiting?.();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.watcher?.close();
  }

  /** The links the scan follows, and which of their targets the vault watch does not already cover. */
  private async findLinks(): Promise<void> {
    const links = await this.options.links();
    this.links = links.filter((link) => link.followed);
    this.knownLinks = new Map(links.map((link) => [link.path, { realPath: link.realPath, isDirectory: link.isDirectory }]));
    this.watchedTargets = new Set(this.links.filter((link) => !this.coveredByRootWatch(link.realPath)).map((link) => link.realPath));
  }

  private coveredByRootWatch(target: string): boolean {
    if (!isInside(target, this.realRoot)) return false;
    const rel = path.relative(this.realRoot, target).split(path.sep);
    return !rel.some((_, i) => this.filter.isExcludedDir(rel.slice(0, i + 1).join('/')));
  }

  /** Every vault-relative name of an absolute path: its place in the vault, and its place under each followed link. */
  private namesOf(absolute: string): string[] {
    const relativeTo = (folder: string) => (isInside(absolute, folder) ? path.relative(folder, absolute).split(path.sep).join('/') : undefined);
    const inVault = relativeTo(this.realRoot);
    const names = inVault === undefined ? [] : [inVault];
    for (const link of this.links) {
      // An outside folder that holds the vault: the vault's own files keep their own names.
      if (link.isDirectory && inVault !== undefined && !isInside(link.realPath, this.realRoot)) continue;
      const rest = relativeTo(link.realPath);
      if (rest !== undefined) names.push(rest === '' ? link.path : `${link.path}/${rest}`);
    }
    return names;
  }

  /** A link event: only a new or retargeted link matters; one to a folder means a reconcile, like a new folder. */
  private async linkEvent(absolute: string, names: string[]): Promise<void> {
    const target = await realpath(absolute).catch(() => undefined);
    const isDirectory = target !== undefined && (await stat(target).catch(() => undefined))?.isDirectory() === true;
    const changed = names.filter((rel) => this.knownLinks.get(rel)?.realPath !== target);
    if (changed.length === 0 || this.closed) return;
    for (const rel of changed) {
      if (target === undefined) this.knownLinks.delete(rel);
      else this.knownLinks.set(rel, { realPath: target, isDirectory });
    }
    if (isDirectory) this.pending.folders = true;
    else for (const rel of changed) this.pending.files.add(rel);
    this.schedule();
  }

  private linkRemoved(names: string[]): void {
    for (const rel of names) {
      if (this.knownLinks.get(rel)?.isDirectory) this.pending.folders = true;
      else this.pending.files.add(rel);
      this.knownLinks.delete(rel);
    }
  }

  private report(error: unknown): void {
    this.options.onError(error instanceof Error ? error : new Error(String(error)));
  }

  /**
   * After a scan (folders changed, or the vault's first index while it is watched), links may have come or gone:
   * watch the new targets, stop watching the old.
   */
  async refreshLinks(): Promise<void> {
    const before = this.watchedTargets;
    await this.findLinks();
    if (this.closed || !this.watcher) return;
    const added = [...this.watchedTargets].filter((t) => !before.has(t));
    const removed = [...before].filter((t) => !this.watchedTargets.has(t));
    if (added.length) this.watcher.add(added);
    if (removed.length) await this.watcher.unwatch(removed);
  }

  /**
   * On an event: a batch now after a quiet spell (the same turn's other events join it), else once events pause.
   * `event` false: changes left pending by the batch just applied, sent once events pause.
   */
  private schedule(event = true): void {
    if (this.closed) return;
    const now = performance.now();
    const quiet = event && now - this.lastEventAt >= this.options.debounceMs;
    if (event) this.lastEventAt = now;
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.flush();
      },
      quiet && !this.running ? 0 : this.options.debounceMs,
    );
  }

  private async flush(): Promise<void> {
    if (this.running) {
      // Events that arrive while a batch is applied wait for it, then go as the next batch.
      this.schedule(false);
      return;
    }
    const batch = this.pending;
    if (batch.files.size === 0 && !batch.folders) return;
    this.pending = { files: new Set(), folders: false };
    this.running = (async () => {
      // Events that came as the vault folder went (chokidar does not always tell its own folder's going, only its
      // contents'): dropped, since the reconcile once it is back covers them.
      await this.checkRoot();
      if (this.rootMissing) return;
      // A batch that fails because the vault folder has just gone was told of once, as that.
      await this.options.onBatch(batch).catch(async (error: unknown) => {
        await this.checkRoot();
        if (!this.rootMissing) this.report(error);
      });
      if (batch.folders) await this.refreshLinks().catch((error: unknown) => this.report(error));
    })();
    await this.running;
    this.running = undefined;
    if (this.pending.files.size || this.pending.folders) this.schedule(false);
  }
}
