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

/** Why a request was refused: the Host, the Origin, no token at all, or a token that is not this run's. */
export type RefusalKind = 'host' | 'origin' | 'no-token' | 'wrong-token';

export type GuardVerdict = { ok: true } | { ok: false; reason: string; kind: RefusalKind };

/**
 * The name of the session cookie of the server on `port`. Cookies do not keep ports apart, so the port is in the
 * name: two Cairn servers on one machine do not overwrite each other's cookie.
 */
export function sessionCookieName(port: number): string {
  return `cairn_session_${port}`;
}

/** The value of cookie `name` in the request's Cookie header, or null. */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | null {
  const header = headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

export class RequestGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;
  private readonly token: Buffer;
  readonly cookieName: string;

  constructor(port: number, token: string) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.origins = new Set([...this.hosts].map((host) => `http://${host}`));
    this.token = Buffer.from(token);
    this.cookieName = sessionCookieName(port);
  }

  check({ method, headers, queryToken }: GuardInput): GuardVerdict {
    const host = headers.host?.toLowerCase();
    if (!host || !this.hosts.has(host)) return { ok: false, reason: 'unexpected Host header', kind: 'host' };
    // Browsers send Origin on cross-origin requests and on every POST; when present it must be ours.
    const origin = headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) return { ok: false, reason: 'foreign Origin', kind: 'origin' };
    const headerToken = headers[TOKEN_HEADER];
    if (typeof headerToken === 'string') return this.verdict([headerToken]);
    // Api calls (POST) need the header. The query token is for what a page cannot put a header on: the first page
    // load, its assets and the event stream; the session cookie (HttpOnly, SameSite=Strict, set by that first page
    // load) lets the same reads through after a reload or from a bookmark.
    if (method !== 'GET' && method !== 'HEAD') return this.verdict([]);
    return this.verdict([queryToken, this.cookieToken(headers)]);
  }

  /** Whether the request carries this run's token in its session cookie. */
  hasSessionCookie(headers: IncomingHttpHeaders): boolean {
    const token = this.cookieToken(headers);
    return token !== null && this.tokenMatches(token);
  }

  /** Whether `candidate` is this run's token. */
  tokenMatches(candidate: string): boolean {
    const given = Buffer.from(candidate);
    return given.length === this.token.length && timingSafeEqual(given, this.token);
  }

  private cookieToken(headers: IncomingHttpHeaders): string | null {
    return readCookie(headers, this.cookieName);
  }

  private verdict(candidates: Array<string | null>): GuardVerdict {
    const given = candidates.filter((c): c is string => !!c);
    if (given.length === 0) return { ok: false, reason: 'missing or wrong token', kind: 'no-token' };
    if (!given.some((c) => this.tokenMatches(c))) return { ok: false, reason: 'missing or wrong token', kind: 'wrong-token' };
    return { ok: true };
  }
}
