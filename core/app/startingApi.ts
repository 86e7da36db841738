// The CairnApi the UI sees while the core starts. CairnService.start() returns only once the vault's first indexing
// is done, which for a large vault takes minutes: the window must not stay blank (or say nothing) meanwhile.
// Events flow from the first moment, getState() reports the indexing progress, other calls wait for the core.
import type { AppEvent, AppState, AskRequest, AskResponse, CairnApi, ConfigView, NoteView, SaveConfigResult, SearchRequest, SearchResponse, TagCount, ModelsView, ChooseModelResult, FolderCompletion } from '../contract/appApi.js';

export class StartingApi implements CairnApi {
  private core: CairnApi | null = null;
  private readonly listeners = new Set<(event: AppEvent) => void>();
  private indexing: AppState['indexing'] = null;
  private rebuilding: string | null = null;
  /** The first indexing is over: the core is about to be ready, and an interim state would now be out of date. */
  private indexed = false;
  /** Settles when the core is ready, or rejects with why it could not start. */
  readonly ready: Promise<CairnApi>;

  /**
   * @param vault the vault being opened, if any (shown while it indexes)
   * @param start starts the core, handing it the listener that must hear every event from the start
   */
  constructor(
    private readonly vault: string | null,
    start: (listener: (event: AppEvent) => void) => Promise<CairnApi>,
  ) {
    this.ready = start((event) => this.forward(event)).then(
      (core) => {
        this.core = core;
        // Whoever asked getState() before now got the interim state: tell them the real one.
        void core.getState().then((state) => this.forward({ type: 'state', state }), () => {});
        return core;
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        this.forward({ type: 'error', message: `Cairn could not start: ${message}` });
        throw error;
      },
    );
    // The rejection is reported through `ready` and every later call; it must not also crash the process.
    this.ready.catch(() => {});
  }

  private forward(event: AppEvent): void {
    if (event.type === 'progress') this.indexing = event;
    else if (event.type === 'rebuild-started') this.rebuilding = event.reason;
    else if (event.type === 'indexing-finished') {
      this.indexing = this.rebuilding = null;
      this.indexed = true;
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // One broken subscriber (a closed connection) must not starve the others.
      }
    }
  }

  private async use(): Promise<CairnApi> {
    return this.core ?? this.ready;
  }

  async getState(): Promise<AppState> {
    if (this.core || this.indexed) return (await this.use()).getState();
    return { vault: this.vault, status: null, indexing: this.indexing, rebuilding: this.rebuilding, adapting: null, recentVaults: [], failedFiles: [], configProblem: null, vaultFolderGone: false, isObsidianVault: false };
  }
  async openVault(path: string): Promise<AppState> {
    return (await this.use()).openVault(path);
  }
  async search(request: SearchRequest): Promise<SearchResponse> {
    return (await this.use()).search(request);
  }
  async ask(request: AskRequest): Promise<AskResponse> {
    return (await this.use()).ask(request);
  }
  async getNote(path: string): Promise<NoteView> {
    return (await this.use()).getNote(path);
  }
  async resolveLink(target: string, fromPath: string): Promise<string | null> {
    return (await this.use()).resolveLink(target, fromPath);
  }
  async getConfig(): Promise<ConfigView> {
    return (await this.use()).getConfig();
  }
  async saveConfigText(text: string): Promise<SaveConfigResult> {
    return (await this.use()).saveConfigText(text);
  }
  async saveConfigValues(values: Record<string, unknown>): Promise<SaveConfigResult> {
    return (await this.use()).saveConfigValues(values);
  }
  async openInEditor(path: string): Promise<void> {
    return (await this.use()).openInEditor(path);
  }
  async listTags(): Promise<TagCount[]> {
    return (await this.use()).listTags();
  }
  async completeFolder(prefix: string): Promise<FolderCompletion[]> {
    return (await this.use()).completeFolder(prefix);
  }
  async listModels(): Promise<ModelsView> {
    return (await this.use()).listModels();
  }
  async chooseModel(modelId: string): Promise<ChooseModelResult> {
    return (await this.use()).chooseModel(modelId);
  }
  async cancelModelDownload(): Promise<void> {
    return (await this.use()).cancelModelDownload();
  }
  subscribe(listener: (event: AppEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
