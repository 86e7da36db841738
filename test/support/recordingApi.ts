// A CairnApi for the transport tests (HTTP server, Electron IPC): it records every call, answers with fixed values,
// and lets the test push events. It implements CairnApi and nothing more (plus `note`), so that its prototype's
// method names are the interface's.
import type { AppEvent, AppState, AskRequest, AskResponse, CairnApi, ConfigView, NoteView, SaveConfigResult, SearchRequest, SearchResponse } from '../../core/contract/appApi.js';
import { CairnError } from '../../core/contract/errors.js';

export class RecordingApi implements CairnApi {
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  readonly listeners = new Set<(event: AppEvent) => void>();
  readonly state: AppState = { vault: '/notes', status: null, indexing: null, rebuilding: null, adapting: null, recentVaults: [], failedFiles: [], configProblem: null, vaultFolderGone: false, isObsidianVault: false };
  protected note(method: string, args: unknown[]) {
    this.calls.push({ method, args });
  }
  async getState() {
    this.note('getState', []);
    return this.state;
  }
  async openVault(folder: string) {
    this.note('openVault', [folder]);
    if (folder === '/no/such/folder') throw new CairnError(`${folder} is not a folder`);
    return { ...this.state, vault: folder };
  }
  async search(request: SearchRequest): Promise<SearchResponse> {
    this.note('search', [request]);
    return { query: request.query, text: request.query, filters: {}, operators: [], mode: request.mode ?? 'hybrid', results: [], expansions: [], highlightTerms: [], tookMs: 1, offset: 0, total: 0, more: false };
  }
  async ask(request: AskRequest): Promise<AskResponse> {
    this.note('ask', [request]);
    return { answer: `About ${request.question} [1].`, mode: 'extractive', confident: true, citations: [], sources: [], highlightTerms: [] };
  }
  async getNote(notePath: string): Promise<NoteView> {
    this.note('getNote', [notePath]);
    if (notePath === 'Missing.md') throw new Error('no note Missing.md in the index');
    return { path: notePath, title: 'A', text: '# A\n', bodyStart: 0, modified: new Date(0).toISOString(), tags: [], properties: null, outline: { propertyLines: [], blocks: {}, pageProperties: [], isOutline: false, dedent: [] }, links: {}, outgoing: [], backlinks: [], related: [], blockRefs: {} };
  }
  async resolveLink(target: string, fromPath: string) {
    this.note('resolveLink', [target, fromPath]);
    return target === 'Known' ? 'Known.md' : null;
  }
  async getConfig(): Promise<ConfigView> {
    return { file: 'config.toml', text: '', options: [] };
  }
  async saveConfigText(text: string): Promise<SaveConfigResult> {
    this.note('saveConfigText', [text]);
    return { ok: true };
  }
  async saveConfigValues(values: Record<string, unknown>): Promise<SaveConfigResult> {
    this.note('saveConfigValues', [values]);
    return { ok: true, rebuild: 'chunking changed' };
  }
  async openInEditor(notePath: string) {
    this.note('openInEditor', [notePath]);
  }
  async listTags() {
    this.note('listTags', []);
    return [{ tag: 'idea', notes: 2 }];
  }
  async completeFolder(prefix: string) {
    this.note('completeFolder', [prefix]);
    return [];
  }
  async listModels() {
    this.note('listModels', []);
    return { current: 'cairn-glove-100d', models: [], downloading: null };
  }
  async chooseModel(modelId: string) {
    this.note('chooseModel', [modelId]);
    return { ok: true as const };
  }
  async cancelModelDownload() {
    this.note('cancelModelDownload', []);
  }
  subscribe(listener: (event: AppEvent) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
