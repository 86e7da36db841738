// One gate for every call that arrives from a UI, over HTTP (browser mode) or Electron IPC: the method must be
// a CairnApi method and every argument must have the right shape. Note paths must be vault-relative
// ("Folder/Note.md"): no absolute paths, no "..", no backslashes, nothing that could step outside the vault.
// The host supplies what differs between machines (what an absolute path looks like) and config.toml's options,
// so the rules stay here, free of Node.
import type { CairnApi, ConfigOptionView } from './appApi.js';
import { SEARCH_FILTER_KEYS } from './filters.js';
import { isRemoteMethod, type RemoteMethod } from './remoteMethods.js';
import { SEARCH_MODES } from './search.js';

/** A call rejected before it reached the core: a bug or a hostile caller, never a user mistake to recover from. */
export class ApiArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiArgumentError';
  }
}

export type ValidCall = { [M in RemoteMethod]: { method: M; args: Parameters<CairnApi[M]> } }[RemoteMethod];

export interface ValidationHost {
  /** The host's own rule (node:path's isAbsolute): a vault is opened by its full path on this machine. */
  isAbsolute(path: string): boolean;
  /** config.toml's options by section and key: saveConfigValues may set only these, each to a value of its type. */
  options: Readonly<Record<string, Readonly<Record<string, Pick<ConfigOptionView, 'type'>>>>>;
}

/** Checks a remote call; returns it typed, or throws ApiArgumentError saying what is wrong. */
export type ApiCallValidator = (method: unknown, args: unknown) => ValidCall;

const MAX_PATH = 1024;
/** A folder path on this machine (a vault, or one being typed). */
const MAX_FOLDER_PATH = 4096;
const MAX_QUERY = 2000;
/** How far a search may page (the filters of a large vault keep thousands of notes). */
const MAX_OFFSET = 100_000;
const MAX_SEARCH_K = 200;
const MAX_QUESTION = 2000;
const MAX_ASK_K = 50;
const MAX_CONFIG_TEXT = 1024 * 1024;
const ANSWER_MODES = ['auto', 'extractive', 'llm'] as const;
/** The caller's id for one question: letters, digits, "-" and "_" (a UUID fits), so it is safe to echo in events. */
const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function apiCallValidator(host: ValidationHost): ApiCallValidator {
  return (method, args) => {
    if (!isRemoteMethod(method)) throw new ApiArgumentError(`unknown method ${JSON.stringify(String(method)).slice(0, 80)}`);
    if (!Array.isArray(args)) throw new ApiArgumentError(`${method}: arguments must be an array`);
    const arity = (n: number) => {
      if (args.length !== n) throw new ApiArgumentError(`${method}: expected ${n} argument${n === 1 ? '' : 's'}, got ${args.length}`);
    };
    switch (method) {
      case 'getState':
      case 'getConfig':
      case 'listTags':
      case 'listModels':
      case 'cancelModelDownload':
        arity(0);
        return { method, args: [] };
      case 'openVault':
        arity(1);
        return { method, args: [checkFolderPath(args[0], 'openVault: folder', host)] };
      case 'search':
        arity(1);
        return { method, args: [checkSearchRequest(args[0], host)] };
      case 'ask':
        arity(1);
        return { method, args: [checkAskRequest(args[0])] };
      case 'getNote':
        arity(1);
        return { method, args: [checkNotePath(args[0], 'getNote: path')] };
      case 'openInEditor':
        arity(1);
        return { method, args: [checkNotePath(args[0], 'openInEditor: path')] };
      case 'resolveLink':
        arity(2);
        return { method, args: [checkText(args[0], 'resolveLink: target', MAX_PATH), checkNotePath(args[1], 'resolveLink: fromPath')] };
      case 'saveConfigText':
        arity(1);
        return { method, args: [checkText(args[0], 'saveConfigText: text', MAX_CONFIG_TEXT, true)] };
      case 'saveConfigValues':
        arity(1);
        return { method, args: [checkConfigValues(args[0], host)] };
      case 'chooseModel':
        arity(1);
        return { method, args: [checkModelId(args[0])] };
      case 'completeFolder':
        arity(1);
        return { method, args: [checkText(args[0], 'completeFolder: prefix', MAX_FOLDER_PATH)] };
    }
  };
}

