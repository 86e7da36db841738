// Asking a question of the open vault: answered from it as it is now (a rebuild in progress does not hold it up).
import { answerQuestion } from '../answer/index.js';
import type { Answer } from '../contract/answer.js';
import type { AppEvent, AskRequest, AskResponse } from '../contract/appApi.js';
import { highlightTerms } from '../search/highlightTerms.js';
import { buildSnippet } from '../search/snippet.js';
import type { CairnVault } from './vault.js';

/**
 * A language model's answer streams through `emit` as `answer-token` events tagged with the request's id; the
 * checked answer, with its citations and the question's words to highlight, is the result.
 */
export async function askQuestion(vault: CairnVault, request: AskRequest, emit: (event: AppEvent) => void): Promise<AskResponse> {
  const { question, k, mode, requestId } = request;
  const answer = await answerQuestion(vault, question, { k, mode }, (token) => emit({ type: 'answer-token', requestId, token }));
  return withSnippets(answer, highlightTerms(question));
}

/** Each source and citation with its snippet: a citation's quoted sentences, else its passage; a source's hit chunk. */
function withSnippets(answer: Answer, terms: string[]): AskResponse {
  const chunkText = (chunkId: string) => answer.sources.flatMap((s) => s.pieces).find((p) => p.chunkId === chunkId)?.text ?? '';
  return {
    ...answer,
    sources: answer.sources.map((source) => ({ ...source, snippet: buildSnippet(chunkText(source.chunkId), terms) })),
    citations: answer.citations.map((citation) => ({ ...citation, snippet: buildSnippet(citation.quotes?.map((q) => q.text).join(' ') || chunkText(citation.chunkId), terms) })),
    highlightTerms: terms,
  };
}
