// The browser-mode server: the built renderer plus the CairnApi over HTTP, on 127.0.0.1 only, behind a per-run token.
//   GET  /?token=…            the app (index.html, with the token added to its asset URLs); sets the session cookie
//   GET  /                    with the session cookie: redirects to /?token=… (a reload or a bookmark); without it,
//                             or with an earlier run's token: a small page saying how to open the app (403)
//   GET  /assets/…?token=…    the app's scripts and styles
//   POST /api/<method>        a CairnApi call (header X-Cairn-Token, JSON array of arguments)
//   GET  /api/events?token=…  the core's AppEvents as server-sent events
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import type { CairnApi } from '../contract/appApi.js';
import { handleApiCall, sendJson } from './apiRoutes.js';
import { streamEvents } from './eventStream.js';
import { RequestGuard, type RefusalKind } from './requestGuard.js';
import { SECURITY_HEADERS } from './securityHeaders.js';
import { sessionPage } from './sessionPage.js';
import { readStaticFile } from './staticFiles.js';

export const LOOPBACK = '127.0.0.1';

export interface HttpServerOptions {
  api: CairnApi;
  /** The built renderer (renderer/dist). */
  staticDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** When `port` is in use, try up to this many ports after it (default 0: fail with PortInUseError). */
  portAttempts?: number;
  /** A fixed token (tests); by default a random one per run. */
  token?: string;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  /** The port asked for, when it was in use and `port` is the next free one. */
  portInUse?: number;
  token: string;
  /** The address the socket is bound to (always 127.0.0.1). */
  address: string;
  close(): Promise<void>;
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const staticDir = path.resolve(options.staticDir);
  let guard: RequestGuard | undefined;
  const server = createServer((request, response) => {
    void route(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: error instanceof Error ? error.message : String(error) }, SECURITY_HEADERS);
      else response.destroy();
    });
  });

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://placeholder');
    const method = request.method ?? 'GET';
    const queryToken = url.searchParams.get('token');
    const verdict = guard!.check({ method, headers: request.headers, queryToken });
    const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
    const isPage = !isApi && !url.pathname.startsWith('/assets/') && (method === 'GET' || method === 'HEAD');
    if (!verdict.ok) return isPage ? refusePage(response, verdict.kind, method) : forbid(response, verdict.reason);

    if (isPage && (url.pathname === '/' || url.pathname === '/index.html')) {
      // Let in by the session cookie (a reload, a bookmark, a new tab): the page takes its token from its URL.
      if (!queryToken || !guard!.tokenMatches(queryToken)) return redirect(response, `/?token=${encodeURIComponent(token)}`);
      // Let in by the printed URL: remember the session in this browser, for the reloads and bookmarks above.
      response.setHeader('Set-Cookie', `${guard!.cookieName}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`);
    }

    if (url.pathname === '/api/events') {
      if (method !== 'GET') return notAllowed(response, 'GET');
      return streamEvents(options.api, response, SECURITY_HEADERS);
    }
    if (url.pathname.startsWith('/api/')) {
      if (method !== 'POST') return notAllowed(response, 'POST');
      return handleApiCall(options.api, url.pathname.slice('/api/'.length), request, response, SECURITY_HEADERS);
    }
    if (method !== 'GET' && method !== 'HEAD') return notAllowed(response, 'GET, HEAD');
    const file = await readStaticFile(staticDir, url.pathname, token);
    if (!file) {
      response.writeHead(404, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
      return void response.end('not found');
    }
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': file.contentType, 'Content-Length': file.body.length });
    response.end(method === 'HEAD' ? undefined : file.body);
  }

  // Long-lived SSE streams must not keep close() waiting.
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const wanted = options.port ?? 0;
  const attempts = wanted === 0 ? 0 : Math.max(0, Math.min(options.portAttempts ?? 0, 65535 - wanted));
  for (let attempt = 0; ; attempt++) {
    try {
      await listen(server, wanted + attempt);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && attempt < attempts) continue;
      if (code === 'EADDRINUSE') throw new PortInUseError(wanted, attempts);
      if (code === 'EACCES') throw new Error(`not allowed to listen on port ${wanted + attempt} (ports below 1024 need root): choose another with --port`);
      throw error;
    }
  }
  const address = server.address() as AddressInfo;
  guard = new RequestGuard(address.port, token);
  return {
    url: `http://${LOOPBACK}:${address.port}/?token=${encodeURIComponent(token)}`,
    port: address.port,
    ...(address.port !== wanted && wanted !== 0 ? { portInUse: wanted } : {}),
    token,
    address: address.address,
    close: () => closeServer(server, sockets),
  };
}

/** The port (and the `attempts` after it) is taken: one line, not a raw EADDRINUSE. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    attempts: number,
  ) {
    super(
      attempts > 0
        ? `ports ${port} to ${port + attempts} on 127.0.0.1 are all in use: choose another with --port, or --port 0 for any free port`
        : `port ${port} on 127.0.0.1 is in use (another Cairn, or another program): choose another with --port, or --port 0 for any free port`,
    );
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      server.off('listening', listening);
      reject(error);
    };
    const listening = () => {
      server.off('error', failed);
      resolve();
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen(port, LOOPBACK);
  });
}

/** A refused page load gets a page that says how to open the app (never raw JSON in the browser). */
function refusePage(response: ServerResponse, kind: RefusalKind, method: string): void {
  const port = Number(response.req.socket.localPort);
  const body = Buffer.from(sessionPage(kind, port));
  response.writeHead(403, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
  response.end(method === 'HEAD' ? undefined : body);
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { ...SECURITY_HEADERS, Location: location, 'Content-Length': 0 });
  response.end();
}

function forbid(response: ServerResponse, reason: string): void {
  sendJson(response, 403, { error: `forbidden: ${reason}` }, SECURITY_HEADERS);
}

function notAllowed(response: ServerResponse, allow: string): void {
  response.setHeader('Allow', allow);
  sendJson(response, 405, { error: 'method not allowed' }, SECURITY_HEADERS);
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    for (const socket of sockets) socket.destroy();
  });
}
