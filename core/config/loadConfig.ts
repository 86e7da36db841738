import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { CONFIG_SCHEMA, defaultConfig, type CairnConfig, type OptionSpec } from './schema.js';

/** A config problem, located as precisely as the input allows (file, line, column, key). */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly line?: number,
    readonly column?: number,
    readonly key?: string,
  ) {
    const where = [file, line, column].filter((part) => part !== undefined).join(':');
    super(`${where}: ${key ? `${key}: ` : ''}${detail}`);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: CairnConfig;
  /** The file it came from, or undefined when only defaults apply. */
  file?: string;
}

/** Parses and validates config.toml text. Omitted sections and keys take their defaults. */
export function parseConfig(text: string, file: string): CairnConfig {
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const firstLine = error.message.split('\n')[0] ?? error.message;
      throw new ConfigError(file, `invalid TOML: ${firstLine}`, error.line, error.column);
    }
    throw error;
  }
  const config = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
  const fail = (key: string, detail: string): never => {
    throw new ConfigError(file, detail, lineOfKey(text, key), undefined, key);
  };
  for (const [section, value] of Object.entries(raw)) {
    const options = (CONFIG_SCHEMA as Record<string, Record<string, OptionSpec>>)[section];
    if (!options) fail(section, `unknown section; expected one of ${Object.keys(CONFIG_SCHEMA).map((s) => `[${s}]`).join(', ')}`);
    if (!isTable(value)) fail(section, `expected a table ([${section}])`);
    for (const [key, optionValue] of Object.entries(value as Record<string, unknown>)) {
      const name = `${section}.${key}`;
      const spec = options[key];
      if (!spec) {
        const known = Object.keys(options);
        fail(name, `unknown key; ${known.length ? `[${section}] takes ${known.join(', ')}` : `[${section}] takes no keys yet`}`);
      }
      const problem = checkValue(spec, optionValue);
      if (problem) fail(name, problem);
      config[section][key] = optionValue;
    }
  }
  const checked = config as unknown as CairnConfig;
  const { min_chunk_chars: min, max_chunk_chars: max, overlap_chars: overlap } = checked.chunking;
  if (min > max) fail('chunking.min_chunk_chars', `must not exceed chunking.max_chunk_chars (${min} > ${max})`);
  if (overlap >= max) fail('chunking.overlap_chars', `must be smaller than chunking.max_chunk_chars (${overlap} >= ${max})`);
  return checked;
}

/** Loads a config file; without a file, the defaults. Relative paths in it are resolved from its folder. */
export async function loadConfig(file?: string): Promise<LoadedConfig> {
  if (!file) return { config: defaultConfig() };
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new ConfigError(absolute, `cannot read config file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return { config: resolveConfigPaths(parseConfig(text, absolute), absolute), file: absolute };
}

/** Relative paths in a config file are relative to the file's folder. */
export function resolveConfigPaths(config: CairnConfig, file: string): CairnConfig {
  const dir = path.dirname(path.resolve(file));
  if (config.vault.path) config.vault.path = path.resolve(dir, config.vault.path);
  if (config.index.data_dir) config.index.data_dir = path.resolve(dir, config.index.data_dir);
  return config;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function checkValue(spec: OptionSpec, value: unknown): string | undefined {
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string') return `expected a string, got ${describe(value)}`;
      if (spec.choices && !spec.choices.includes(value)) return `expected one of ${spec.choices.map((c) => `"${c}"`).join(', ')}, got "${value}"`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected true or false, got ${describe(value)}`;
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : `expected an array of strings, got ${describe(value)}`;
    case 'integer':
    case 'number': {
      const isNumber = typeof value === 'number' || typeof value === 'bigint';
      if (!isNumber || (spec.type === 'integer' && !Number.isInteger(Number(value)))) {
        return `expected ${spec.type === 'integer' ? 'a whole number' : 'a number'}, got ${describe(value)}`;
      }
      const n = Number(value);
      if (spec.min !== undefined && n < spec.min) return `must be at least ${spec.min}, got ${n}`;
      if (spec.max !== undefined && n > spec.max) return `must be at most ${spec.max}, got ${n}`;
      return undefined;
    }
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'string') return `the string "${value}"`;
  if (typeof value === 'object' && value !== null) return 'a table';
  return `${typeof value} ${String(value)}`;
}

/** The 1-based line where `section.key` (or `[section]`) is written, for error messages. */
export function lineOfKey(text: string, dotted: string): number | undefined {
  const [section, key] = dotted.split('.', 2);
  let current = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const header = /^\[\s*([^\]]+?)\s*\]/.exec(line);
    if (header) {
      current = header[1];
      if (!key && current === section) return i + 1;
      continue;
    }
    const assigned = /^("?)([A-Za-z0-9_.-]+)\1\s*=/.exec(line)?.[2];
    if (!assigned) continue;
    const full = current ? `${current}.${assigned}` : assigned;
    if (key ? full === dotted : full === section || full.startsWith(`${section}.`)) return i + 1;
  }
  return undefined;
}
