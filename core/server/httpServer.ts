// The browser-mode server: the built renderer plus the CairnApi over HTTP, on 127.0.0.1 only, behind a per-run token.
//   GET  /?token=…            the app (index.html, with the token added to its asset URLs)
//   GET  /assets/…?token=…    the app's scripts and styles
//   POST /api/<method>        a CairnApi call (header X-Cairn-Token, JSON array of arguments)
//   GET  /api/events?token=…  the core's AppEvents as server-sent events
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import type { CairnApi } from '../appApi.js';
import { handleApiCall, sendJson } from './apiRoutes.js';
import { streamEvents } from './eventStream.js';
import { RequestGuard } from './requestGuard.js';
import { SECURITY_HEADERS } from './securityHeaders.js';
import { readStaticFile } from './staticFiles.js';

export const LOOPBACK = '127.0.0.1';

export interface HttpServerOptions {
  api: CairnApi;
  /** The built renderer (renderer/dist). */
  staticDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** A fixed token (tests); by default a random one per run. */
  token?: string;
}

export interface RunningHttpServer {
  url: string;
  port: number;
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
    const verdict = guard!.check({ method, headers: request.headers, queryToken: url.searchParams.get('token') });
    if (!verdict.ok) return forbid(response, verdict.reason);

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

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  guard = new RequestGuard(address.port, token);
  return {
    url: `http://${LOOPBACK}:${address.port}/?token=${encodeURIComponent(token)}`,
    port: address.port,
    token,
    address: address.address,
    close: () => closeServer(server, sockets),
  };
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
