// What the UI talks to: the CairnApi, plus chooseFolder() in the desktop app (a native folder dialog).
// Types only from the core: the renderer never imports core runtime code.
import type { AppEvent, CairnApi } from '../../../core/contract/appApi.ts';

export interface DesktopApi extends CairnApi {
  /** Opens the OS folder picker; null when cancelled. */
  chooseFolder(): Promise<string | null>;
}

/** A UI command the desktop shell sends over the event channel (menu accelerators), next to the core's events. */
export type ShellCommand = { type: 'focus-search' };

export type UiEvent = AppEvent | ShellCommand;

declare global {
  interface Window {
    /** Set by the Electron preload; absent in browser mode. */
    cairn?: DesktopApi;
  }
}
