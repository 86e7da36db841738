import type { ConfigProblem } from '../contract/appApi.js';
import { dataFolderProblem, defaultDataRoot } from './dataFolder.js';
import { ConfigError, describeIssue, locateKey, parseConfig, resolveConfigPaths, type ConfigIssue } from './loadConfig.js';
import type { CairnConfig } from './schema.js';

/** The key a data-folder conflict is reported on. */
export type DataFolderKey = 'index.data_dir' | 'vault.path';

export interface ConfigTextCheck {
  /** The config file the text is (or will be) in: relative paths are resolved from its folder. */
  file: string;
  /** Puts the vault and data folder chosen on the command line or in the app on top of the file's. */
  applyOverrides: (config: CairnConfig) => void;
  /** The key to blame for a data-folder conflict when the caller knows which one changed. */
  blame?: DataFolderKey;
}

/**
 * Everything config.toml text must pass before it is written or applied: the schema's rules, then that its data
 * folder and vault do not contain one another (real paths), both as the file says and with the overrides, which is
 * what would be opened. Otherwise a config would save fine and then refuse to open.
 */
export async function checkConfigText(text: string, { file, applyOverrides, blame }: ConfigTextCheck): Promise<{ config: CairnConfig } | { problem: ConfigProblem }> {
  let config: CairnConfig;
  try {
    config = resolveConfigPaths(parseConfig(text, file), file);
  } catch (error) {
    if (error instanceof ConfigError) return { problem: problemOf(error) };
    throw error;
  }
  const effective = structuredClone(config);
  applyOverrides(effective);
  for (const candidate of [config, effective]) {
    if (!candidate.vault.path) continue;
    const conflict = await dataFolderProblem(candidate.index.data_dir || defaultDataRoot(), candidate.vault.path);
    if (!conflict) continue;
    const key = blame ?? (locateKey(text, 'index.data_dir') ? 'index.data_dir' : 'vault.path');
    const where = locateKey(text, key);
    return { problem: problemOf(new ConfigError(file, conflict, where?.line, where?.column, key)) };
  }
  return { config };
}

/**
 * A ConfigError as the app shows it: the first problem located, the others named in its one-line message, and
 * every one of them, each located, in `problems` (for the lists of the settings view, the toast and the CLI).
 */
export function problemOf(error: ConfigError): ConfigProblem {
  const located = (issue: ConfigIssue, message: string): ConfigProblem => ({
    file: error.file,
    message,
    ...(issue.line ? { line: issue.line } : {}),
    ...(issue.column ? { column: issue.column } : {}),
    ...(issue.key ? { key: issue.key } : {}),
  });
  const [first, ...rest] = error.problems;
  if (rest.length === 0) return located(first, first.detail);
  const others = rest.map((p) => `${p.line ? `line ${p.line} ` : ''}${p.key ? `${p.key}: ` : ''}${p.detail}`);
  return { ...located(first, `${first.detail} (also ${others.join('; ')})`), problems: error.problems.map((issue) => located(issue, issue.detail)) };
}

/** Each problem of a rejected config as one line "file:line:column: key: message", for the command line. */
export function configProblemLines(problem: ConfigProblem): string[] {
  return (problem.problems ?? [problem]).map(({ file, message, line, column, key }) => describeIssue(file, { detail: message, line, column, key }));
}
