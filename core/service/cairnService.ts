// Over 400 lines: the running app's core (vault, watcher, config reload, settings, events) until it is split into use cases.
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { answerQuestion } from '../answer/index.js';
import { highlightTerms } from '../search/highlightTerms.js';
import { CairnError, CairnVault, type AdaptProgress, type IndexEvent, type SearchRequest, type SearchResponse, type TagCount } from '../api.js';
import type { AppEvent, AppState, AskRequest, AskResponse, CairnApi, ChooseModelResult, ModelsView, ConfigProblem, ConfigView, FileStatus, NoteView, SaveConfigResult } from '../appApi.js';
import { setConfigValue } from '../config/editConfig.js';
import { checkConfigText, type DataFolderKey } from '../config/checkConfigText.js';
import { CONFIG_SCHEMA, defaultConfig, type CairnConfig, type OptionSpec } from '../config/schema.js';
import { writeFileAtomic } from '../indexing/atomicWrite.js';
import { VaultWatcher, type VaultChangeBatch } from '../live/vaultWatcher.js';
import { SerialQueue } from '../live/serialQueue.js';
import { parseFrontmatter } from '../parse/frontmatter.js';
import { resolveNoteBlockRefs } from './noteBlockRefs.js';
import { ModelChooser } from './modelChoice.js';

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

/** Changes to these sections need the vault reopened (and, for chunking and the model, rebuilt). */
const REOPEN_SECTIONS = ['vault', 'chunking', 'embedding', 'index'] as const;
/** Changes are saved this long after the last update, so a burst of saves is one write. */
const PERSIST_DELAY_MS = 2000;
const RECENT_LIMIT = 10;
const ADAPT_RETRY_MS = 15 * 60_000;

/**
 * The running app's core: the open vault, live updates from the file watcher, periodic reconciliation,
 * config.toml hot reload, and events for the UI. One writer: every change to the index goes through one
 * queue; searches are answered at all times from the index as it is.
 */
export class CairnService implements CairnApi {
  private vault?: CairnVault;
  private watcher?: VaultWatcher;
  private configWatcher?: FSWatcher;
  private reconcileTimer?: NodeJS.Timeout;
  private persistTimer?: NodeJS.Timeout;
  private readonly queue = new SerialQueue();
  private readonly listeners = new Set<(event: AppEvent) => void>();
  private indexing: AppState['indexing'] = null;
  private rebuilding: string | null = null;
  /** The vocabulary adaptation running in the background, if any (one at a time), and its latest progress. */
  private adaptation?: { controller: AbortController; done: Promise<void> };
  private adapting: AdaptProgress | null = null;
  /** When adaptation last failed: it is not retried on every change after that, only after ADAPT_RETRY_MS. */
  private adaptFailedAt = -Infinity;
  private configProblem: ConfigProblem | null = null;
  private readonly pendingFiles = new Set<string>();
  private recentVaults: string[] = [];
  private closed = false;
  /** A vault chosen on the command line or in the app wins over `[vault] path` across config reloads. */
  private vaultOverride?: string;
  /** The settings' model choice and its download. */
  private readonly models = new ModelChooser({
    config: () => this.config,
    emit: (event) => this.emit(event),
    saveConfigValues: (values) => this.saveConfigValues(values),
  });

  private constructor(
    private config: CairnConfig,
    private readonly options: ServiceOptions,
  ) {
    this.vaultOverride = options.vault;
  }

  static async start(options: ServiceOptions = {}): Promise<CairnService> {
    const service = new CairnService(defaultConfig(), options);
    if (options.listener) service.subscribe(options.listener);
    await service.loadRecent();
    if (options.configFile) {
      const loaded = await service.readConfigFile();
      if ('problem' in loaded) service.configProblem = loaded.problem;
      else service.config = loaded.config;
      if (options.watch !== false) service.watchConfig();
    }
    service.applyOverrides(service.config);
    if (service.config.vault.path) await service.openVault(service.config.vault.path);
    return service;
  }

  // ---- CairnApi ----

