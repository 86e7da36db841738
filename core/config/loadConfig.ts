import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { CONFIG_SCHEMA, defaultConfig, type CairnConfig, type OptionSpec } from './schema.js';

/** One problem in a config file, located as precisely as the input allows. */
export interface ConfigIssue {
  detail: string;
  line?: number;
  column?: number;
  key?: string;
}

/**
 * A config problem, located as precisely as the input allows (file, line, column, key). A file with several bad
 * values reports them all: the first is this error's own location, `problems` holds every one, each on its own
 * line of the message.
 */
export class ConfigError extends Error {
  readonly problems: readonly ConfigIssue[];

  constructor(
    readonly file: string,
    readonly detail: string,
    readonly line?: number,
    readonly column?: number,
    readonly key?: string,
    more: readonly ConfigIssue[] = [],
  ) {
    const problems = [{ detail, line, column, key }, ...more];
    super(problems.map((problem) => describeIssue(file, problem)).join('\n'));
    this.problems = problems;
    this.name = 'ConfigError';
  }
}

/** One problem as one line: "file:line:column: key: detail". */
export function describeIssue(file: string, { detail, line, column, key }: ConfigIssue): string {
  const where = [file, line, column].filter((part) => part !== undefined).join(':');
  return `${where}: ${key ? `${key}: ` : ''}${detail}`;
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
      const unclosed = unclosedString(text, error);
      if (unclosed) throw new ConfigError(file, unclosed.detail, unclosed.line, unclosed.column);
      const firstLine = error.message.split('\n')[0] ?? error.message;
      throw new ConfigError(file, `invalid TOML: ${firstLine}`, error.line, error.column);
    }
    throw error;
  }
  const config = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
  // Every problem is collected, so one save shows them all; a bad value is not assigned (its default stays).
  const issues: ConfigIssue[] = [];
  const fail = (key: string, detail: string): void => {
    issues.push({ detail, ...locateKey(text, key), key });
  };
  for (const [section, value] of Object.entries(raw)) {
    // Own keys only: `toString` or `__proto__` must not find Object's members.
    const options = Object.hasOwn(CONFIG_SCHEMA, section) ? (CONFIG_SCHEMA as Record<string, Record<string, OptionSpec>>)[section] : undefined;
    if (!options) {
      fail(section, `unknown section; expected one of ${Object.keys(CONFIG_SCHEMA).map((s) => `[${s}]`).join(', ')}`);
      continue;
    }
    if (!isTable(value)) {
      fail(section, `expected a table ([${section}])`);
      continue;
    }
    for (const [key, optionValue] of Object.entries(value)) {
      const name = `${section}.${key}`;
      const spec = Object.hasOwn(options, key) ? options[key] : undefined;
      if (!spec) {
        const known = Object.keys(options);
        fail(name, `unknown key; ${known.length ? `[${section}] takes ${known.join(', ')}` : `[${section}] takes no keys yet`}`);
        continue;
      }
      const problem = checkValue(spec, optionValue);
      if (problem) fail(name, problem);
      else config[section][key] = optionValue;
    }
  }
  const checked = config as unknown as CairnConfig;
  const { min_chunk_chars: min, max_chunk_chars: max, overlap_chars: overlap } = checked.chunking;
  // Compared only when each value passed on its own (a rejected one stands at its default here).
  const chunkingValid = !issues.some((issue) => issue.key?.startsWith('chunking.'));
  if (chunkingValid && min > max) fail('chunking.min_chunk_chars', `must not exceed chunking.max_chunk_chars (${min} > ${max})`);
  if (chunkingValid && overlap >= max) fail('chunking.overlap_chars', `must be smaller than chunking.max_chunk_chars (${overlap} >= ${max})`);
  if (issues.length > 0) {
    const [first, ...more] = issues;
    throw new ConfigError(file, first.detail, first.line, first.column, first.key, more);
  }
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
      if (typeof value !== 'number') return `expected ${spec.type === 'integer' ? 'a whole number' : 'a number'}, got ${describe(value)}`;
      // TOML allows nan and ±inf; no option means anything with them (nan scores, 1 ms timers), whatever its bounds.
      if (!Number.isFinite(value)) return `must be a finite number, got ${tomlNumber(value)}`;
      if (spec.type === 'integer' && !Number.isSafeInteger(value)) return `expected a whole number, got ${describe(value)}`;
      if (spec.min !== undefined && value < spec.min) return `must be at least ${spec.min}, got ${value}`;
      if (spec.max !== undefined && value > spec.max) return `must be at most ${spec.max}, got ${value}`;
      return undefined;
    }
  }
}

/** A non-finite number as TOML spells it. */
function tomlNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  return value > 0 ? 'inf' : '-inf';
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
  return locateKey(text, dotted)?.line;
}

/** Where `section.key` is written (line, and the column its value starts at), or `[section]`; for error messages. */
export function locateKey(text: string, dotted: string): { line: number; column: number } | undefined {
  const [section, key] = dotted.split('.', 2);
  let current = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const indent = /^\s*/.exec(lines[i])![0].length;
    const line = lines[i].trim();
    const header = /^\[\s*([^\]]+?)\s*\]/.exec(line);
    if (header) {
      current = header[1];
      if (!key && current === section) return { line: i + 1, column: indent + 1 };
      continue;
    }
    const assignment = /^("?)([A-Za-z0-9_.-]+)\1\s*=\s*/.exec(line);
    if (!assignment) continue;
    const full = current ? `${current}.${assignment[2]}` : assignment[2];
    if (key ? full === dotted : full === section || full.startsWith(`${section}.`)) return { line: i + 1, column: indent + assignment[0].length + 1 };
  }
  return undefined;
}

/**
 * smol-toml reports a quote left open as "control characters are not allowed in strings" (it reads on into the
 * line break) or "unfinished string" (a multi-line one never closed): said here as an unclosed string, located at
 * its opening quote.
 */
export function unclosedString(text: string, error: { message: string; line: number; column: number }): { detail: string; line: number; column: number } | undefined {
  const message = error.message.split('\n')[0] ?? '';
  const lines = text.split(/\r?\n/);
  const lineText = lines[error.line - 1] ?? '';
  if (/unfinished string/i.test(message)) {
    const at = Math.max(0, error.column - 1);
    const triple = lineText.slice(at, at + 3);
    const quote = triple === '"""' || triple === "'''" ? triple : (lineText[at] ?? '"');
    return { detail: `unclosed string: the ${quote} opened here is never closed`, line: error.line, column: error.column };
  }
  // The error points at the line break a single-line string ran into.
  if (!/control characters are not allowed in strings/i.test(message) || error.column <= lineText.length) return undefined;
  const opening = openingQuote(lineText);
  if (opening === undefined) return undefined;
  const quote = lineText[opening]!;
  return { detail: `unclosed string: add the closing ${quote} before the end of line ${error.line}`, line: error.line, column: opening + 1 };
}

/** The index of the quote that opens the string still open at the end of a line, or undefined. */
function openingQuote(line: string): number | undefined {
  let open: number | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (open === undefined) {
      if (c === '#') break;
      if (c === '"' || c === "'") open = i;
    } else if (line[open] === '"' && c === '\\') i++;
    else if (c === line[open]) open = undefined;
  }
  return open;
}
