// The running app: the CairnApi the UI talks to, wired from the use cases of core/app. One writer: every change to
// the index goes through the live loop's queue; searches are answered at all times from the index as it is.
import type { AppEvent, AppState, AskRequest, AskResponse, CairnApi, ChooseModelResult, ConfigView, ModelsView, NoteView, SaveConfigResult } from '../contract/appApi.js';
import { defaultConfig } from '../config/schema.js';
import type { SearchRequest, SearchResponse, TagCount } from '../contract/search.js';
import type { FolderCompletion } from '../contract/status.js';
import { completeFolder } from '../vault/folderCompletion.js';
import { AppContext, type ServiceOptions } from './appContext.js';
import { askQuestion } from './askQuestion.js';
import { ModelChooser } from './modelChoice.js';
import { noteView } from './noteView.js';
import { VaultOpener } from './openVault.js';
import { Settings } from './settings.js';
import type { CairnVault } from './vault.js';

/** The open vault, its live updates, config.toml hot reload, the settings and events for the UI. */
export class CairnService implements CairnApi {
  private readonly app: AppContext;
  private readonly opener: VaultOpener;
  private readonly settings: Settings;
  /** The settings' model choice and its download. */
  private readonly models: ModelChooser;

  private constructor(options: ServiceOptions) {
    this.app = new AppContext(defaultConfig(), options, (vault) => this.opener.adaptWhenDue(vault));
    this.models = new ModelChooser({
      config: () => this.app.config,
      emit: (event) => this.app.emit(event),
      saveConfigValues: (values) => this.saveConfigValues(values),
    });
    this.opener = new VaultOpener(this.app, (modelId, config) => this.models.ensureLocal(modelId, config));
    this.settings = new Settings(this.app, this.opener);
  }

  static async start(options: ServiceOptions = {}): Promise<CairnService> {
    const service = new CairnService(options);
    const { app } = service;
    if (options.listener) app.subscribe(options.listener);
    await app.recent.load();
    if (options.configFile) {
      await service.settings.load();
      if (options.watch !== false) service.settings.watch();
    }
    app.applyOverrides(app.config);
    if (app.config.vault.path) await service.openVault(app.config.vault.path);
    return service;
  }

  // ---- CairnApi ----

  getState(): Promise<AppState> {
    return this.app.state();
  }

  async openVault(vaultPath: string): Promise<AppState> {
    await this.opener.open(vaultPath);
    return this.getState();
  }

  search(request: SearchRequest): Promise<SearchResponse> {
    return this.app.requireVault().search(request);
  }

  async listTags(): Promise<TagCount[]> {
    return (await this.app.vault?.tags()) ?? [];
  }

  completeFolder(prefix: string): Promise<FolderCompletion[]> {
    return completeFolder(prefix);
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

  // Asking and reading a note hold the vault they began on (see CairnVault.use): a rebuild that replaces it meanwhile
  // closes it only after they are done.
  async ask(request: AskRequest): Promise<AskResponse> {
    const vault = this.app.requireVault();
    return vault.use(() => askQuestion(vault, request, (event) => this.app.emit(event)));
  }

  async getNote(notePath: string): Promise<NoteView> {
    const vault = this.app.requireVault();
    return vault.use(() => noteView(vault, notePath));
  }

  async resolveLink(target: string, fromPath: string): Promise<string | null> {
    return this.app.requireVault().resolveLink(target, fromPath) ?? null;
  }

  getConfig(): Promise<ConfigView> {
    return this.settings.view();
  }

  saveConfigText(text: string): Promise<SaveConfigResult> {
    return this.settings.saveText(text);
  }

  saveConfigValues(values: Record<string, unknown>): Promise<SaveConfigResult> {
    return this.settings.saveValues(values);
  }

  async openInEditor(): Promise<void> {
    throw new Error('opening files in an editor is only available in the desktop app');
  }

  subscribe(listener: (event: AppEvent) => void): () => void {
    return this.app.subscribe(listener);
  }

  /** The vault being served (for the CLI and tests). */
  get currentVault(): CairnVault | undefined {
    return this.app.vault;
  }

  // ---- lifecycle ----

  /** Resolves when every queued change has been applied and saved. */
  idle(): Promise<void> {
    return this.app.live.idle();
  }

  async close(): Promise<void> {
    this.app.closed = true;
    await this.opener.close();
    await this.settings.close();
    await this.app.live.close();
    await this.app.vault?.close();
    this.app.clearListeners();
  }
}