  async getState(): Promise<AppState> {
    const status = this.vault ? await this.vault.statusWithManifest() : null;
    const failedFiles: FileStatus[] = [
      ...(status?.failed.map((f) => ({ path: f.path, state: 'failed' as const, reason: f.reason })) ?? []),
      ...[...this.pendingFiles].map((p) => ({ path: p, state: 'pending' as const })),
    ];
    return {
      vault: this.vault?.vaultPath ?? null,
      status,
      indexing: this.indexing,
      rebuilding: this.rebuilding,
      adapting: this.adapting,
      recentVaults: this.recentVaults,
      failedFiles,
      configProblem: this.configProblem,
      isObsidianVault: this.vault ? existsSync(path.join(this.vault.vaultPath, '.obsidian')) : false,
    };
  }

  async openVault(vaultPath: string): Promise<AppState> {
    const absolute = path.resolve(vaultPath);
    const info = await stat(absolute).catch(() => undefined);
    if (!info?.isDirectory()) throw new CairnError(`${absolute} is not a folder`);
    const config = structuredClone(this.config);
    config.vault.path = absolute;
    const previousOverride = this.vaultOverride;
    this.vaultOverride = absolute;
    try {
      await this.queue.run(() => this.reopen(config));
    } catch (error) {
      // A vault that could not be opened is not the one later config reloads reopen.
      if (this.vault?.vaultPath !== absolute) this.vaultOverride = previousOverride;
      throw error;
    }
    await this.remember(absolute);
    return this.getState();
  }

  search(request: SearchRequest): Promise<SearchResponse> {
    if (!this.vault) throw new Error('no vault is open');
    return this.vault.search(request);
  }

  async listTags(): Promise<TagCount[]> {
    return this.vault?.tags() ?? [];
  }

  listModels(): Promise<ModelsView> {
    return this.models.list();
  }

  chooseModel(modelId: string): Promise<ChooseModelResult> {
    return this.models.choose(modelId);
  }

  cancelModelDownload(): Promise<void> {
    return this.models.cancel();
  }

  /**
   * Answers from the vault as it is now (a rebuild in progress does not hold the question up). A language model's
   * answer streams to every subscriber as `answer-token` events tagged with the request's id; the checked answer,
   * with its citations, is the result.
   */
  async ask(request: AskRequest): Promise<AskResponse> {
    const vault = this.requireVault();
    const { question, k, mode, requestId } = request;
    const answer = await answerQuestion(vault, question, { k, mode }, (token) => this.emit({ type: 'answer-token', requestId, token }));
    return { ...answer, highlightTerms: highlightTerms(question) };
  }

  async getNote(notePath: string): Promise<NoteView> {
    const vault = this.requireVault();
    const info = vault.noteInfo(notePath);
    if (!info) throw new Error(`${notePath} is not an indexed note`);
    const source = await vault.readNote(notePath);
    const link = (p: string) => ({ path: p, title: vault.noteInfo(p)?.record.title ?? path.basename(p).replace(/\.[^.]+$/, '') });
    const obsidian = existsSync(path.join(vault.vaultPath, '.obsidian'));
    const blockRefs = await resolveNoteBlockRefs(vault, notePath, source.text, (uuid) => vault.blockNote(uuid));
    return {
      path: notePath,
      title: info.record.title,
      text: source.text,
      bodyStart: parseFrontmatter(source.text).end,
      modified: new Date(source.mtimeMs).toISOString(),
      tags: info.record.tags,
      outgoing: info.outgoing.map(link),
      backlinks: info.backlinks.map(link),
      related: info.related.map(link),
      blockRefs,
      ...(obsidian
        ? { obsidianUrl: `obsidian://open?vault=${encodeURIComponent(path.basename(vault.vaultPath))}&file=${encodeURIComponent(notePath.replace(/\.md$/i, ''))}` }
        : {}),
    };
  }

  async resolveLink(target: string, fromPath: string): Promise<string | null> {
    return this.requireVault().resolveLink(target, fromPath) ?? null;
  }

