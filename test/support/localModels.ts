import { env } from '@huggingface/transformers';

/** transformers.js in this process reads models from `dir` alone, as the embedding worker does: no hub, no file cache. */
export function useLocalModels(dir: string): void {
  env.localModelPath = dir;
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  env.useFSCache = false;
}
