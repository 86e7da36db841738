// The API the app's UI talks to: implemented by CairnService in the core (hosted by the Electron main process
// or the `cairn serve` HTTP server), reached over IPC or HTTP. Types only: the renderer may import this file.
import type { Answer } from './answer/types.js';
import type { CatalogModel } from './embedding/modelCatalog.js';
import type { ModelDownloadProgress } from './embedding/modelDownload.js';
import type { AdaptProgress } from './adapt/adaptStaticModel.js';
import type { VaultStatus } from './app/vaultStatus.js';
import type { SearchRequest, SearchResponse } from './contract/search.js';
import type { IndexEvent } from './indexing/indexEvents.js';
import type { TagCount } from './search/tagIndex.js';
import type { FolderCompletion } from './vault/folderCompletion.js';

export type { VaultStatus } from './app/vaultStatus.js';
export type { ChunkSummary, QueryOperator, SearchRequest, SearchResponse, SearchResult } from './contract/search.js';
export type { IndexEvent } from './indexing/indexEvents.js';
export type { TagCount } from './search/tagIndex.js';
export type { FolderCompletion, FolderKind } from './vault/folderCompletion.js';
export type { Answer, AnswerMode, AnswerSource, Citation, Quote } from './answer/types.js';

/** A question for ask(): answered from the notes, extractively or by the configured language model. */
export interface AskRequest {
  question: string;
  /** Sections to retrieve; default [search] k. */
  k?: number;
  /** Overrides [answer] mode for this question. */
  mode?: 'auto' | 'extractive' | 'llm';
  /** Chosen by the caller: the `answer-token` events of this question carry it. */
  requestId: string;
}

/** The checked answer: its text with [n] markers, the citations they name, the passages retrieved, and notices. */
/** The answer, and the question's words the app marks in the passages' snippets. */
export type AskResponse = Answer & { highlightTerms: string[] };

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

/** Per-file indexing state, for the UI's failed-files list. */
export interface FileStatus {
  path: string;
  state: 'indexed' | 'pending' | 'failed';
  reason?: string;
}

export interface AppState {
  vault: string | null;
  status: VaultStatus | null;
  /** Indexing now: the latest progress, or null when idle. */
  indexing: Extract<IndexEvent, { type: 'progress' }> | null;
  /** Why the index is being rebuilt, while it is. */
  rebuilding: string | null;
  /** Learning the vault's vocabulary (adapting the embedding table) now: the latest progress, or null. */
  adapting: AdaptProgress | null;
  recentVaults: string[];
  failedFiles: FileStatus[];
  configProblem: ConfigProblem | null;
  /** Obsidian vaults get "open in Obsidian" links. */
  isObsidianVault: boolean;
}

export interface NoteLinkView {
  path: string;
  title: string;
}

/** A Logseq block a note references with `((uuid))` or `{{embed ((uuid))}}`. */
export interface BlockRefView {
  /** The note holding the block (this note's own path for a block of the same note). */
  path: string;
  /** The block's own text (bullet, heading `#`s and property lines left out, references inside it resolved). */
  text: string;
  /** 1-based line of the block's bullet in its note. */
  line: number;
}

export interface NoteView {
  path: string;
  title: string;
  /** The note's Markdown as on disk (BOM removed); the renderer renders and sanitises it. */
  text: string;
  /** Body start offset: where the front matter ends. */
  bodyStart: number;
  modified: string;
  tags: string[];
  outgoing: NoteLinkView[];
  backlinks: NoteLinkView[];
  /** Notes whose chunks are nearest to this note's (vector similarity). */
  related: NoteLinkView[];
  /**
   * The blocks this note's block references point to, uuid (lower-cased) → where and what; a uuid missing here names
   * a block no note defines (shown as "missing block", never as the raw uuid).
   */
  blockRefs: Record<string, BlockRefView>;
  /** obsidian://open?vault=…&file=… when the vault is an Obsidian vault. */
  obsidianUrl?: string;
}

/** Everything the core tells the UI as it happens. */
export type AppEvent =
  | IndexEvent
  | { type: 'state'; state: AppState }
  | { type: 'config-applied'; rebuild?: string }
  | { type: 'config-rejected'; problem: ConfigProblem }
  | { type: 'note-changed'; path: string; change: 'added' | 'changed' | 'removed' }
  /** A piece of a language model's answer as it is written (LLM answers only); the final text comes from ask(). */
  | { type: 'answer-token'; requestId: string; token: string }
  /** Progress of learning the vault's vocabulary; `adapt-finished` says whether a new table came of it (then the index is re-embedded with it). */
  | ({ type: 'adapt-progress' } & AdaptProgress)
  | { type: 'adapt-finished'; adapted: boolean; reason?: string }
  /** Downloading a chosen embedding model: per file, bytes so far and the file's size (0 while unknown). */
  | ({ type: 'model-download' } & ModelDownloadProgressView)
  | { type: 'error'; message: string };

/** An embedding model the settings offer (core/embedding/modelCatalog.ts), and whether it is on disk. */
export type ModelChoiceView = CatalogModel & {
  /** Bundled, or downloaded already: choosing it needs no network. */
  onDisk: boolean;
};

export interface ModelsView {
  /** `[embedding] model` in force. */
  current: string;
  models: ModelChoiceView[];
  /** The model being downloaded now, if any. */
  downloading: string | null;
}

export type ModelDownloadProgressView = ModelDownloadProgress;

/**
 * What choosing a model came to: saved to config.toml (the vault rebuilds, reusing cached embeddings), or not, and
 * why: offline (said at once; the current model stays), cancelled (a later choice resumes), or another failure.
 */
export type ChooseModelResult =
  | { ok: true; rebuild?: string }
  | { ok: false; reason: 'offline' | 'cancelled' | 'not-found' | 'damaged' | 'failed' | 'busy' | 'config'; message: string };

export interface CairnApi {
  getState(): Promise<AppState>;
  openVault(path: string): Promise<AppState>;
  search(request: SearchRequest): Promise<SearchResponse>;
  /** Answers a question from the notes; a model's answer streams as `answer-token` events while it is written. */
  ask(request: AskRequest): Promise<AskResponse>;
  getNote(path: string): Promise<NoteView>;
  /** Resolves a wikilink target as Obsidian would, from the note it appears in. */
  resolveLink(target: string, fromPath: string): Promise<string | null>;
  getConfig(): Promise<ConfigView>;
  /** Replaces config.toml with `text` if it is valid; nothing changes otherwise. */
  saveConfigText(text: string): Promise<SaveConfigResult>;
  /** Sets option values in place in config.toml, keeping the user's comments and layout. */
  saveConfigValues(values: Record<string, unknown>): Promise<SaveConfigResult>;
  /** Opens the note in the OS default editor (desktop app only; the server refuses). */
  openInEditor(path: string): Promise<void>;
  /** The open vault's tags with how many notes carry each, most used first: what `tag:` completes from. */
  listTags(): Promise<TagCount[]>;
  /** The sub-folders a typed path may go on to (browser mode's vault path field): case-insensitive, "~" is home, at most 20. */
  completeFolder(prefix: string): Promise<FolderCompletion[]>;
  /** The embedding models to choose from, the one in force, and a download under way. */
  listModels(): Promise<ModelsView>;
  /** Downloads the model if needed (progress as `model-download` events), checks it, then saves `[embedding] model`. */
  chooseModel(modelId: string): Promise<ChooseModelResult>;
  /** Stops the download under way (its finished files and the partial one are kept for a resume). */
  cancelModelDownload(): Promise<void>;
  subscribe(listener: (event: AppEvent) => void): () => void;
}