  async getConfig(): Promise<ConfigView> {
    const file = this.options.configFile ?? '';
    const text = file ? await readFile(file, 'utf8').catch(() => '') : '';
    const options = Object.entries(CONFIG_SCHEMA).flatMap(([section, specs]) =>
      Object.entries(specs as Record<string, OptionSpec>).map(([key, spec]) => ({
        section,
        key,
        type: spec.type,
        default: spec.default,
        value: (this.config as unknown as Record<string, Record<string, unknown>>)[section][key],
        doc: spec.doc,
        ...(spec.choices ? { choices: spec.choices } : {}),
        ...(spec.min !== undefined ? { min: spec.min } : {}),
        ...(spec.max !== undefined ? { max: spec.max } : {}),
        rebuilds: section === 'chunking' || section === 'embedding',
      })),
    );
    return { file, text, options, ...(this.configProblem ? { problem: this.configProblem } : {}) };
  }

  saveConfigText(text: string): Promise<SaveConfigResult> {
    return this.writeConfigText(text);
  }

  async saveConfigValues(values: Record<string, unknown>): Promise<SaveConfigResult> {
    const file = this.options.configFile;
    if (!file) return { ok: false, problem: { file: '', message: 'no config file: start Cairn with --config FILE to save settings' } };
    let text = await readFile(file, 'utf8').catch(() => '');
    for (const [key, value] of Object.entries(values)) text = setConfigValue(text, key, value);
    const movedVault = Object.hasOwn(values, 'vault.path') && !Object.hasOwn(values, 'index.data_dir');
    return this.writeConfigText(text, movedVault ? 'vault.path' : undefined);
  }

  async openInEditor(): Promise<void> {
    throw new Error('opening files in an editor is only available in the desktop app');
  }

  subscribe(listener: (event: AppEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The vault being served (for the CLI and tests). */
  get currentVault(): CairnVault | undefined {
    return this.vault;
  }

  // ---- lifecycle ----

  /** Resolves when every queued change has been applied and saved. */
  async idle(): Promise<void> {
    await this.watcher?.idle();
    await this.queue.idle();
    if (this.persistTimer) await this.flushPersist();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.adaptation?.controller.abort();
    await this.adaptation?.done;
    clearInterval(this.reconcileTimer);
    await this.configWatcher?.close();
    await this.watcher?.close();
    await this.queue.idle();
    await this.flushPersist();
    await this.vault?.close();
    this.listeners.clear();
  }

  // ---- internals ----

  private emit(event: AppEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener (a closed connection) must not stop the others.
      }
    }
  }

  private readonly onIndexEvent = (event: IndexEvent): void => {
    if (event.type === 'progress') this.indexing = event;
    else if (event.type === 'indexing-finished') this.indexing = null;
    else if (event.type === 'rebuild-started') this.rebuilding = event.reason;
    this.emit(event);
  };

  private async emitState(): Promise<void> {
    this.emit({ type: 'state', state: await this.getState() });
  }

  /** Opens the vault with `config` (in the queue): the previous vault answers searches until the new one is ready. */
  private async reopen(config: CairnConfig): Promise<void> {
    const next = await CairnVault.open(structuredClone(config));
    const pending = next.status().pendingRebuild;
    // A vault already open on the same folder keeps answering while its successor builds.
    const previous = this.vault;
    await this.watcher?.close();
    clearInterval(this.reconcileTimer);
    if (!previous || pending === 'no index yet') this.vault = next;
    try {
      await next.index(this.onIndexEvent);
    } finally {
      this.rebuilding = null;
      this.indexing = null;
    }
    this.vault = next;
    if (previous && previous !== next) await previous.close();
    this.config = config;
    // A reopen that finishes after close() began must not leave a watcher running (it would keep the process alive).
    if (this.options.watch !== false && !this.closed) await this.startWatching(next);
    await this.emitState();
    this.adaptWhenDue(next);
  }

