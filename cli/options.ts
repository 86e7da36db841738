import { existsSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { loadCommandConfig, type CairnConfig } from '../core/app/index.js';

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

/** The config file the command should use: --config, else ./config.toml when there is one, else none (defaults). */
export function configFileOf(options: CommonOptions): string | undefined {
  const local = path.resolve('config.toml');
  return options.config ? path.resolve(options.config) : existsSync(local) ? local : undefined;
}

/** Loads the config the command should use (see configFileOf), with --vault/--data-dir on top. */
export function resolveConfig(options: CommonOptions): Promise<{ config: CairnConfig; file?: string }> {
  return loadCommandConfig(configFileOf(options), options);
}

/** For `.argument('<query>', …, nonEmpty('the query is empty: …'))`: a blank argument is a usage error (exit 2), not a search for nothing. */
export function nonEmpty(message: string): (value: string) => string {
  return (value) => {
    if (!value.trim()) throw new InvalidArgumentError(message);
    return value;
  };
}
