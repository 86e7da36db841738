/**
 * What an answer to a question is: the checked text, its citations and the passages retrieved. Types only, shared
 * by the answer code (core/answer/), every transport and the renderer.
 */
import type { ChunkSummary, PassagePlace } from './search.js';

export type AnswerMode = 'extractive' | 'llm';

/** A place in a note: the chunk, its note and heading path, and a line range (1-based, inclusive). */
interface NotePlace {
  chunkId: string;
  path: string;
  title: string;
  headerPath: string[];
  startLine: number;
  endLine: number;
  /** The same passage, word for word, in other notes (as the search result listed them). */
  sameText?: PassagePlace[];
}

/**
 * One retrieved section: the hit chunk (the best-ranked piece of its section) plus, for a force-split section, all
 * its sibling pieces in order; its lines are the whole section's (first piece's start to last piece's end).
 */
export interface AnswerSource extends NotePlace {
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

/** A cited source; its lines are the quoted sentences' span for extractive answers, the whole passage for LLM answers. */
export interface Citation extends NotePlace {
  /** The marker number: [n] in the answer text. */
  n: number;
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