  /**
   * Learns the vault's vocabulary in the background when it is due (first index, or enough changed): searches are
   * answered throughout by the vault as it is; when a new table comes of it, the vault is reopened with it (the old
   * one answers until the re-embedded index is complete). A failure leaves the table in force and is reported.
   */
  private adaptWhenDue(vault: CairnVault): void {
    if (this.adaptation || this.closed || vault !== this.vault || Date.now() - this.adaptFailedAt < ADAPT_RETRY_MS || !vault.adaptationDue()) return;
    const controller = new AbortController();
    const run = async () => {
      try {
        const outcome = await vault.adapt({
          signal: controller.signal,
          onProgress: (progress) => {
            this.adapting = progress;
            this.emit({ type: 'adapt-progress', ...progress });
          },
        });
        this.adapting = null;
        this.emit({ type: 'adapt-finished', adapted: outcome.adapted, ...(outcome.adapted ? {} : { reason: outcome.reason }) });
        if (outcome.adapted && vault === this.vault && !this.closed) await this.queue.run(() => this.reopen(this.config));
      } catch (error) {
        if (!controller.signal.aborted) this.adaptFailedAt = Date.now();
        if (!controller.signal.aborted) this.emit({ type: 'error', message: `learning this vault's vocabulary failed (the current embedding table stays in use): ${(error as Error).message}` });
      } finally {
        this.adapting = null;
        this.adaptation = undefined;
        if (!this.closed) await this.emitState();
      }
    };
    this.adaptation = { controller, done: run() };
  }

  private async startWatching(vault: CairnVault): Promise<void> {
    this.watcher = new VaultWatcher(vault.vaultPath, this.config.vault, {
      debounceMs: this.config.index.debounce_ms,
      onBatch: (batch) => this.queue.run(() => this.applyBatch(vault, batch)),
      onError: (error) => this.emit({ type: 'error', message: `watching ${vault.vaultPath}: ${error.message}` }),
      links: async () => vault.links(),
    });
    await this.watcher.start();
    const every = this.config.index.reconcile_interval_seconds;
    if (every > 0) {
      this.reconcileTimer = setInterval(() => void this.queue.run(() => this.reconcile(vault)), every * 1000);
      this.reconcileTimer.unref();
    }
  }

  private async applyBatch(vault: CairnVault, batch: VaultChangeBatch): Promise<void> {
    if (vault !== this.vault || this.closed) return;
    if (batch.folders) return this.reconcile(vault);
    for (const file of batch.files) this.pendingFiles.add(file);
    try {
      const before = new Set([...batch.files].filter((f) => vault.noteInfo(f)));
      await vault.update(batch.files, this.onIndexEvent);
      for (const file of batch.files) {
        const now = vault.noteInfo(file);
        if (!now && before.has(file)) this.emit({ type: 'note-changed', path: file, change: 'removed' });
        else if (now) this.emit({ type: 'note-changed', path: file, change: before.has(file) ? 'changed' : 'added' });
      }
    } finally {
      for (const file of batch.files) this.pendingFiles.delete(file);
    }
    this.schedulePersist(vault);
    await this.emitState();
    this.adaptWhenDue(vault);
  }

  private async reconcile(vault: CairnVault): Promise<void> {
    if (vault !== this.vault || this.closed) return;
    clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    await vault.index(this.onIndexEvent);
    await this.emitState();
    this.adaptWhenDue(vault);
  }

