// The IPC channels between the renderer (through the preload) and the main process. Nothing else crosses.
export const CALL_CHANNEL = 'cairn:call';
export const EVENT_CHANNEL = 'cairn:event';
export const CHOOSE_FOLDER_CHANNEL = 'cairn:choose-folder';

/** How the main process answers a call: errors travel as data, so the renderer sees the core's own message. */
export type IpcReply = { ok: true; result: unknown } | { ok: false; error: string };
