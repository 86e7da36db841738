// POST /api/<method> with a JSON array of arguments → 200 { result } | 400 (bad arguments) / 422 (refused by the core) / 500 { error }.
// Every call passes the shared validation first; openInEditor is refused (there is no desktop here to open it on).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CairnApi } from '../contract/appApi.js';
import { CairnError } from '../contract/errors.js';
import { ApiArgumentError, type ValidCall } from '../contract/validation.js';
import { validateApiCall } from './hostValidation.js';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function handleApiCall(api: CairnApi, method: string, request: IncomingMessage, response: ServerResponse, headers: Record<string, string>): Promise<void> {
  try {
    const contentType = request.headers['content-type'] ?? '';
    // Only JSON: an HTML form on another site cannot send it without a CORS preflight, which this server never grants.
    if (!/^application\/json\s*(;|$)/i.test(contentType)) throw new HttpError(415, 'expected Content-Type: application/json');
    const body = await readBody(request);
    let args: unknown;
    try {
      args = body.length === 0 ? [] : JSON.parse(body);
    } catch {
      throw new ApiArgumentError('the body is not valid JSON');
    }
    const call = validateApiCall(method, args);
    const result = await invoke(api, call);
    sendJson(response, 200, { result: result ?? null }, headers);
  } catch (error) {
    if (error instanceof HttpError) sendJson(response, error.status, { error: error.message }, headers);
    else if (error instanceof ApiArgumentError) sendJson(response, 400, { error: error.message, kind: 'invalid-argument' }, headers);
    // A request the core refuses for what it asks (a vault path that is not a folder): the asker's to fix, not a server fault.
    else if (error instanceof CairnError) sendJson(response, 422, { error: error.message, kind: 'refused' }, headers);
    else sendJson(response, 500, { error: error instanceof Error ? error.message : String(error) }, headers);
  }
}

async function invoke(api: CairnApi, call: ValidCall): Promise<unknown> {
  if (call.method === 'openInEditor') {
    throw new HttpError(400, `opening a note in an editor works only in the desktop app; the note is ${call.args[0]} in the vault folder`);
  }
  const fn = api[call.method] as (...args: unknown[]) => Promise<unknown>;
  return fn.apply(api, call.args);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
      request.resume(); // discard it, so that the 413 can still be answered
      return reject(new HttpError(413, 'request body too large'));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        chunks.length = 0;
        request.removeAllListeners('data');
        request.resume();
        reject(new HttpError(413, 'request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string>): void {
  const body = JSON.stringify(value);
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