/** A bundled model's folder name or a hub id "owner/name": never a path that leaves the models folders. */
function checkModelId(value: unknown): string {
  const text = checkText(value, 'chooseModel: model id', 200);
  const segments = text.split('/');
  if (segments.length > 2 || !segments.every((s) => /^[\w.-]{1,96}$/.test(s) && s !== '.' && s !== '..')) {
    throw new ApiArgumentError('chooseModel: model id must be a bundled model name or a Hugging Face id like "Xenova/bge-small-en-v1.5"');
  }
  return text;
}

/**
 * A vault-relative note path as the index names notes: "Folder/Note.md". File names may hold tabs, newlines and
 * other control characters (only NUL and "/" are impossible), and the core serves only paths its index knows, so
 * only NUL is refused here: refusing more made such notes findable but impossible to open.
 */
export function checkNotePath(value: unknown, what = 'path'): string {
  if (typeof value !== 'string') throw new ApiArgumentError(`${what}: expected a string, got ${describe(value)}`);
  if (value.length === 0) throw new ApiArgumentError(`${what}: must not be empty`);
  if (value.length > MAX_PATH) throw new ApiArgumentError(`${what}: longer than ${MAX_PATH} characters`);
  if (value.includes('\u0000')) throw new ApiArgumentError(`${what}: contains a NUL character`);
  const text = value;
  if (text.includes('\\')) throw new ApiArgumentError(`${what}: use "/" between folders, not "\\"`);
  // Absolute on any system: "/x" (POSIX, and rooted on Windows) or a drive letter ("C:"); backslashes are refused above.
  if (text.startsWith('/') || /^[a-zA-Z]:/.test(text)) throw new ApiArgumentError(`${what}: must be relative to the vault, not absolute`);
  const segments = text.split('/');
  if (segments.some((s) => s === '..' || s === '.' || s === '')) throw new ApiArgumentError(`${what}: must not contain "..", "." or empty segments`);
  return text;
}

/** An absolute folder path on this machine (opening a vault). */
function checkFolderPath(value: unknown, what: string, host: ValidationHost): string {
  const text = checkText(value, what, MAX_FOLDER_PATH);
  if (!host.isAbsolute(text)) throw new ApiArgumentError(`${what}: give the full path of the folder (e.g. /home/me/notes)`);
  return text;
}

function checkText(value: unknown, what: string, max: number, multiline = false): string {
  if (typeof value !== 'string') throw new ApiArgumentError(`${what}: expected a string, got ${describe(value)}`);
  if (!multiline && value.length === 0) throw new ApiArgumentError(`${what}: must not be empty`);
  if (value.length > max) throw new ApiArgumentError(`${what}: longer than ${max} characters`);
  // Control characters (NUL above all) have no business in paths or queries; config text keeps tabs and newlines.
  const control = multiline ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/ : /[\u0000-\u001f]/;
  if (control.test(value)) throw new ApiArgumentError(`${what}: contains control characters`);
  return value;
}

function checkWholeNumber(value: unknown, what: string, min: number, max: number): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw new ApiArgumentError(`${what}: expected a whole number from ${min} to ${max}`);
  return value as number;
}

function checkChoice<T extends string>(value: unknown, what: string, choices: readonly T[]): T {
  if (!choices.includes(value as T)) throw new ApiArgumentError(`${what}: expected one of ${choices.join(', ')}`);
  return value as T;
}

