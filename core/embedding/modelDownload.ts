/**
 * Downloading a hub model into <data>/models/<owner>/<name> from the settings, with progress, cancel and resume.
 *
 * Files are fetched one at a time from <hub>/<id>/resolve/main/<file> (the hub's layout, as transformers.js reads
 * it) into a staging folder <data>/models/.partial/<id>, each as <file>.part until it is complete. A .part file
 * is never trusted as a model file: an interrupted download resumes it with an HTTP Range request (and restarts
 * it from zero when the server does not resume), and a finished file must have the size the server announced,
 * the SHA-256 the hub names for large files (its x-linked-etag), and, for .json files, parse as JSON. Only when
 * every file passed are they moved into the model's folder, where createEmbedder loads them offline.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ModelDownloadProgress } from '../contract/models.js';

/** The hub Cairn downloads models from; CAIRN_HUB_URL replaces it (a mirror, or the tests' local server). */
export function defaultHubUrl(): string {
  const configured = process.env.CAIRN_HUB_URL?.trim();
  if (!configured) return 'https://huggingface.co/';
  return configured.endsWith('/') ? configured : `${configured}/`;
}

export interface ModelDownloadOptions {
  modelId: string;
  /** Which weights: 'q8' → onnx/model_quantized.onnx. */
  onnxFile: string;
  /** The app data folder: the model goes to <dataRoot>/models/<modelId>. */
  dataRoot: string;
  hubUrl?: string;
  signal?: AbortSignal;
  onProgress?: (progress: ModelDownloadProgress) => void;
  /** Give up when the server sends nothing for this long. Default 30 s. */
  idleTimeoutMs?: number;
  /** Smallest interval between two progress calls for one file (the first and last are always sent). Default 100 ms. */
  progressIntervalMs?: number;
}

export type ModelDownloadFailure = 'offline' | 'not-found' | 'damaged' | 'cancelled' | 'failed';

/** Why a download did not finish; `reason` lets the UI say "offline" or "cancelled" without parsing the message. */
export class ModelDownloadError extends Error {
  constructor(
    readonly reason: ModelDownloadFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ModelDownloadError';
  }
}

const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
const OFFLINE = /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|no answer/i;

export const stagingDirFor = (dataRoot: string, modelId: string) => path.join(dataRoot, 'models', '.partial', modelId);

/** Downloads the model's files and moves them into <dataRoot>/models/<modelId>; resolves to that folder. */
export async function downloadHubModel(options: ModelDownloadOptions): Promise<string> {
  const { modelId, dataRoot, signal } = options;
  const hubUrl = options.hubUrl ?? defaultHubUrl();
  const target = path.join(dataRoot, 'models', modelId);
  const staging = stagingDirFor(dataRoot, modelId);
  await mkdir(staging, { recursive: true });
  const files: Array<{ name: string; optional: boolean }> = [
    ...REQUIRED_FILES.map((name) => ({ name, optional: false })),
    { name: options.onnxFile, optional: false },
    // Models over 2 GB keep their weights beside the graph; absent (404) for the small ones.
    { name: `${options.onnxFile}_data`, optional: true },
  ];
  const fetched: string[] = [];
  for (const [i, file] of files.entries()) {
    if (signal?.aborted) throw cancelled(modelId);
    const done = path.join(staging, file.name);
    if (existsSync(path.join(target, file.name)) || existsSync(done)) {
      fetched.push(file.name);
      continue;
    }
    const got = await fetchFile(options, hubUrl, file.name, file.optional, done, { fileIndex: i + 1, fileCount: files.length });
    if (got) fetched.push(file.name);
  }
  for (const name of fetched) {
    const from = path.join(staging, name);
    if (!existsSync(from)) continue;
    const to = path.join(target, name);
    await mkdir(path.dirname(to), { recursive: true });
    await rename(from, to);
  }
  await rm(staging, { recursive: true, force: true });
  return target;
}

