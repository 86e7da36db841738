import { existsSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../core/config/loadConfig.js';
import type { CairnConfig } from '../core/config/schema.js';

/** Options every command takes. */
export interface CommonOptions {
  vault?: string;
  dataDir?: string;
  config?: string;
  json?: boolean;
}

export function withCommonOptions(command: Command, { json = true } = {}): Command {
  command
    .option('--vault <dir>', 'the notes folder (overrides [vault] path)')
    .option('--data-dir <dir>', 'where the index is kept (overrides [index] data_dir)')
    .option('--config <file>', 'config file to use (default: ./config.toml when present, else built-in defaults)');
  if (json) command.option('--json', 'print results as JSON');
  return command;
}

/** Loads the config the command should use: --config, else ./config.toml, with --vault/--data-dir on top. */
export async function resolveConfig(options: CommonOptions): Promise<{ config: CairnConfig; file?: string }> {
  const local = path.resolve('config.toml');
  const { config, file } = await loadConfig(options.config ?? (existsSync(local) ? local : undefined));
  if (options.vault) config.vault.path = path.resolve(options.vault);
  if (options.dataDir) config.index.data_dir = path.resolve(options.dataDir);
  return { config, file };
}

/** For `.argument('<query>', …, nonEmpty('the query is empty: …'))`: a blank argument is a usage error (exit 2), not a search for nothing. */
export function nonEmpty(message: string): (value: string) => string {
  return (value) => {
    if (!value.trim()) throw new InvalidArgumentError(message);
    return value;
  };
}
