// The config a command runs with: config.toml's options over the defaults, the vault and data folder given on the
// command line on top; and what is wrong with a config that cannot be used, one problem a line.
import path from 'node:path';
import { configProblemLines, problemOf } from '../config/checkConfigText.js';
import { loadConfig, type ConfigError } from '../config/loadConfig.js';
import type { CairnConfig } from '../config/schema.js';

export interface ConfigOverrides {
  /** Overrides `[vault] path`. */
  vault?: string;
  /** Overrides `[index] data_dir`. */
  dataDir?: string;
}

/** Without a file, the defaults. Relative paths in the file are resolved from its folder, the overrides from here. */
export async function loadCommandConfig(file: string | undefined, overrides: ConfigOverrides): Promise<{ config: CairnConfig; file?: string }> {
  const loaded = await loadConfig(file);
  if (overrides.vault) loaded.config.vault.path = path.resolve(overrides.vault);
  if (overrides.dataDir) loaded.config.index.data_dir = path.resolve(overrides.dataDir);
  return loaded;
}

/** Each problem of the file as one line "file:line:column: key: message". */
export function configErrorLines(error: ConfigError): string[] {
  return configProblemLines(problemOf(error));
}
