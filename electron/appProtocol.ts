// The window loads the UI from cairn://app/, a private scheme served from renderer/dist with the same strict CSP as
// browser mode (Electron's checklist: no file:// pages, a CSP on every page). Nothing else is ever loaded.
import { protocol } from 'electron';
import { readStaticFile, SECURITY_HEADERS } from '../core/app/index.js';

export const APP_SCHEME = 'cairn';
export const APP_ORIGIN = `${APP_SCHEME}://app`;
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]);
}

export function serveAppScheme(distDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const file = url.host === 'app' && request.method === 'GET' ? await readStaticFile(distDir, url.pathname, null) : null;
    if (!file) return new Response('not found', { status: 404, headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/plain' } });
    return new Response(new Uint8Array(file.body), { status: 200, headers: { ...SECURITY_HEADERS, 'Content-Type': file.contentType } });
  });
}
