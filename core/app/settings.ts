// The settings: config.toml as the form shows it, saving it (only once it passes every check), and applying a valid
// config, whether saved here or edited by hand (the file is watched): search options at once, the rest by reopening.
import { readFile } from 'node:fs/promises';
import type { ConfigProblem, ConfigView, SaveConfigResult } from '../contract/appApi.js';
import { checkConfigText, type DataFolderKey } from '../config/checkConfigText.js';
import { setConfigValue } from '../config/editConfig.js';
import { CONFIG_SCHEMA, type CairnConfig, type OptionSpec } from '../config/schema.js';
import { writeFileAtomic } from '../indexing/atomicWrite.js';
import { watchConfigFile } from '../live/configWatcher.js';
import type { AppContext } from './appContext.js';
import type { VaultOpener } from './openVault.js';

/** Changes to these sections need the vault reopened (and, for chunking and the model, rebuilt). */
const REOPEN_SECTIONS = ['vault', 'chunking', 'embedding', 'index'] as const;
const NO_CONFIG_FILE: SaveConfigResult = { ok: false, problem: { file: '', message: 'no config file: start Cairn with --config FILE to save settings' } };

export class Settings {
  private watcher?: { close(): Promise<void> };

  constructor(
    private readonly app: AppContext,
    private readonly opener: VaultOpener,
  ) {}

  async view(): Promise<ConfigView> {
    const { app } = this;
    const file = app.options.configFile ?? '';
    const text = file ? await readFile(file, 'utf8').catch(() => '') : '';
    const options = Object.entries(CONFIG_SCHEMA).flatMap(([section, specs]) =>
      Object.entries(specs as Record<string, OptionSpec>).map(([key, spec]) => ({
        section,
        key,
        type: spec.type,
        default: spec.default,
        value: (app.config as unknown as Record<string, Record<string, unknown>>)[section][key],
        doc: spec.doc,
        ...(spec.choices ? { choices: spec.choices } : {}),
        ...(spec.min !== undefined ? { min: spec.min } : {}),
        ...(spec.max !== undefined ? { max: spec.max } : {}),
        rebuilds: section === 'chunking' || section === 'embedding',
      })),
    );
    return { file, text, options, ...(app.configProblem ? { problem: app.configProblem } : {}) };
  }

  saveText(text: string): Promise<SaveConfigResult> {
    return this.writeText(text);
  }

  async saveValues(values: Record<string, unknown>): Promise<SaveConfigResult> {
    const file = this.app.options.configFile;
    if (!file) return NO_CONFIG_FILE;
    let text = await readFile(file, 'utf8').catch(() => '');
    for (const [key, value] of Object.entries(values)) text = setConfigValue(text, key, value);
    const movedVault = Object.hasOwn(values, 'vault.path') && !Object.hasOwn(values, 'index.data_dir');
    return this.writeText(text, movedVault ? 'vault.path' : undefined);
  }

  /** Reads config.toml at start: its config is in force, or its problem is shown (defaults apply). */
  async load(): Promise<void> {
    const loaded = await this.readFile();
    if ('problem' in loaded) this.app.configProblem = loaded.problem;
    else this.app.config = loaded.config;
  }

  /** Applies config.toml again whenever it changes on disk; a file that fails a check is reported, the config in force stays. */
  watch(): void {
    this.watcher = watchConfigFile(this.app.options.configFile!, async () => {
      const loaded = await this.readFile();
      // A change read while close() runs must not reopen a vault (its worker process would outlive the service).
      if (this.app.closed) return;
      if ('problem' in loaded) {
        this.app.configProblem = loaded.problem;
        this.app.emit({ type: 'config-rejected', problem: loaded.problem });
        await this.app.emitState();
      } else {
        await this.apply(loaded.config).catch((error: Error) => this.app.emit({ type: 'error', message: error.message }));
      }
    });
  }

  async close(): Promise<void> {
    await this.watcher?.close();
  }

  /** Writes config.toml only once `text` passes every check, so a rejected save leaves the file as it was. */
  private async writeText(text: string, blame?: DataFolderKey): Promise<SaveConfigResult> {
    const file = this.app.options.configFile;
    if (!file) return NO_CONFIG_FILE;
    const checked = await checkConfigText(text, { file, applyOverrides: (config) => this.app.applyOverrides(config), blame });
    if ('problem' in checked) return { ok: false, problem: checked.problem };
    await writeFileAtomic(file, text);
    return { ok: true, ...(await this.apply(checked.config)) };
  }

  private async readFile(): Promise<{ config: CairnConfig } | { problem: ConfigProblem }> {
    const file = this.app.options.configFile!;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return { problem: { file, message: `cannot read config file (${(error as NodeJS.ErrnoException).code ?? String(error)})` } };
    }
    return checkConfigText(text, { file, applyOverrides: (config) => this.app.applyOverrides(config) });
  }

  /** Applies a valid config: search options at once; vault, chunking, model or index changes by reopening. */
  private async apply(next: CairnConfig): Promise<{ rebuild?: string }> {
    const { app } = this;
    app.applyOverrides(next);
    app.configProblem = null;
    const needsReopen = REOPEN_SECTIONS.some((section) => JSON.stringify(next[section]) !== JSON.stringify(app.config[section]));
    if (!needsReopen || !app.vault || !next.vault.path) {
      // Search, answer and model settings apply to the next query; the open vault answers with its own copy.
      for (const config of app.vault ? [app.config, app.vault.config] : [app.config]) {
        Object.assign(config.search, next.search);
        Object.assign(config.answer, next.answer);
        Object.assign(config.llm, next.llm);
      }
      if (!app.vault && next.vault.path) await this.opener.open(next.vault.path);
      app.emit({ type: 'config-applied' });
      await app.emitState();
      return {};
    }
    const chunkingOrModel = JSON.stringify([next.chunking, next.embedding]) !== JSON.stringify([app.config.chunking, app.config.embedding]);
    const reason = chunkingOrModel ? 'chunking or embedding settings changed in config.toml' : undefined;
    app.emit({ type: 'config-applied', ...(reason ? { rebuild: reason } : {}) });
    void app.live.run(() => this.opener.reopen(next)).catch((error: Error) => app.emit({ type: 'error', message: error.message }));
    return reason ? { rebuild: reason } : {};
  }
}
