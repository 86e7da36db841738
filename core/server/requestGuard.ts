// Who may talk to the browser-mode server: only pages it served itself, on this machine. Checks, in order:
// the Host header (a DNS-rebinding page reaches 127.0.0.1 under a foreign name), the Origin (another site's page
// posting to us), and the per-run token (any other local program or page that guesses the port).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const TOKEN_HEADER = 'x-cairn-token';

export interface GuardInput {
  method: string;
  headers: IncomingHttpHeaders;
  /** The token from the URL's query, if any. */
  queryToken: string | null;
}

export type GuardVerdict = { ok: true } | { ok: false; reason: string };

export class RequestGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;
  private readonly token: Buffer;

  constructor(port: number, token: string) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.origins = new Set([...this.hosts].map((host) => `http://${host}`));
    this.token = Buffer.from(token);
  }

  check({ method, headers, queryToken }: GuardInput): GuardVerdict {
    const host = headers.host?.toLowerCase();
    if (!host || !this.hosts.has(host)) return { ok: false, reason: 'unexpected Host header' };
    // Browsers send Origin on cross-origin requests and on every POST; when present it must be ours.
    const origin = headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) return { ok: false, reason: 'foreign Origin' };
    const headerToken = headers[TOKEN_HEADER];
    // The query token is for what a page cannot put a header on: the first page load, its assets and the event stream.
    const token = typeof headerToken === 'string' ? headerToken : method === 'GET' || method === 'HEAD' ? queryToken : null;
    if (!token || !this.tokenMatches(token)) return { ok: false, reason: 'missing or wrong token' };
    return { ok: true };
  }

  private tokenMatches(candidate: string): boolean {
    const given = Buffer.from(candidate);
    return given.length === this.token.length && timingSafeEqual(given, this.token);
  }
}
