// The core, in Electron's utility process: the CairnService (vault, watcher, indexing, config hot reload) runs
// here, off the main process, so that neither the window nor the menus ever wait for it. (The embedding model
// runs in a further child process of its own.) The main process forwards the renderer's validated calls here.
import type { AppEvent } from '../core/contract/appApi.js';
import { startApp, type StartedApp } from '../core/app/index.js';
import type { CoreHostOptions, FromCore, ToCore } from './coreProtocol.js';

const options = JSON.parse(process.env.CAIRN_CORE_OPTIONS ?? '{}') as CoreHostOptions;
const port = process.parentPort;
const send = (message: FromCore) => port.postMessage(message);
const forward = (event: AppEvent) => send({ kind: 'event', event });

function startCore(vault: string | undefined): StartedApp {
  const core = startApp(vault ?? null, { configFile: options.configFile, vault, dataDir: options.dataDir, stateFile: options.stateFile });
  core.api.subscribe(forward);
  return core;
}

let core = startCore(options.vault);
// A vault that cannot be opened (moved, deleted, unreadable) must not lock the user out: start without it, so the
// window offers the vault picker; the reason has already been sent as an error event.
core.api.ready.catch(() => {
  if (options.vault) core = startCore(undefined);
});

port.on('message', ({ data }: { data: ToCore }) => {
  if (data.kind === 'shutdown') {
    void (async () => {
      await core.close().catch(() => {});
      send({ kind: 'closed' });
      process.exit(0);
    })();
    return;
  }
  const { api } = core;
  const fn = api[data.method] as (...args: unknown[]) => Promise<unknown>;
  fn.apply(api, data.args).then(
    (result) => send({ kind: 'reply', id: data.id, ok: true, result: result ?? null }),
    (error: unknown) => send({ kind: 'reply', id: data.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
