// Starting the app for a UI (the desktop's core process, `cairn serve`): a CairnApi that answers at once, showing
// the vault as opening, while the service starts and indexes behind it.
import { CairnService } from './cairnApp.js';
import type { ServiceOptions } from './appContext.js';
import { StartingApi } from './startingApi.js';

export interface StartedApp {
  /** Answers from the first moment; `api.ready` rejects with why the service could not start. */
  api: StartingApi;
  /** Closes the service (index saved, embedder stopped) once it has started. */
  close(): Promise<void>;
}

/** `vaultShown` is the vault the UI shows as opening meanwhile (null: none). */
export function startApp(vaultShown: string | null, options: Omit<ServiceOptions, 'listener'>): StartedApp {
  let service: CairnService | undefined;
  const api = new StartingApi(vaultShown, async (listener) => {
    service = await CairnService.start({ ...options, listener });
    return service;
  });
  return { api, close: async () => service?.close() };
}
