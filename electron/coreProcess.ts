// The main process's handle on the core: a CairnApi whose calls travel to the utility process (coreHost) and whose
// events come back from it. If the core process dies it is restarted on the last vault (a few times at most), and
// the window is told.
import { utilityProcess, type UtilityProcess } from 'electron';
import type { AppEvent, CairnApi } from '../core/contract/appApi.js';
import { forwardRemoteMethods, type RemoteMethod } from '../core/contract/remoteMethods.js';
import type { CoreHostOptions, FromCore, ToCore } from './coreProtocol.js';

const MAX_RESTARTS = 3;
const SHUTDOWN_TIMEOUT_MS = 5000;

// The remote methods are forwarded by forwardRemoteMethods() in the constructor.
export interface CoreProcess extends Omit<CairnApi, 'subscribe'> {}

export class CoreProcess implements CairnApi {
  private child!: UtilityProcess;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private readonly listeners = new Set<(event: AppEvent) => void>();
  private restarts = 0;
  private closing = false;
  private lastVault: string | undefined;

  constructor(
    private readonly entry: string,
    private readonly options: CoreHostOptions,
  ) {
    this.lastVault = options.vault;
    Object.assign(this, forwardRemoteMethods((method, args) => this.call(method, args)));
    this.spawn();
  }

  private spawn(): void {
    const options: CoreHostOptions = { ...this.options, vault: this.lastVault };
    this.child = utilityProcess.fork(this.entry, [], {
      serviceName: 'Cairn core',
      stdio: 'inherit',
      env: { ...process.env, CAIRN_CORE_OPTIONS: JSON.stringify(options) },
    });
    this.child.on('message', (message: FromCore) => this.receive(message));
    this.child.once('exit', (code) => this.exited(code));
  }

  private receive(message: FromCore): void {
    if (message.kind === 'event') {
      if (message.event.type === 'state') this.lastVault = message.event.state.vault ?? this.lastVault;
      this.emit(message.event);
    } else if (message.kind === 'reply') {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (!waiter) return;
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(message.error));
    }
  }

  private exited(code: number): void {
    for (const waiter of this.pending.values()) waiter.reject(new Error('the core process stopped'));
    this.pending.clear();
    if (this.closing) return;
    if (this.restarts >= MAX_RESTARTS) {
      this.emit({ type: 'error', message: `The core process stopped (code ${code}) and was restarted ${MAX_RESTARTS} times; restart Cairn.` });
      return;
    }
    this.restarts++;
    this.emit({ type: 'error', message: `The core process stopped (code ${code}); restarting it.` });
    this.spawn();
  }

  private emit(event: AppEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private call(method: RemoteMethod, args: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.postMessage({ kind: 'call', id, method, args } satisfies ToCore);
    });
  }


  subscribe(listener: (event: AppEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Asks the core to close the vault cleanly (index saved, embedder stopped); kills it if it takes too long. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.postMessage({ kind: 'shutdown' } satisfies ToCore);
    const timer = setTimeout(() => this.child.kill(), SHUTDOWN_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
}
