// Server-sent events: each AppEvent of the core as one `data:` line of JSON, with a comment every 15 s so that
// proxies and the browser keep an idle stream open.
import type { ServerResponse } from 'node:http';
import type { AppEvent, CairnApi } from '../contract/appApi.js';

const HEARTBEAT_MS = 15_000;

export function streamEvents(api: CairnApi, response: ServerResponse, headers: Record<string, string>): void {
  response.writeHead(200, { ...headers, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  // The browser waits this long before reconnecting after the stream drops.
  response.write('retry: 2000\n: connected\n\n');
  const send = (event: AppEvent) => {
    if (!response.writableEnded) response.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  const unsubscribe = api.subscribe(send);
  const heartbeat = setInterval(() => response.write(': ping\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const stop = () => {
    clearInterval(heartbeat);
    unsubscribe();
  };
  response.on('close', stop);
  response.on('error', stop);
}
