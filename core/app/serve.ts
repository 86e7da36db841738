// Browser mode (`cairn serve`): the app behind the HTTP server on 127.0.0.1, its recent vaults kept in the data root.
// The caller builds the UI and says where it is; the server is a transport over the CairnApi that this wires up.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { defaultDataRoot } from '../config/dataFolder.js';
import { startHttpServer, type RunningHttpServer } from '../server/httpServer.js';
import { startApp } from './startApp.js';

export interface ServeOptions {
  configFile?: string;
  /** Overrides `[vault] path`. */
  vault?: string;
  /** Overrides `[index] data_dir`. */
  dataDir?: string;
  /** The vault the UI shows as opening while the core starts. */
  vaultShown: string | null;
  /** The built renderer. */
  staticDir: string;
  port: number;
  /** When `port` is in use, how many ports after it to try (0: fail with PortInUseError). */
  portAttempts: number;
}

export interface ServingApp {
  server: RunningHttpServer;
  /** Rejects with why the core could not start. */
  ready: Promise<unknown>;
  /** Stops the server, then closes the core. */
  close(): Promise<void>;
}

export async function serveApp(options: ServeOptions): Promise<ServingApp> {
  const dataRoot = options.dataDir ? path.resolve(options.dataDir) : defaultDataRoot();
  await mkdir(dataRoot, { recursive: true });
  const { configFile, vault, dataDir } = options;
  const app = startApp(options.vaultShown, { configFile, vault, dataDir, stateFile: path.join(dataRoot, 'recent-vaults.json') });
  const server = await startHttpServer({ api: app.api, staticDir: options.staticDir, port: options.port, portAttempts: options.portAttempts });
  return {
    server,
    ready: app.api.ready,
    close: async () => {
      await server.close();
      await app.close();
    },
  };
}
