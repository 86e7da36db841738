// The CairnApi over HTTP, for browser mode (`cairn serve`): POST /api/<method> with the token in a header,
// events from one shared EventSource on /api/events.
import type { AppEvent, CairnApi } from '../../../core/contract/appApi.ts';
import { forwardRemoteMethods, type RemoteMethod } from '../../../core/contract/remoteMethods.ts';

const TOKEN_KEY = 'cairn-token';

/** The token from the first page load's URL, kept in sessionStorage so that a reload of a token-less URL still works. */
export function browserToken(): string | null {
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

// The remote methods are forwarded by forwardRemoteMethods() in the constructor.
export interface HttpCairnApi extends Omit<CairnApi, 'subscribe'> {}

export class HttpCairnApi implements CairnApi {
  private readonly listeners = new Set<(event: AppEvent) => void>();
  private source: EventSource | null = null;
  private lost = false;

  constructor(private readonly token: string) {
    Object.assign(this, forwardRemoteMethods((method, args) => this.call(method, args)));
  }

  private async call(method: RemoteMethod, args: unknown[]): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Cairn-Token': this.token },
        body: JSON.stringify(args),
      });
    } catch {
      throw new Error('Cannot reach the Cairn server. Is `cairn serve` still running?');
    }
    const body = (await response.json().catch(() => ({}))) as { result?: unknown; error?: string };
    if (!response.ok) throw new Error(body.error ?? `${method} failed (HTTP ${response.status})`);
    return body.result;
  }


  subscribe(listener: (event: AppEvent) => void): () => void {
    this.listeners.add(listener);
    this.source ??= this.connect();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.source?.close();
        this.source = null;
      }
    };
  }

  private connect(): EventSource {
    const source = new EventSource(`/api/events?token=${encodeURIComponent(this.token)}`);
    source.onmessage = (message) => {
      let event: AppEvent;
      try {
        event = JSON.parse(message.data as string) as AppEvent;
      } catch {
        return;
      }
      this.dispatch(event);
    };
    source.onerror = () => {
      // EventSource retries by itself; say so once, and resynchronise when it is back.
      if (!this.lost) this.dispatch({ type: 'error', message: 'Lost the connection to the Cairn server; retrying…' });
      this.lost = true;
    };
    // Events sent before the stream opened are lost to us: on every (re)connection, take the current state.
    source.onopen = () => {
      this.lost = false;
      void this.getState().then((state) => this.dispatch({ type: 'state', state }), () => {});
    };
    return source;
  }

  private dispatch(event: AppEvent) {
    for (const listener of this.listeners) listener(event);
  }
}