/** Fetches one file into `done` (via `done`.part); false for an optional file the hub does not have. */
async function fetchFile(
  options: ModelDownloadOptions,
  hubUrl: string,
  name: string,
  optional: boolean,
  done: string,
  position: { fileIndex: number; fileCount: number },
): Promise<boolean> {
  const { modelId, signal } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  const interval = options.progressIntervalMs ?? 100;
  const part = `${done}.part`;
  await mkdir(path.dirname(part), { recursive: true });
  const have = await stat(part).then((s) => s.size, () => 0);
  const url = new URL(`${modelId}/resolve/main/${name}`, hubUrl);

  // One controller for cancel and for a server that goes quiet.
  const controller = new AbortController();
  let idle = false;
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => ((idle = true), controller.abort()), idleTimeoutMs);
  const failure = (e: unknown): never => {
    if (signal?.aborted) throw cancelled(modelId);
    const reason = idle ? `no answer for ${Math.round(idleTimeoutMs / 1000)} s` : errorText(e);
    if (OFFLINE.test(reason)) {
      throw new ModelDownloadError('offline', `cannot reach the model hub at ${hubUrl} (${reason}): you seem to be offline. The current model stays in use; try again when connected.`, { cause: e });
    }
    throw new ModelDownloadError('failed', `downloading ${name} of "${modelId}" failed (${reason}); try again to resume.`, { cause: e });
  };
  try {
    let response: Response;
    try {
      response = await fetch(url, { signal: controller.signal, headers: have > 0 ? { range: `bytes=${have}-` } : {}, redirect: 'follow' });
    } catch (e) {
      return failure(e);
    }
    if (response.status === 404 || response.status === 401) {
      await response.body?.cancel();
      if (optional) return false;
      throw new ModelDownloadError('not-found', `"${modelId}" has no ${name} on the model hub (HTTP ${response.status}): check that it is a Hugging Face model with ONNX weights for transformers.js.`);
    }
    if (response.status === 416) {
      // The .part file is not a prefix the server recognises: start again from zero.
      await response.body?.cancel();
      await rm(part, { force: true });
      return fetchFile(options, hubUrl, name, optional, done, position);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new ModelDownloadError('failed', `downloading ${name} of "${modelId}" failed (HTTP ${response.status}); try again.`);
    }
    const resumed = response.status === 206 && contentRangeStart(response) === have;
    const start = resumed ? have : 0;
    const length = Number(response.headers.get('content-length') ?? NaN);
    const size = Number.isFinite(length) ? start + length : 0;
    const expectedSha = linkedSha256(response);

    const handle = await open(part, resumed ? 'a' : 'w');
    let loaded = start;
    let lastReport = 0;
    const report = (force: boolean) => {
      const now = Date.now();
      if (!force && now - lastReport < interval) return;
      lastReport = now;
      options.onProgress?.({ modelId, file: name, ...position, loaded, size });
    };
    try {
      report(true);
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          timer.refresh();
          await handle.write(chunk);
          loaded += chunk.length;
          report(false);
        }
      } catch (e) {
        return failure(e);
      }
    } finally {
      await handle.close();
    }
    report(true);
    await checkFile(modelId, name, part, size, expectedSha);
    await rename(part, done);
    return true;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A complete file must have the announced size, the hub's SHA-256 when it names one, and parse when it is JSON. */
async function checkFile(modelId: string, name: string, part: string, size: number, sha256: string | undefined) {
  const damaged = async (what: string) => {
    await rm(part, { force: true });
    return new ModelDownloadError('damaged', `${name} of "${modelId}" arrived damaged (${what}); it was deleted: try again.`);
  };
  const actual = (await stat(part)).size;
  if (size > 0 && actual !== size) throw await damaged(`${actual} bytes instead of ${size}`);
  if (sha256) {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(part)) hash.update(chunk as Buffer);
    const digest = hash.digest('hex');
    if (digest !== sha256) throw await damaged(`SHA-256 ${digest.slice(0, 12)}… instead of ${sha256.slice(0, 12)}…`);
  }
  if (name.endsWith('.json')) {
    try {
      JSON.parse(await readFile(part, 'utf8'));
    } catch (e) {
      throw await damaged(`not valid JSON: ${(e as Error).message}`);
    }
  }
}

/** The hub names a large (LFS) file's SHA-256 in x-linked-etag, or in the ETag itself. */
function linkedSha256(response: Response): string | undefined {
  for (const header of ['x-linked-etag', 'etag']) {
    const value = response.headers.get(header)?.replace(/^W\//, '').replaceAll('"', '');
    if (value && /^[0-9a-f]{64}$/.test(value)) return value;
  }
  return undefined;
}

function contentRangeStart(response: Response): number | undefined {
  const match = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '');
  return match ? Number(match[1]) : undefined;
}

function cancelled(modelId: string) {
  return new ModelDownloadError('cancelled', `the download of "${modelId}" was cancelled; choosing it again resumes where it stopped.`);
}

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause as (Error & { code?: string }) | undefined;
  return cause ? `${e.message}: ${cause.code ?? cause.message}` : e.message;
}
