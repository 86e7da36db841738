// What the preload exposes to the page as window.cairn: exactly the CairnApi (every call forwarded to the main
// process on one channel) plus chooseFolder(). Written against small stand-ins for Electron's ipcRenderer and
// contextBridge so that tests can check the surface without Electron.
import type { AppEvent, CairnApi } from '../core/contract/appApi.js';
import { forwardRemoteMethods, REMOTE_METHODS } from '../core/contract/remoteMethods.js';
import { CALL_CHANNEL, CHOOSE_FOLDER_CHANNEL, EVENT_CHANNEL, type IpcReply } from './ipcChannels.js';

export interface DesktopApi extends CairnApi {
  chooseFolder(): Promise<string | null>;
}

/** The part of Electron's ipcRenderer the preload uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export interface ContextBridgeLike {
  exposeInMainWorld(key: string, api: unknown): void;
}

/** Every name on window.cairn. */
export const PRELOAD_METHODS = [...REMOTE_METHODS, 'subscribe', 'chooseFolder'] as const;

export function createDesktopApi(ipc: IpcRendererLike): DesktopApi {
  const call = async (method: string, args: unknown[]) => {
    const reply = (await ipc.invoke(CALL_CHANNEL, method, args)) as IpcReply;
    if (!reply.ok) throw new Error(reply.error);
    return reply.result;
  };
  return {
    ...forwardRemoteMethods(call),
    subscribe(listener: (event: AppEvent) => void) {
      const handler = (_event: unknown, appEvent: unknown) => listener(appEvent as AppEvent);
      ipc.on(EVENT_CHANNEL, handler);
      return () => void ipc.removeListener(EVENT_CHANNEL, handler);
    },
    chooseFolder: async () => (await ipc.invoke(CHOOSE_FOLDER_CHANNEL)) as string | null,
  };
}

export function exposeDesktopApi(bridge: ContextBridgeLike, ipc: IpcRendererLike): void {
  bridge.exposeInMainWorld('cairn', createDesktopApi(ipc));
}
