// What the running app's use cases share: the config in force, the open vault, its live-update loop, progress, the
// recent vaults, and the event listeners; and the app's state as the UI sees it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AppEvent, AppState, ConfigProblem, FileStatus } from '../contract/appApi.js';
import type { CairnConfig } from '../config/schema.js';
import type { AdaptProgress, IndexEvent } from '../contract/status.js';
import { LiveIndex } from '../live/liveIndex.js';
import { RecentVaults } from './recentVaults.js';
import type { CairnVault } from './vault.js';

export interface ServiceOptions {
  /** config.toml to use and watch; without one, defaults apply (and settings cannot be saved). */
  configFile?: string;
  /** Overrides `[vault] path` (and survives config reloads). */
  vault?: string;
  /** Overrides `[index] data_dir`. */
  dataDir?: string;
  /** Where recent vaults are remembered (JSON). */
  stateFile?: string;
  /** Watch the vault and config file (default true). */
  watch?: boolean;
  /** Subscribed before anything happens, so it sees the first indexing too. */
  listener?: (event: AppEvent) => void;
}

export class AppContext {
  vault?: CairnVault;
  closed = false;
  configProblem: ConfigProblem | null = null;
  /** A vault chosen on the command line or in the app wins over `[vault] path` across config reloads. */
  vaultOverride?: string;
  indexing: AppState['indexing'] = null;
  rebuilding: string | null = null;
  /** Learning the vault's vocabulary now: the latest progress. */
  adapting: AdaptProgress | null = null;
  readonly recent: RecentVaults;
  readonly live: LiveIndex<CairnVault>;
  private readonly listeners = new Set<(event: AppEvent) => void>();
  /** Why the last save failed, until one succeeds (see `saved`). */
  private saveProblem: string | undefined;

  /** `indexChanged`: what follows a change the live loop made to the index (besides a state event). */
  constructor(
    public config: CairnConfig,
    readonly options: ServiceOptions,
    indexChanged: (vault: CairnVault) => void,
  ) {
    this.vaultOverride = options.vault;
    this.recent = new RecentVaults(options.stateFile);
    this.live = new LiveIndex<CairnVault>({
      vault: () => this.vault,
      closed: () => this.closed,
      onIndexEvent: this.onIndexEvent,
      emit: (event) => {
        this.emit(event);
        if (event.type === 'vault-folder') void this.emitState().catch(() => {});
      },
      indexChanged: async (vault) => {
        await this.emitState();
        indexChanged(vault);
      },
      saved: (problem) => this.saved(problem),
    });
  }

  async state(): Promise<AppState> {
    const status = this.vault ? await this.vault.statusWithManifest() : null;
    const failedFiles: FileStatus[] = [
      ...(status?.failed.map((f) => ({ path: f.path, state: f.indexed ? ('indexed' as const) : ('failed' as const), reason: f.reason })) ?? []),
      ...[...this.live.pendingFiles].map((p) => ({ path: p, state: 'pending' as const })),
    ];
    return {
      vault: this.vault?.vaultPath ?? null,
      status,
      indexing: this.indexing,
      rebuilding: this.rebuilding,
      adapting: this.adapting,
      recentVaults: this.recent.list,
      failedFiles,
      configProblem: this.configProblem,
      vaultFolderGone: this.live.vaultFolderGone,
      isObsidianVault: this.vault ? existsSync(path.join(this.vault.vaultPath, '.obsidian')) : false,
    };
  }

  async emitState(): Promise<void> {
    this.emit({ type: 'state', state: await this.state() });
  }

  emit(event: AppEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener (a closed connection) must not stop the others.
      }
    }
  }

  subscribe(listener: (event: AppEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clearListeners(): void {
    this.listeners.clear();
  }

  readonly onIndexEvent = (event: IndexEvent): void => {
    if (event.type === 'progress') this.indexing = event;
    else if (event.type === 'indexing-finished') this.indexing = null;
    else if (event.type === 'rebuild-started') this.rebuilding = event.reason;
    this.emit(event);
    // A run that saved tells whether its save failed; one that did not save (an edit's update) leaves the problem as it is.
    if (event.type === 'indexing-finished') this.saved(event.summary.unsaved ?? (this.saveProblem && this.vault?.saveProblem));
  };

  /**
   * A save that failed is told once (a toast), not at every retry; the status shows it until a save succeeds
   * (`status.unsaved`), and the state then follows.
   */
  private saved(problem: string | undefined): void {
    if (problem === this.saveProblem) return;
    this.saveProblem = problem;
    if (problem) this.emit({ type: 'error', message: `${problem}. Your notes stay searchable, and saving is tried again.` });
    void this.emitState().catch(() => {});
  }

  requireVault(): CairnVault {
    if (!this.vault) throw new Error('no vault is open');
    return this.vault;
  }

  /** The command line's (or the app's) vault and data folder win over the file's. */
  applyOverrides(config: CairnConfig): void {
    if (this.vaultOverride) config.vault.path = path.resolve(this.vaultOverride);
    if (this.options.dataDir) config.index.data_dir = path.resolve(this.options.dataDir);
  }
}