  private schedulePersist(vault: CairnVault): void {
    clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => void this.flushPersist(vault), PERSIST_DELAY_MS);
  }

  private async flushPersist(vault = this.vault): Promise<void> {
    clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    if (!vault) return;
    await this.queue.run(async () => {
      if (vault === this.vault) await vault.persist();
    });
  }

  /** Writes config.toml only once `text` passes every check, so a rejected save leaves the file as it was. */
  private async writeConfigText(text: string, blame?: DataFolderKey): Promise<SaveConfigResult> {
    const file = this.options.configFile;
    if (!file) return { ok: false, problem: { file: '', message: 'no config file: start Cairn with --config FILE to save settings' } };
    const checked = await checkConfigText(text, { file, applyOverrides: (config) => this.applyOverrides(config), blame });
    if ('problem' in checked) return { ok: false, problem: checked.problem };
    await writeFileAtomic(file, text);
    return { ok: true, ...(await this.applyConfig(checked.config)) };
  }

  private async readConfigFile(): Promise<{ config: CairnConfig } | { problem: ConfigProblem }> {
    const file = this.options.configFile!;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return { problem: { file, message: `cannot read config file (${(error as NodeJS.ErrnoException).code ?? String(error)})` } };
    }
    return checkConfigText(text, { file, applyOverrides: (config) => this.applyOverrides(config) });
  }

  private watchConfig(): void {
    const file = this.options.configFile!;
    this.configWatcher = watch(file, { ignoreInitial: true, atomic: true, awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 25 } });
    this.configWatcher.on('all', async () => {
      const loaded = await this.readConfigFile();
      // A change read while close() runs must not reopen a vault (its worker process would outlive the service).
      if (this.closed) return;
      if ('problem' in loaded) {
        this.configProblem = loaded.problem;
        this.emit({ type: 'config-rejected', problem: loaded.problem });
        await this.emitState();
      } else {
        await this.applyConfig(loaded.config).catch((error: Error) => this.emit({ type: 'error', message: error.message }));
      }
    });
  }

  /** Applies a valid config: search options at once; vault, chunking, model or index changes by reopening. */
  private async applyConfig(next: CairnConfig): Promise<{ rebuild?: string }> {
    this.applyOverrides(next);
    this.configProblem = null;
    const needsReopen = REOPEN_SECTIONS.some((section) => JSON.stringify(next[section]) !== JSON.stringify(this.config[section]));
    if (!needsReopen || !this.vault || !next.vault.path) {
      // Search, answer and model settings apply to the next query; the open vault answers with its own copy.
      for (const config of this.vault ? [this.config, this.vault.config] : [this.config]) {
        Object.assign(config.search, next.search);
        Object.assign(config.answer, next.answer);
        Object.assign(config.llm, next.llm);
      }
      if (!this.vault && next.vault.path) await this.openVault(next.vault.path);
      this.emit({ type: 'config-applied' });
      await this.emitState();
      return {};
    }
    const chunkingOrModel = JSON.stringify([next.chunking, next.embedding]) !== JSON.stringify([this.config.chunking, this.config.embedding]);
    const reason = chunkingOrModel ? 'chunking or embedding settings changed in config.toml' : undefined;
    this.emit({ type: 'config-applied', ...(reason ? { rebuild: reason } : {}) });
    void this.queue.run(() => this.reopen(next)).catch((error: Error) => this.emit({ type: 'error', message: error.message }));
    return reason ? { rebuild: reason } : {};
  }

  private applyOverrides(config: CairnConfig): void {
    if (this.vaultOverride) config.vault.path = path.resolve(this.vaultOverride);
    if (this.options.dataDir) config.index.data_dir = path.resolve(this.options.dataDir);
  }

  private requireVault(): CairnVault {
    if (!this.vault) throw new Error('no vault is open');
    return this.vault;
  }

  private async loadRecent(): Promise<void> {
    if (!this.options.stateFile) return;
    try {
      const saved = JSON.parse(await readFile(this.options.stateFile, 'utf8')) as { recentVaults?: unknown };
      if (Array.isArray(saved.recentVaults)) this.recentVaults = saved.recentVaults.filter((v): v is string => typeof v === 'string');
    } catch {
      // No state yet, or unreadable: start without recent vaults.
    }
  }

  private async remember(vaultPath: string): Promise<void> {
    this.recentVaults = [vaultPath, ...this.recentVaults.filter((v) => v !== vaultPath)].slice(0, RECENT_LIMIT);
    if (this.options.stateFile) await writeFile(this.options.stateFile, JSON.stringify({ recentVaults: this.recentVaults }, null, 2)).catch(() => {});
  }
}

