/** Reads an embedding model folder's fusion defaults (its cairn.json; see `FusionDefaults`). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { GENERIC_FUSION_DEFAULTS, type FusionDefaults } from '../config/rankingPolicy.js';

export const MODEL_SEARCH_FILE = 'cairn.json';

/** The model folder's fusion defaults; a malformed file is an error naming the file and key. */
export async function readFusionDefaults(modelDir: string): Promise<FusionDefaults> {
  const file = path.join(modelDir, MODEL_SEARCH_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ...GENERIC_FUSION_DEFAULTS };
    throw new Error(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseFusionDefaults(text, file);
}

export function parseFusionDefaults(text: string, file: string): FusionDefaults {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
  const fusion = (value as { fusion?: unknown } | null)?.fusion;
  if (fusion === undefined) return { ...GENERIC_FUSION_DEFAULTS };
  if (typeof fusion !== 'object' || fusion === null || Array.isArray(fusion)) throw new Error(`${file}: "fusion" must be an object`);
  const defaults = { ...GENERIC_FUSION_DEFAULTS };
  for (const [key, given] of Object.entries(fusion)) {
    if (!Object.hasOwn(defaults, key)) throw new Error(`${file}: fusion.${key} is not a fusion setting (expected ${Object.keys(defaults).join(', ')})`);
    const min = key === 'rrf_k' ? 1 : 0;
    if (typeof given !== 'number' || !Number.isFinite(given) || given < min || given > 10_000) {
      throw new Error(`${file}: fusion.${key} must be a number from ${min} to 10000, got ${JSON.stringify(given)}`);
    }
    defaults[key as keyof FusionDefaults] = given;
  }
  return defaults;
}
