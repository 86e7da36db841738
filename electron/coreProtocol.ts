// Messages between the main process and the core's utility process.
import type { AppEvent } from '../core/contract/appApi.js';
import type { RemoteMethod } from '../core/contract/remoteMethods.js';

export interface CoreHostOptions {
  configFile?: string;
  vault?: string;
  /** Overrides the config's [index] data_dir. */
  dataDir?: string;
  stateFile?: string;
}

export type ToCore = { kind: 'call'; id: number; method: RemoteMethod; args: unknown[] } | { kind: 'shutdown' };

export type FromCore =
  | { kind: 'reply'; id: number; ok: true; result: unknown }
  | { kind: 'reply'; id: number; ok: false; error: string }
  | { kind: 'event'; event: AppEvent }
  | { kind: 'closed' };
