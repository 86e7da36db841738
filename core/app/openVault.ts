// Opening a vault: the one given, or again when config.toml changed what it is built from; and, once it is
// indexed, learning its vocabulary in the background when that is due (then opening it again with the new table).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { CairnConfig } from '../config/schema.js';
import type { AppContext } from './appContext.js';
import { CairnError } from '../contract/errors.js';
import { CairnVault } from './vault.js';

const ADAPT_RETRY_MS = 15 * 60_000;

export class VaultOpener {
  /** The vocabulary adaptation running in the background, if any (one at a time). */
  private adaptation?: { controller: AbortController; done: Promise<void> };
  /** When adaptation last failed: it is not retried on every change after that, only after ADAPT_RETRY_MS. */
  private adaptFailedAt = -Infinity;

  /**
   * `ensureModel` makes the model a config names local before a vault opens with it (a hub id set by hand is
   * downloaded by Cairn's downloader, with progress events); it throws, leaving the open vault as it is, when it cannot.
   */
  constructor(
    private readonly app: AppContext,
    private readonly ensureModel: (modelId: string, config: CairnConfig) => Promise<void>,
  ) {}

  /** Opens the folder as the vault (it wins over `[vault] path` from then on) and remembers it as recent. */
  async open(vaultPath: string): Promise<void> {
    const { app } = this;
    const absolute = path.resolve(vaultPath);
    const info = await stat(absolute).catch(() => undefined);
    if (!info?.isDirectory()) throw new CairnError(`${absolute} is not a folder`);
    const config = structuredClone(app.config);
    config.vault.path = absolute;
    const previousOverride = app.vaultOverride;
    app.vaultOverride = absolute;
    try {
      await app.live.run(() => this.reopen(config));
    } catch (error) {
      // A vault that could not be opened is not the one later config reloads reopen.
      if (app.vault?.vaultPath !== absolute) app.vaultOverride = previousOverride;
      throw error;
    }
    await app.recent.remember(absolute);
  }

  /** Opens the vault with `config` (run it in the live queue): the previous vault answers searches until the new one is ready. */
  async reopen(config: CairnConfig): Promise<void> {
    const { app } = this;
    const previous = app.vault;
    const watch = () => app.options.watch !== false && !app.closed;
    // Until its successor is ready, the vault answering takes each save at once as well (the queue, which this job
    // holds, applies them to the successor after): a long rebuild leaves no note stale meanwhile.
    if (previous && watch()) app.live.mirrorWhileReplacing(previous);
    let next: CairnVault;
    try {
      next = await this.successor(config, previous, watch);
    } finally {
      app.rebuilding = null;
      app.indexing = null;
      await app.live.replaced();
    }
    app.vault = next;
    if (watch()) await app.live.linksScanned();
    if (previous && previous !== next) await previous.close();
    app.config = config;
    await app.emitState();
    this.adaptWhenDue(next);
  }

  /** Opens and indexes the vault that replaces `previous`, watched from before it is indexed. */
  private async successor(config: CairnConfig, previous: CairnVault | undefined, watch: () => boolean): Promise<CairnVault> {
    const { app } = this;
    if (config.embedding.model !== previous?.config.embedding.model) await this.ensureModel(config.embedding.model, config);
    const next = await CairnVault.open(structuredClone(config));
    const pending = next.status().pendingRebuild;
    // A vault already open on the same folder keeps answering while its successor builds.
    await app.live.unwatch();
    if (!previous || pending === 'no index yet') app.vault = next;
    // Watched before it is indexed: a save meanwhile (after the index's scan read that file) waits in the queue
    // behind this job and is applied right after it, not at the next reconcile. A reopen under way when close()
    // begins has its watcher closed by close(), which then waits for this job.
    if (watch()) await app.live.watch(next, config);
    try {
      await next.index(app.onIndexEvent);
    } catch (error) {
      // The previous vault, still the app's, goes on being followed.
      await app.live.unwatch();
      if (previous && app.vault === previous && watch()) await app.live.watch(previous, app.config);
      throw error;
    }
    return next;
  }

  /**
   * Learns the vault's vocabulary in the background when it is due (first index, or enough changed): searches are
   * answered throughout by the vault as it is; when a new table comes of it, the vault is reopened with it (the old
   * one answers until the re-embedded index is complete). A failure leaves the table in force and is reported.
   */
  adaptWhenDue(vault: CairnVault): void {
    const { app } = this;
    if (this.adaptation || app.closed || vault !== app.vault || Date.now() - this.adaptFailedAt < ADAPT_RETRY_MS || !vault.adaptationDue()) return;
    const controller = new AbortController();
    const run = async () => {
      try {
        const outcome = await vault.adapt({
          signal: controller.signal,
          onProgress: (progress) => {
            app.adapting = progress;
            app.emit({ type: 'adapt-progress', ...progress });
          },
        });
        app.adapting = null;
        app.emit({ type: 'adapt-finished', adapted: outcome.adapted, ...(outcome.adapted ? {} : { reason: outcome.reason }) });
        if (outcome.adapted && vault === app.vault && !app.closed) await app.live.run(() => this.reopen(app.config));
      } catch (error) {
        if (!controller.signal.aborted) this.adaptFailedAt = Date.now();
        if (!controller.signal.aborted) app.emit({ type: 'error', message: `learning this vault's vocabulary failed (the current embedding table stays in use): ${(error as Error).message}` });
      } finally {
        app.adapting = null;
        this.adaptation = undefined;
        if (!app.closed) await app.emitState();
      }
    };
    this.adaptation = { controller, done: run() };
  }

  /** Stops an adaptation under way (its table is not recorded). */
  async close(): Promise<void> {
    this.adaptation?.controller.abort();
    await this.adaptation?.done;
  }
}
