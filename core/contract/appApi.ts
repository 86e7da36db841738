/**
 * The API the app's UI talks to: implemented by CairnService in core/app (hosted by the Electron main process or
 * the `cairn serve` HTTP server), reached over IPC or HTTP. Types only; every type a transport or the renderer needs
 * is exported here, defined in the contract file of its topic.
 */
import type { Answer, AnswerSource, Citation } from './answer.js';
import type { ConfigProblem, ConfigView, SaveConfigResult } from './config.js';
import type { ChooseModelResult, ModelDownloadProgress, ModelsView } from './models.js';
import type { NoteView } from './note.js';
import type { SearchRequest, SearchResponse, SnippetSegment, TagCount } from './search.js';
import type { AdaptProgress, FolderCompletion, IndexEvent, VaultStatus } from './status.js';

export type { Answer, AnswerMode, AnswerSource, Citation, Quote } from './answer.js';
export type { ConfigOptionView, ConfigProblem, ConfigView, SaveConfigResult } from './config.js';
export type { CatalogModel, ChooseModelResult, ModelChoiceView, ModelDownloadProgress, ModelPrefixes, ModelsView } from './models.js';
export type { BlockRefView, NoteLinkView, NoteOutlineView, NoteProperties, NoteView, OutlineBlockView } from './note.js';
export type { ChunkSummary, QueryOperator, SearchMode, SearchRequest, SearchResponse, SearchResult, SnippetSegment, TagCount } from './search.js';
export type { AdaptProgress, FolderCompletion, FolderKind, IndexEvent, IndexPhase, IndexSummary, VaultStatus } from './status.js';

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

/** A retrieved passage as the app lists it: with its snippet, the question's words marked. */
export type AskSource = AnswerSource & { snippet: SnippetSegment[] };
/** A citation as the app lists it: with a snippet of its quoted sentences (or of its passage), the question's words marked. */
export type AskCitation = Citation & { snippet: SnippetSegment[] };

/** The checked answer, and the question's words the app marks in the passages' snippets. */
export type AskResponse = Omit<Answer, 'sources' | 'citations'> & { sources: AskSource[]; citations: AskCitation[]; highlightTerms: string[] };

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
  /** The vault folder is gone (moved, deleted, unmounted): searches answer from the index as it was (see `vault-folder`). */
  vaultFolderGone: boolean;
  /** Obsidian vaults get "open in Obsidian" links. */
  isObsidianVault: boolean;
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
  | ({ type: 'model-download' } & ModelDownloadProgress)
  /** The vault folder went (moved, deleted, unmounted) or is back; see `vaultFolderMessage`. */
  | { type: 'vault-folder'; path: string; present: boolean }
  | { type: 'error'; message: string };

/** What a `vault-folder` event tells the user: the same words in the app and in `cairn watch`. */
export function vaultFolderMessage(folder: string, present: boolean): string {
  return present
    ? `The vault folder ${folder} is back; bringing the index up to date.`
    : `The vault folder ${folder} is gone (moved, deleted or unmounted). Searches answer from the index as it was, and Cairn follows the folder again once it is back.`;
}

export interface CairnApi {
  getState(): Promise<AppState>;
  openVault(path: string): Promise<AppState>;
  search(request: SearchRequest): Promise<SearchResponse>;
  /** Answers a question from the notes; a model's answer streams as `answer-token` events while it is written. */
  ask(request: AskRequest): Promise<AskResponse>;
  /** The note with its properties, outline and resolved links (`links`), ready to render. */
  getNote(path: string): Promise<NoteView>;
  /** Resolves a wikilink target as Obsidian would, from the note it appears in (`cairn` scripts; the app uses NoteView.links). */
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
