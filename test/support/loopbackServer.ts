import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP server on 127.0.0.1 and a free port, for test doubles at the edge of the system (an LLM endpoint).
 * `stop()` also cuts open connections, so a stalled stream never keeps a test alive.
 */
export class LoopbackServer {
  port = 0;
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();

  constructor(handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void) {
    this.server = http.createServer((req, res) => void handler(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}
