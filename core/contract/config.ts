/** The settings as the app shows and edits them: config.toml's text, its options, and what is wrong with it. Types only. */

/** A problem in config.toml, located as precisely as possible. */
export interface ConfigProblem {
  file: string;
  message: string;
  line?: number;
  column?: number;
  /** Dotted key, e.g. "chunking.max_chunk_chars". */
  key?: string;
  /**
   * Every problem the check found, this one first, each with its own line and key, when there are several (a bad
   * config.toml lists them all; `message` above then sums them up on one line for readers that show one).
   */
  problems?: ConfigProblem[];
}

/** One option of the settings form: generated from the config schema. */
export interface ConfigOptionView {
  section: string;
  key: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'string[]';
  default: unknown;
  value: unknown;
  doc: string;
  choices?: readonly string[];
  min?: number;
  max?: number;
  /** Changing it rebuilds the index (chunking, embedding model). */
  rebuilds: boolean;
}

export interface ConfigView {
  file: string;
  /** The raw text of config.toml, comments included. */
  text: string;
  options: ConfigOptionView[];
  /** Set when the file on disk is invalid: the last good config stays in force. */
  problem?: ConfigProblem;
}

export type SaveConfigResult = { ok: true; rebuild?: string } | { ok: false; problem: ConfigProblem };
