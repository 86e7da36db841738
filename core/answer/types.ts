import type { CairnConfig } from '../config/schema.js';
import type { ChunkSummary, SearchRequest, SearchResponse } from '../contract/search.js';

/** What answering needs from an open vault (CairnVault has all of it); tests may pass a smaller double. */
export interface AnswerVault {
  readonly config: CairnConfig;
  search(request: SearchRequest): Promise<SearchResponse>;
  sectionChunks(chunkId: string): ChunkSummary[] | undefined;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export type AnswerMode = 'extractive' | 'llm';

/** One retrieved section: the hit chunk plus, for a force-split section, all its sibling pieces in order. */
export interface AnswerSource {
  /** The chunk the search returned (the best-ranked piece of its section). */
  chunkId: string;
  path: string;
  title: string;
  headerPath: string[];
  /** Lines of the whole section (first piece's start to last piece's end), 1-based inclusive. */
  startLine: number;
  endLine: number;
  /** 1-based retrieval rank of the section. */
  rank: number;
  score: number;
  /** The section's pieces, each an exact slice of the note with its own line numbers. */
  pieces: ChunkSummary[];
}

/** A sentence (or list item, table row) quoted from a note, with its own lines. */
export interface Quote {
  /** Exactly as in the note (the lines startLine..endLine contain it). */
  text: string;
  startLine: number;
  endLine: number;
}

export interface Citation {
  /** The marker number: [n] in the answer text. */
  n: number;
  chunkId: string;
  path: string;
  title: string;
  headerPath: string[];
  /** Lines cited: the quoted sentences' span for extractive answers, the whole passage for LLM answers. */
  startLine: number;
  endLine: number;
  /** Extractive answers: the sentences taken from this source, in reading order. */
  quotes?: Quote[];
}

export interface Answer {
  answer: string;
  mode: AnswerMode;
  /**
   * Extractive: false when no sentence carries enough evidence ([answer] min_confidence); the answer then says
   * so and lists the closest passages. LLM: false when the model cited no source (it found no answer in them).
   */
  confident: boolean;
  citations: Citation[];
  /** The passages retrieved for the question, best first. */
  sources: AnswerSource[];
  /** Markers [n] the model wrote that name no source: removed from `answer`. */
  droppedCitations?: number[];
  /** Why the language model gave no answer (the extractive answer is returned instead). */
  llmError?: string;
  /** True when the LLM was asked but failed and this is the extractive answer. */
  fallback?: boolean;
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
