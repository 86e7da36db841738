// Asking a question of the open vault: answered from it as it is now (a rebuild in progress does not hold it up).
import { answerQuestion } from '../answer/index.js';
import type { AppEvent, AskRequest, AskResponse } from '../appApi.js';
import { highlightTerms } from '../search/highlightTerms.js';
import type { CairnVault } from './vault.js';

/**
 * A language model's answer streams through `emit` as `answer-token` events tagged with the request's id; the
 * checked answer, with its citations and the question's words to highlight, is the result.
 */
export async function askQuestion(vault: CairnVault, request: AskRequest, emit: (event: AppEvent) => void): Promise<AskResponse> {
  const { question, k, mode, requestId } = request;
  const answer = await answerQuestion(vault, question, { k, mode }, (token) => emit({ type: 'answer-token', requestId, token }));
  return { ...answer, highlightTerms: highlightTerms(question) };
}
