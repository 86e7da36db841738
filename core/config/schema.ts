// The one place where every config.toml option, its type, default and meaning is declared.
// The loader validates against it, the CLI prints it, and the settings form is generated from it.

export type OptionType = 'string' | 'integer' | 'number' | 'boolean' | 'string[]';

export interface OptionSpec {
  type: OptionType;
  default: unknown;
  doc: string;
  /** Allowed values for a string option. */
  choices?: readonly string[];
  min?: number;
  max?: number;
}

export const CONFIG_SCHEMA = {
  vault: {
    path: { type: 'string', default: '', doc: 'The notes folder. Relative paths are resolved from the folder of this config file.' },
    include: { type: 'string[]', default: ['**/*'], doc: 'Glob patterns (relative to the vault) of files to index.' },
    exclude: {
      type: 'string[]',
      default: ['.obsidian/**', '.git/**', '.trash/**', 'node_modules/**'],
      doc: 'Glob patterns of files and folders never indexed. Excluded folders are not even entered.',
    },
    extensions: { type: 'string[]', default: ['.md', '.markdown'], doc: 'File name endings that count as notes.' },
  },
  chunking: {
    strategy: {
      type: 'string',
      default: 'header_based',
      choices: ['header_based', 'none'],
      doc: '"header_based" cuts notes at headings; "none" keeps whole notes (split only to fit the embedding window).',
    },
    min_chunk_chars: { type: 'integer', default: 200, min: 0, doc: 'Adjacent sections shorter than this are merged.' },
    max_chunk_chars: { type: 'integer', default: 2000, min: 50, doc: 'Sections longer than this are split at paragraph, item, line, sentence or word boundaries.' },
    overlap_chars: { type: 'integer', default: 50, min: 0, doc: 'Tail of the previous sub-chunk prepended to the next, only between sub-chunks of one split section.' },
    include_parent_headers: { type: 'boolean', default: true, doc: 'Prefix each chunk\'s indexed text with its header path ("Note > Section > Sub").' },
  },
  embedding: {
    max_tokens: {
      type: 'integer',
      default: 0,
      min: 0,
      doc: 'Largest number of tokens of a chunk\'s embedded text; 0 means the model\'s own input window. Chunks are split further rather than truncated.',
    },
  },
  search: {},
  index: {
    data_dir: { type: 'string', default: '', doc: 'Where Cairn keeps its index (one subfolder per vault); empty means the OS app-data folder. Never inside the vault.' },
  },
  llm: {},
} as const satisfies Record<string, Record<string, OptionSpec>>;

type Schema = typeof CONFIG_SCHEMA;
type ValueOf<S extends OptionSpec> = S['type'] extends 'string'
  ? S extends { choices: readonly (infer C)[] }
    ? C
    : string
  : S['type'] extends 'integer' | 'number'
    ? number
    : S['type'] extends 'boolean'
      ? boolean
      : string[];

/** The validated configuration: every section and key present, defaults filled in. */
export type CairnConfig = {
  -readonly [Section in keyof Schema]: { -readonly [Key in keyof Schema[Section]]: Schema[Section][Key] extends OptionSpec ? ValueOf<Schema[Section][Key]> : never };
};

export type ChunkingConfig = CairnConfig['chunking'];

export function defaultConfig(): CairnConfig {
  const config: Record<string, Record<string, unknown>> = {};
  for (const [section, options] of Object.entries(CONFIG_SCHEMA)) {
    config[section] = {};
    for (const [key, spec] of Object.entries(options as Record<string, OptionSpec>)) {
      config[section][key] = structuredClone(spec.default);
    }
  }
  return config as CairnConfig;
}
