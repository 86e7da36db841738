/**
 * What the language model is shown: a system message with the rules, and one user message with the numbered
 * source passages and the question. Nothing else from the vault (no paths, tags, other notes, settings) is sent.
 */
import { sourceLabel } from './retrieveSources.js';
import type { AnswerSource } from '../contract/answer.js';
import type { ChatMessage } from './types.js';

/** A source as numbered for the model: [n] in its reply means this passage. */
export interface NumberedSource {
  n: number;
  source: AnswerSource;
  /** The lines of the text sent (a long section is cut around the piece the search found). */
  startLine: number;
  endLine: number;
  text: string;
}

/**
 * Most characters of one section sent to the model. A force-split section can be many pieces long; the pieces
 * nearest the one retrieval found are kept, so a few sources stay within a small model's context window.
 */
const MAX_SOURCE_CHARS = 6000;

export const SYSTEM_PROMPT = [
  'You answer questions using only the numbered sources, which are passages from the user\'s own notes.',
  'Cite the source of every statement with its number in square brackets, like [1] or [2][3].',
  'If the sources do not answer the question, say so plainly. Do not use any other knowledge.',
  'Answer briefly, in the language of the question.',
].join(' ');

export function numberSources(sources: readonly AnswerSource[], max: number): NumberedSource[] {
  return sources.slice(0, max).map((source, i) => {
    const pieces = piecesAround(source);
    return { n: i + 1, source, startLine: pieces[0].startLine, endLine: pieces.at(-1)!.endLine, text: pieces.map((p) => p.text).join('\n') };
  });
}

/** The retrieved piece, then its neighbours outwards (after before before), while they fit. */
function piecesAround(source: AnswerSource) {
  const { pieces } = source;
  const hit = Math.max(0, pieces.findIndex((p) => p.chunkId === source.chunkId));
  let from = hit;
  let to = hit;
  let size = pieces[hit].text.length;
  for (let grew = true; grew; ) {
    grew = false;
    const after = pieces[to + 1];
    if (after && size + after.text.length <= MAX_SOURCE_CHARS) {
      to++;
      size += after.text.length;
      grew = true;
    }
    const before = pieces[from - 1];
    if (before && size + before.text.length <= MAX_SOURCE_CHARS) {
      from--;
      size += before.text.length;
      grew = true;
    }
  }
  return pieces.slice(from, to + 1);
}

export function buildMessages(question: string, sources: readonly NumberedSource[]): ChatMessage[] {
  const blocks = sources.map((s) => `[${s.n}] ${sourceLabel(s.source, s.startLine, s.endLine)}\n${s.text}`);
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Sources:\n\n${blocks.join('\n\n')}\n\nQuestion: ${question}` },
  ];
}
