import type { CairnConfig } from '../config/schema.js';
import type { TextRole } from '../embedding/embedder.js';
import type { AnswerMode } from '../contract/answer.js';
import type { ChunkSummary, SearchRequest, SearchResponse } from '../contract/search.js';

/** What answering needs from an open vault (CairnVault has all of it); tests may pass a smaller double. */
export interface AnswerVault {
  readonly config: CairnConfig;
  search(request: SearchRequest): Promise<SearchResponse>;
  /** The chunks of a result's section, with their texts (see CairnVault.sectionChunks). */
  sectionChunks(chunkId: string): Promise<ChunkSummary[] | undefined>;
  /** Unit vectors of `texts` embedded as queries (default) or as passages (see CairnVault.embed). */
  embed(texts: readonly string[], as?: TextRole): Promise<Float32Array[]>;
}

export interface AnswerOptions {
  /** Sections to retrieve; default [search] k. */
  k?: number;
  /** Overrides [answer] mode for this question. */
  mode?: 'auto' | AnswerMode;
  /** Use this model instead of the one [llm] configures (tests, the app's own client). */
  model?: AnswerModel;
  signal?: AbortSignal;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A language model that streams a reply to chat messages; the one seam between Cairn and any LLM. */
export interface AnswerModel {
  /** For messages: e.g. "llama3.2 at http://localhost:11434/v1". Never contains a key. */
  readonly description: string;
  /** Yields the reply's text pieces as they arrive; throws AnswerModelError when the model fails. */
  stream(messages: ChatMessage[], signal?: AbortSignal): AsyncIterable<string>;
}

/** The model could not answer: unreachable, too slow, an HTTP error or a malformed reply. The message says which. */
export class AnswerModelError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AnswerModelError';
  }
}
