// The CairnApi methods a UI may call remotely: the one list the HTTP routes, the Electron IPC dispatcher, the preload
// and the renderer's API clients share. `subscribe` is not among them: events travel on their own channel (SSE, or
// an IPC event channel). Pure data, so the preload and the renderer can bundle it.
import type { CairnApi } from './appApi.js';

export type RemoteMethod = Exclude<keyof CairnApi, 'subscribe'>;

export const REMOTE_METHODS = [
  'getState',
  'openVault',
  'search',
  'ask',
  'getNote',
  'resolveLink',
  'getConfig',
  'saveConfigText',
  'saveConfigValues',
  'openInEditor',
  'listTags',
  'completeFolder',
  'listModels',
  'chooseModel',
  'cancelModelDownload',
] as const satisfies readonly RemoteMethod[];

// Compile-time proof that the list names every remote method: a method added to CairnApi breaks the build here.
type Missing = Exclude<RemoteMethod, (typeof REMOTE_METHODS)[number]>;
const everyMethodListed: [Missing] extends [never] ? true : Missing = true;
void everyMethodListed;

/** The remote part of a CairnApi for one transport: every method forwarded to `call(method, args)`. */
export function forwardRemoteMethods(call: (method: RemoteMethod, args: unknown[]) => Promise<unknown>): Omit<CairnApi, 'subscribe'> {
  return Object.fromEntries(REMOTE_METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)])) as Omit<CairnApi, 'subscribe'>;
}

export function isRemoteMethod(name: unknown): name is RemoteMethod {
  return typeof name === 'string' && (REMOTE_METHODS as readonly string[]).includes(name);
}
