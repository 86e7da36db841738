import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { createPathFilter, type VaultScanOptions } from '../vault/scanVault.js';

/** One debounced batch of file system changes, vault-relative and `/`-separated. */
export interface VaultChangeBatch {
  /** Files added, changed or deleted: each is re-examined on disk when the batch is applied. */
  files: Set<string>;
  /** A folder was added or removed: the whole vault is reconciled. */
  folders: boolean;
}

export interface VaultWatcherOptions {
  debounceMs: number;
  /** Called with each batch; a batch is never delivered while the previous one's promise is pending. */
  onBatch: (batch: VaultChangeBatch) => Promise<void>;
  onError: (error: Error) => void;
}

/**
 * Watches the vault folder with chokidar, filtered by the config's include/exclude rules (chokidar takes no
 * globs), and turns bursts of events into batches: editors that save in pieces (awaitWriteFinish), atomic
 * rename-over saves, `git checkout` touching hundreds of files, all become one update.
 */
export class VaultWatcher {
  private watcher?: FSWatcher;
  private pending: VaultChangeBatch = { files: new Set(), folders: false };
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly scanOptions: VaultScanOptions,
    private readonly options: VaultWatcherOptions,
  ) {}

  async start(): Promise<void> {
    const filter = createPathFilter(this.scanOptions);
    const relative = (absolute: string) => path.relative(this.root, absolute).split(path.sep).join('/');
    this.watcher = watch(this.root, {
      ignoreInitial: true,
      followSymlinks: true,
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 25 },
      atomic: true,
      ignored: (absolute, stats) => {
        const rel = relative(absolute);
        if (rel === '' || rel.startsWith('..')) return false;
        if (filter.isExcludedDir(rel)) return true;
        // Without stats chokidar is asking about a path it has not classified yet: keep it to decide later.
        return stats?.isFile() ? !filter.isIncluded(rel) : false;
      },
    });
    this.watcher.on('all', (event, absolute) => {
      const rel = relative(absolute);
      if (event === 'addDir' || event === 'unlinkDir') {
        if (rel !== '') this.pending.folders = true;
      } else {
        this.pending.files.add(rel);
      }
      this.schedule();
    });
    this.watcher.on('error', (error) => this.options.onError(error instanceof Error ? error : new Error(String(error))));
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  /** Resolves when no batch is pending or being applied. */
  async idle(): Promise<void> {
    while (this.timer || this.running) {
      await (this.running ?? new Promise((resolve) => setTimeout(resolve, this.options.debounceMs)));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.watcher?.close();
    await this.running;
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.debounceMs);
  }

  private async flush(): Promise<void> {
    if (this.running) {
      // Events that arrive while a batch is applied wait for it, then go as the next batch.
      this.schedule();
      return;
    }
    const batch = this.pending;
    if (batch.files.size === 0 && !batch.folders) return;
    this.pending = { files: new Set(), folders: false };
    this.running = this.options.onBatch(batch).catch((error: unknown) => this.options.onError(error instanceof Error ? error : new Error(String(error))));
    await this.running;
    this.running = undefined;
    if (this.pending.files.size || this.pending.folders) this.schedule();
  }
}
