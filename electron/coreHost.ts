// The core, in Electron's utility process: the CairnService (vault, watcher, indexing, config hot reload) runs
// here, off the main process, so that neither the window nor the menus ever wait for it. (The embedding model
// runs in a further child process of its own.) The main process forwards the renderer's validated calls here.
import type { AppEvent, CairnApi } from '../core/appApi.js';
import { StartingApi } from '../core/server/startingApi.js';
import { CairnService } from '../core/app/index.js';
import type { CoreHostOptions, FromCore, ToCore } from './coreProtocol.js';

const options = JSON.parse(process.env.CAIRN_CORE_OPTIONS ?? '{}') as CoreHostOptions;
const port = process.parentPort;
const send = (message: FromCore) => port.postMessage(message);
const forward = (event: AppEvent) => send({ kind: 'event', event });

let service: CairnService | undefined;

function startCore(vault: string | undefined): StartingApi {
  const api = new StartingApi(vault ?? null, async (listener) => {
    service = await CairnService.start({ configFile: options.configFile, vault, dataDir: options.dataDir, stateFile: options.stateFile, listener });
    return service satisfies CairnApi;
  });
  api.subscribe(forward);
  return api;
}

let api = startCore(options.vault);
// A vault that cannot be opened (moved, deleted, unreadable) must not lock the user out: start without it, so the
// window offers the vault picker; the reason has already been sent as an error event.
api.ready.catch(() => {
  if (options.vault) api = startCore(undefined);
});

port.on('message', ({ data }: { data: ToCore }) => {
  if (data.kind === 'shutdown') {
    void (async () => {
      await service?.close().catch(() => {});
      send({ kind: 'closed' });
      process.exit(0);
    })();
    return;
  }
  const fn = api[data.method] as (...args: unknown[]) => Promise<unknown>;
  fn.apply(api, data.args).then(
    (result) => send({ kind: 'reply', id: data.id, ok: true, result: result ?? null }),
    (error: unknown) => send({ kind: 'reply', id: data.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