function checkSearchRequest(value: unknown, host: ValidationHost): Parameters<CairnApi['search']>[0] {
  const request = checkPlainObject(value, 'search: request', ['query', 'k', 'offset', 'mode', 'filters', 'neighbours']);
  const query = request.query;
  if (typeof query !== 'string') throw new ApiArgumentError(`search: query: expected a string, got ${describe(query)}`);
  if (query.length > MAX_QUERY) throw new ApiArgumentError(`search: query: longer than ${MAX_QUERY} characters`);
  const out: Parameters<CairnApi['search']>[0] = { query };
  if (request.k !== undefined) out.k = checkWholeNumber(request.k, 'search: k', 1, MAX_SEARCH_K);
  if (request.offset !== undefined) out.offset = checkWholeNumber(request.offset, 'search: offset', 0, MAX_OFFSET);
  if (request.mode !== undefined) out.mode = checkChoice(request.mode, 'search: mode', SEARCH_MODES);
  if (request.neighbours !== undefined) {
    if (typeof request.neighbours !== 'boolean') throw new ApiArgumentError('search: neighbours: expected true or false');
    out.neighbours = request.neighbours;
  }
  if (request.filters !== undefined) {
    const filters = checkPlainObject(request.filters, 'search: filters', SEARCH_FILTER_KEYS);
    out.filters = {};
    const checkPrefix = (value: unknown, what: string) => {
      const prefix = checkText(value, what, MAX_PATH);
      if (prefix.split(/[\\/]/).includes('..') || host.isAbsolute(prefix)) throw new ApiArgumentError(`${what}: must be a folder inside the vault`);
      return prefix;
    };
    const checkList = (value: unknown, what: string, check: (item: unknown, what: string) => string) => {
      if (!Array.isArray(value) || value.length > 20) throw new ApiArgumentError(`${what}: expected a list of at most 20`);
      return value.map((item, i) => check(item, `${what}[${i}]`));
    };
    const checkTag = (value: unknown, what: string) => checkText(value, what, 200);
    if (filters.pathPrefix !== undefined) out.filters.pathPrefix = checkPrefix(filters.pathPrefix, 'search: filters.pathPrefix');
    if (filters.tags !== undefined) out.filters.tags = checkList(filters.tags, 'search: filters.tags', checkTag);
    if (filters.excludeTags !== undefined) out.filters.excludeTags = checkList(filters.excludeTags, 'search: filters.excludeTags', checkTag);
    if (filters.excludePaths !== undefined) out.filters.excludePaths = checkList(filters.excludePaths, 'search: filters.excludePaths', checkPrefix);
    for (const key of ['modifiedAfter', 'modifiedBefore'] as const) {
      const time = filters[key];
      if (time === undefined) continue;
      if (typeof time !== 'number' || !Number.isFinite(time)) throw new ApiArgumentError(`search: filters.${key}: expected a time in milliseconds`);
      out.filters[key] = time;
    }
  }
  return out;
}

function checkAskRequest(value: unknown): Parameters<CairnApi['ask']>[0] {
  const request = checkPlainObject(value, 'ask: request', ['question', 'k', 'mode', 'requestId']);
  // A question may be pasted over several lines; other control characters are refused.
  const question = checkText(request.question, 'ask: question', MAX_QUESTION, true);
  if (!question.trim()) throw new ApiArgumentError('ask: question: must not be empty');
  const requestId = request.requestId;
  if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId)) throw new ApiArgumentError('ask: requestId: expected 1 to 64 letters, digits, "-" or "_"');
  const out: Parameters<CairnApi['ask']>[0] = { question, requestId };
  if (request.k !== undefined) out.k = checkWholeNumber(request.k, 'ask: k', 1, MAX_ASK_K);
  if (request.mode !== undefined) out.mode = checkChoice(request.mode, 'ask: mode', ANSWER_MODES);
  return out;
}

/** `{ "chunking.max_chunk_chars": 1500, ... }`: known keys only, each value of its option's type. */
function checkConfigValues(value: unknown, host: ValidationHost): Record<string, unknown> {
  const values = checkPlainObject(value, 'saveConfigValues: values');
  const entries = Object.entries(values);
  if (entries.length === 0) throw new ApiArgumentError('saveConfigValues: nothing to save');
  if (entries.length > 200) throw new ApiArgumentError('saveConfigValues: too many values');
  const schema = host.options;
  for (const [dotted, option] of entries) {
    const [section, key, ...rest] = dotted.split('.');
    // Own properties only: "constructor" or "__proto__" must not pass for an option.
    const known = rest.length === 0 && key !== undefined && Object.hasOwn(schema, section) && Object.hasOwn(schema[section], key);
    if (!known) throw new ApiArgumentError(`saveConfigValues: unknown option "${dotted.slice(0, 80)}"`);
    const { type } = schema[section][key];
    if (!hasOptionType(type, option)) throw new ApiArgumentError(`saveConfigValues: ${dotted}: expected ${type}, got ${describe(option)}`);
  }
  return values;
}

function hasOptionType(type: ConfigOptionView['type'], value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string' && value.length <= 4096 && !/\u0000/.test(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string[]':
      return Array.isArray(value) && value.length <= 1000 && value.every((item) => typeof item === 'string' && item.length <= 4096);
  }
}

/** A plain JSON object (not an array, not a class instance), optionally with only the given keys. */
function checkPlainObject(value: unknown, what: string, allowed?: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiArgumentError(`${what}: expected an object, got ${describe(value)}`);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new ApiArgumentError(`${what}: expected a plain object`);
  if (allowed) {
    const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
    if (unknown.length) throw new ApiArgumentError(`${what}: unknown field ${JSON.stringify(unknown[0]).slice(0, 80)}`);
  }
  return value as Record<string, unknown>;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
