/**
 * Answers a question from the notes: retrieve sections (hybrid search, force-split sections made whole), score
 * their sentences, then either compose the extractive answer or, when a model is configured, stream the model's
 * answer grounded in the numbered sources and check its citations.
 *
 * The extractive answer is always computed first (it is local and fast): it is the answer in extractive mode and
 * the fallback whenever the model fails, so a question always gets an answer and the reason when it is not the
 * model's.
 */
import { parseQuery } from '../contract/filters.js';
import { createAnswerModel } from './answerModelFactory.js';
import { checkCitations } from './citationCheck.js';
import { extractiveAnswer } from './extractiveAnswer.js';
import { buildMessages, numberSources, type NumberedSource } from './llmPrompt.js';
import { retrieveSources } from './retrieveSources.js';
import { sectionEvidence } from './sectionEvidence.js';
import { scoreUnits } from '../search/sentenceRanker.js';
import type { Answer, Citation } from '../contract/answer.js';
import type { AnswerModel, AnswerOptions, AnswerVault } from './types.js';

/** Called with each piece of the model's answer as it arrives (LLM mode only). */
export type TokenListener = (token: string) => void;

export async function answerQuestion(vault: AnswerVault, question: string, options: AnswerOptions = {}, onToken?: TokenListener): Promise<Answer> {
  const { config } = vault;
  // Filter operators ("tag:project") narrow the retrieval; the rest is the question the sentences must answer.
  const sources = await retrieveSources(vault, question.trim(), options.k ?? config.search.k);
  const asked = parseQuery(question).text;
  const scored = await scoreUnits((texts, as) => vault.embed(texts, as), asked, sources);
  const evidence = sectionEvidence(asked, sources, scored);
  const extractive = extractiveAnswer(sources, scored, evidence, { minConfidence: config.answer.min_confidence, maxSentences: config.answer.max_sentences });

  const mode = options.mode ?? config.answer.mode;
  if (mode === 'extractive') return extractive;
  let model: AnswerModel | undefined;
  try {
    model = options.model ?? createAnswerModel(config.llm);
  } catch (error) {
    return { ...extractive, llmError: messageOf(error), fallback: true };
  }
  if (!model) return mode === 'llm' ? { ...extractive, llmError: '[llm] base_url is not set: no language model to ask', fallback: true } : extractive;
  // Nothing retrieved: the model would have nothing to ground an answer in, and nothing needs to be sent.
  if (sources.length === 0) return extractive;

  const numbered = numberSources(sources, config.llm.max_context_chunks);
  let reply = '';
  try {
    for await (const token of model.stream(buildMessages(asked, numbered), options.signal)) {
      reply += token;
      onToken?.(token);
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { ...extractive, llmError: messageOf(error), fallback: true };
  }
  const checked = checkCitations(reply, numbered.length);
  if (!checked.text.trim()) return { ...extractive, llmError: `${model.description} sent an empty answer`, fallback: true };
  return {
    answer: checked.text.trim(),
    mode: 'llm',
    // The model grounded its answer in the notes only if it cited them; one that found no answer cites nothing.
    confident: checked.cited.length > 0,
    citations: checked.cited.map((n) => citationOf(numbered[n - 1])),
    sources: numbered.map((s) => s.source),
    ...(checked.dropped.length ? { droppedCitations: checked.dropped } : {}),
  };
}

function citationOf({ n, source, startLine, endLine }: NumberedSource): Citation {
  return { n, chunkId: source.chunkId, path: source.path, title: source.title, headerPath: source.headerPath, startLine, endLine, ...(source.sameText ? { sameText: source.sameText } : {}) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
