import type { CairnConfig } from '../config/schema.js';
import { ChatCompletionsModel } from './chatCompletionsModel.js';
import { AnswerModelError, type AnswerModel } from './types.js';

/**
 * The one place that decides which language model answers: none unless `[llm] base_url` is set (then nothing
 * is ever sent anywhere). The API key is read from the environment variable `[llm] api_key_env` names, at call
 * time, and kept only in memory. A misconfiguration throws AnswerModelError, which the caller reports.
 */
export function createAnswerModel(llm: CairnConfig['llm'], env: NodeJS.ProcessEnv = process.env): AnswerModel | undefined {
  if (!llm.base_url.trim()) return undefined;
  let apiKey: string | undefined;
  if (llm.api_key_env) {
    apiKey = env[llm.api_key_env];
    if (!apiKey) throw new AnswerModelError(`the environment variable ${llm.api_key_env} named by [llm] api_key_env is not set`);
  }
  return new ChatCompletionsModel({ baseUrl: llm.base_url, model: llm.model, apiKey, timeoutMs: llm.timeout_seconds * 1000 });
}
