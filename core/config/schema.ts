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
      default: ['.obsidian/**', '.git/**', '.trash/**', 'node_modules/**', 'logseq/bak/**', 'logseq/version-files/**'],
      doc: 'Glob patterns of files and folders never indexed (Logseq keeps backups of pages in logseq/bak). Excluded folders are not even entered.',
    },
    extensions: { type: 'string[]', default: ['.md', '.markdown'], doc: 'File name endings that count as notes.' },
    max_note_mb: {
      type: 'number',
      default: 20,
      min: 0.001,
      max: 1024,
      doc: 'Notes larger than this many megabytes (10^6 bytes) are not read or indexed; each is reported by name.',
    },
    follow_outside_links: {
      type: 'boolean',
      default: false,
      doc: 'Follow symbolic links (to files or folders) whose real path is outside the vault. Off: such links are not indexed, watched or served, and each is reported.',
    },
  },
  chunking: {
    strategy: {
      type: 'string',
      default: 'header_based',
      choices: ['header_based', 'none'],
      doc: '"header_based" cuts notes at headings; "none" keeps whole notes (split only to fit the embedding window).',
    },
    min_chunk_chars: { type: 'integer', default: 200, min: 0, max: 100_000, doc: 'Adjacent sections shorter than this are merged.' },
    max_chunk_chars: { type: 'integer', default: 2000, min: 50, max: 100_000, doc: 'Sections longer than this are split at paragraph, item, line, sentence or word boundaries.' },
    overlap_chars: { type: 'integer', default: 50, min: 0, max: 100_000, doc: 'Tail of the previous sub-chunk prepended to the next, only between sub-chunks of one split section.' },
    include_parent_headers: { type: 'boolean', default: true, doc: 'Prefix each chunk\'s indexed text with its header path ("Note > Section > Sub").' },
  },
  embedding: {
    model: {
      type: 'string',
      default: 'cairn-retrieval-100d',
      doc: 'Embedding model: "cairn-retrieval-100d" or "cairn-glove-100d" (bundled, offline) or a Hugging Face model id such as "Xenova/bge-small-en-v1.5" (downloaded into the data folder on first use).',
    },
    dtype: { type: 'string', default: 'q8', choices: ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'bnb4', 'q4f16'], doc: 'Which weights of the model to load (q8 = 8-bit quantised).' },
    batch_size: { type: 'integer', default: 0, min: 0, max: 256, doc: 'Texts per embedding call; 0 picks a good size for the model kind.' },
    max_tokens: {
      type: 'integer',
      default: 0,
      min: 0,
      max: 100_000,
      doc: 'Largest number of tokens of a chunk\'s embedded text; 0 means the model\'s own input window. Chunks are split further rather than truncated.',
    },
    adapt: {
      type: 'boolean',
      default: true,
      doc: 'Adapt a static word model (the bundled ones) to this vault\'s vocabulary in the background after indexing; searches use the shipped table meanwhile. Transformer models are never adapted.',
    },
    adapt_after_changed: {
      type: 'number',
      default: 0.25,
      min: 0.01,
      max: 1,
      doc: 'Adapt again once this share of the vault\'s chunks is new or changed since the last adaptation.',
    },
  },
  search: {
    mode: { type: 'string', default: 'hybrid', choices: ['hybrid', 'keyword', 'vector'], doc: 'Default search mode.' },
    k: { type: 'integer', default: 10, min: 1, max: 200, doc: 'Results returned.' },
    fusion: {
      type: 'string',
      default: 'rrf',
      choices: ['rrf', 'convex'],
      doc: 'How the keyword and vector rankings combine: "rrf" (weighted Reciprocal Rank Fusion, by rank) or "convex" (weighted sum of each ranking\'s min-max normalised scores).',
    },
    rrf_k: { type: 'integer', default: 0, min: 0, max: 10_000, doc: 'Reciprocal Rank Fusion constant: score = Σ weight / (rrf_k + rank); 0 = the embedding model\'s default (its cairn.json, else 60).' },
    keyword_weight: { type: 'number', default: 1.0, min: 0, max: 100, doc: 'Scales the keyword (BM25) ranking\'s weight in the fusion: the model\'s base weight × this × the ranker\'s confidence for the query.' },
    vector_weight: { type: 'number', default: 1.0, min: 0, max: 100, doc: 'Scales the vector (embedding) ranking\'s weight in the fusion: the model\'s base weight × this × the ranker\'s confidence for the query.' },
    graph_multiplier: { type: 'number', default: 0.5, min: 0, max: 1, doc: 'Chunks of notes linked from or to a top result score up to this share more than their own evidence gives them (the full share next to the best result, less next to the others; 0 turns the graph off).' },
    recency_boost: { type: 'boolean', default: true, doc: 'Break near-ties in favour of recent notes: scores of notes modified within 7 days ×1.02, within 30 days ×1.01 (never past clearly better evidence).' },
    max_chunks_per_note: { type: 'integer', default: 2, min: 1, max: 200, doc: 'At most this many chunks of one note in the results.' },
    rerank_depth: {
      type: 'integer',
      default: 30,
      min: 0,
      max: 200,
      doc: 'Hybrid search ranks its best this many chunks again by their best sentence (embedding cosine and coverage of the query\'s words), fused with the first ranking by RRF; 0 turns it off.',
    },
    query_expansion: { type: 'boolean', default: false, doc: 'Also search the keyword index for the vault\'s words nearest to the query words in the embedding space (with a lower weight). Off by default: it lowered keyword MRR@10 on both dev sets.' },
  },
  index: {
    data_dir: { type: 'string', default: '', doc: 'Where Cairn keeps its index (one subfolder per vault); empty means the OS app-data folder. Never inside the vault.' },
    vector_backend: { type: 'string', default: 'auto', choices: ['auto', 'faiss', 'flat'], doc: '"faiss" (faiss-node), "flat" (exact TypeScript search), or "auto": faiss when it loads.' },
    vector_kind: { type: 'string', default: 'auto', choices: ['auto', 'flat', 'hnsw'], doc: '"flat" is exact; "hnsw" is approximate and faster on very large vaults; "auto" switches to HNSW at hnsw_threshold vectors.' },
    hnsw_threshold: { type: 'integer', default: 200000, min: 1, max: 1_000_000_000, doc: 'Vector count at which vector_kind "auto" switches from exact to HNSW search.' },
    debounce_ms: { type: 'integer', default: 300, min: 0, max: 60000, doc: 'File changes arriving within this many milliseconds of each other are applied as one update; the first change after a quiet spell is applied at once.' },
    reconcile_interval_seconds: {
      type: 'integer',
      default: 300,
      min: 0,
      // At most a day: far inside Node's timer limit (2^31 - 1 ms), beyond which an interval fires every 1 ms.
      max: 86_400,
      doc: 'Every this many seconds the vault is compared with the index and any drift fixed (missed events); 0 turns it off. Always done on open.',
    },
  },
  answer: {
    mode: {
      type: 'string',
      default: 'auto',
      choices: ['auto', 'extractive', 'llm'],
      doc: '"extractive" quotes the sentences of your notes that answer (offline); "llm" asks the [llm] model; "auto" asks it when [llm] base_url is set.',
    },
    min_confidence: {
      type: 'number',
      default: 0.5,
      min: 0,
      max: 1,
      doc: 'Evidence a section needs to count as an answer on its own (mean of its share of the question\'s weighted words and its embedding similarity). Below it, sections that still look relevant (near the bar and sharing two of the question\'s content words, or holding three of them) are quoted; only when none does, the answer says the notes do not answer and lists the closest passages.',
    },
    max_sentences: { type: 'integer', default: 4, min: 1, max: 20, doc: 'Most sentences an extractive answer quotes.' },
  },
  llm: {
    base_url: {
      type: 'string',
      default: '',
      doc: 'OpenAI-compatible API address, e.g. "http://localhost:11434/v1" (Ollama); empty turns LLM answers off and nothing is ever sent.',
    },
    model: { type: 'string', default: '', doc: 'Model name sent with each request, e.g. "llama3.2"; empty sends none (servers with one model).' },
    api_key_env: { type: 'string', default: '', doc: 'Name of the environment variable holding the API key (sent as a Bearer token); the key itself is never written to disk.' },
    timeout_seconds: { type: 'number', default: 60, min: 0.1, max: 3600, doc: 'Give up when the model sends nothing for this long (before the first token or between tokens); the extractive answer is shown instead.' },
    max_context_chunks: { type: 'integer', default: 6, min: 1, max: 50, doc: 'Retrieved passages sent to the model as numbered sources.' },
  },
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
export type SearchConfig = CairnConfig['search'];

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
