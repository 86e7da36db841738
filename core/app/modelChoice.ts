// Choosing the embedding model from the settings: the catalog with what is on disk, and a download (one at a time)
// with progress events, cancel and resume, its files checked, then `[embedding] model` saved to config.toml (the
// vault then rebuilds, reusing the embedding cache). Offline, it says so at once and the current model stays.
import path from 'node:path';
import type { AppEvent, ChooseModelResult, ModelsView, SaveConfigResult } from '../contract/appApi.js';
import type { CairnConfig } from '../config/schema.js';
import { describeLocalModel, hasLocalModel, type EmbedderOptions } from '../embedding/embedder.js';
import { MODEL_CATALOG } from '../embedding/modelCatalog.js';
import { downloadHubModel, ModelDownloadError } from '../embedding/modelDownload.js';
import { EmbeddingModelError, onnxFileFor } from '../embedding/modelFolder.js';
import { defaultDataRoot } from '../config/dataFolder.js';

export interface ModelChoiceHost {
  config(): CairnConfig;
  emit(event: AppEvent): void;
  saveConfigValues(values: Record<string, unknown>): Promise<SaveConfigResult>;
  /** Where bundled models are (tests); default the repository's models/. */
  modelsDir?: string;
}

export class ModelChooser {
  private download?: { modelId: string; controller: AbortController };
  /** A choice saved to config.toml whose vault is still being reopened: `from` is the model in force until then. */
  private saved?: { modelId: string; from: string };

  constructor(private readonly host: ModelChoiceHost) {}

  async list(): Promise<ModelsView> {
    const config = this.host.config();
    const current = this.currentModel(config);
    const ids = MODEL_CATALOG.map((m) => m.id);
    const entries = [...MODEL_CATALOG];
    // A model set by hand (an "other" hub id) is listed too, so the choice shows what is in force.
    if (!ids.includes(current)) {
      entries.push({ id: current, label: current, bundled: false, size: 'unknown', languages: 'see its model card', speed: 'unknown', dims: 0, source: `https://huggingface.co/${current}`, prefixes: { query: '', passage: '' } });
    }
    const models = await Promise.all(entries.map(async (m) => ({ ...m, prefixes: { ...m.prefixes }, onDisk: await this.onDisk(m.id, config) })));
    return { current, models, downloading: this.download?.modelId ?? null };
  }

  async choose(modelId: string): Promise<ChooseModelResult> {
    const config = this.host.config();
    if (this.download) {
      if (this.download.modelId === modelId) return { ok: false, reason: 'busy', message: `"${modelId}" is being downloaded already.` };
      return { ok: false, reason: 'busy', message: `"${this.download.modelId}" is being downloaded; cancel it first.` };
    }
    try {
      await this.fetchIfMissing(modelId, config);
    } catch (error) {
      if (error instanceof ModelDownloadError) return { ok: false, reason: error.reason, message: error.message };
      return { ok: false, reason: 'failed', message: (error as Error).message };
    }
    if (this.currentModel(config) === modelId) return { ok: true };
    const saved = await this.host.saveConfigValues({ 'embedding.model': modelId });
    if (saved.ok) this.saved = { modelId, from: config.embedding.model };
    return saved.ok ? { ok: true, ...(saved.rebuild ? { rebuild: saved.rebuild } : {}) } : { ok: false, reason: 'config', message: saved.problem.message };
  }

  /**
   * Makes a model set by hand in config.toml local before the vault opens with it: bundled or already downloaded,
   * nothing happens; otherwise it is downloaded as the picker does (progress events, cancel, resume, checked files),
   * never by transformers.js's own fetch. Throws a one-line Error (offline, not found, cancelled, …) when it cannot.
   * `config` is the config the vault is about to open with (its data folder and dtype); default the one in force.
   */
  async ensureLocal(modelId: string, config: CairnConfig = this.host.config()): Promise<void> {
    if (this.download?.modelId === modelId) throw new Error(`"${modelId}" is being downloaded already; the vault opens with it once that is done.`);
    // Existence only: opening a vault must not read and parse the model's files twice (createEmbedder checks them).
    if (await hasLocalModel(this.modelOptions(modelId, config))) return;
    if (this.download) throw new Error(`"${this.download.modelId}" is being downloaded; cancel it first.`);
    await this.fetchIfMissing(modelId, config);
  }

  /** Downloads the model unless it is on disk, then checks it; throws ModelDownloadError (or an Error) when that fails. */
  private async fetchIfMissing(modelId: string, config: CairnConfig): Promise<void> {
    if (await this.onDisk(modelId, config)) return;
    const controller = new AbortController();
    this.download = { modelId, controller };
    try {
      await downloadHubModel({
        modelId,
        onnxFile: onnxFileFor(config.embedding.dtype),
        dataRoot: dataRootOf(config),
        signal: controller.signal,
        onProgress: (progress) => this.host.emit({ type: 'model-download', ...progress }),
      });
      // The files as createEmbedder will read them: config.json and tokenizer.json parse, the weights are there.
      if (!(await this.onDisk(modelId, config))) throw new ModelDownloadError('damaged', `"${modelId}" was downloaded but its folder is incomplete; try again.`);
    } finally {
      this.download = undefined;
    }
  }

  /** The model in force, or the one just saved while the vault is reopened with it. */
  private currentModel(config: CairnConfig): string {
    if (this.saved && this.saved.from !== config.embedding.model) this.saved = undefined;
    return this.saved?.modelId ?? config.embedding.model;
  }

  async cancel(): Promise<void> {
    this.download?.controller.abort();
  }

  private modelOptions(modelId: string, config: CairnConfig): EmbedderOptions {
    return {
      model: modelId,
      dtype: config.embedding.dtype,
      batchSize: 0,
      maxTokens: 0,
      dataRoot: dataRootOf(config),
      ...(this.host.modelsDir ? { modelsDir: this.host.modelsDir } : {}),
    };
  }

  /** On disk and readable (its config and tokenizer parse). */
  private async onDisk(modelId: string, config: CairnConfig): Promise<boolean> {
    try {
      return (await describeLocalModel(this.modelOptions(modelId, config))) !== undefined;
    } catch (error) {
      if (error instanceof EmbeddingModelError) return false;
      throw error;
    }
  }
}

function dataRootOf(config: CairnConfig): string {
  return config.index.data_dir ? path.resolve(config.index.data_dir) : defaultDataRoot();
}
