// The main-process side of the renderer's calls: every call passes the shared validation (core/contract/validation,
// the same gate as the HTTP server) before it reaches the core; openInEditor is answered here, where the OS shell is.
import type { CairnApi } from '../core/contract/appApi.js';
import { validateApiCall } from '../core/app/index.js';
import type { IpcReply } from './ipcChannels.js';

export interface DispatcherOptions {
  /** Opens a vault-relative note in the OS default app (validated path). */
  openInEditor(notePath: string): Promise<void>;
}

export type IpcDispatcher = (method: unknown, args: unknown) => Promise<IpcReply>;

export function createIpcDispatcher(api: CairnApi, options: DispatcherOptions): IpcDispatcher {
  return async (method, args) => {
    try {
      const call = validateApiCall(method, args);
      if (call.method === 'openInEditor') {
        await options.openInEditor(call.args[0]);
        return { ok: true, result: null };
      }
      const fn = api[call.method] as (...a: unknown[]) => Promise<unknown>;
      return { ok: true, result: (await fn.apply(api, call.args)) ?? null };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
}
