// Answers to questions about the notes: extractive (offline, default) or from an OpenAI-compatible LLM.
export { answerQuestion, type TokenListener } from './answerQuestion.js';
export { createAnswerModel } from './answerModelFactory.js';
export { ChatCompletionsModel, type ChatCompletionsOptions } from './chatCompletionsModel.js';
export { NOT_ANSWERED } from './extractiveAnswer.js';
export { sourceLabel } from './retrieveSources.js';
export { SYSTEM_PROMPT } from './llmPrompt.js';
export { AnswerModelError } from './types.js';
export type { Answer, AnswerMode, AnswerSource, Citation, Quote } from '../contract/answer.js';
export type { AnswerModel, AnswerOptions, AnswerVault, ChatMessage } from './types.js';
