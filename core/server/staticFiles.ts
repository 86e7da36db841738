// Serves the built renderer (renderer/dist) to the browser. The page's own asset URLs get the token appended,
// because a <script src> cannot carry a header and every request to the server must carry the token.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

/**
 * The file under `root` that `urlPath` names ("/" is index.html), or null when there is none or it would leave `root`.
 * `token`, when given, is added to the asset URLs of HTML pages (browser mode; the desktop app has none).
 */
export async function readStaticFile(root: string, urlPath: string, token: string | null): Promise<StaticFile | null> {
  let relative: string;
  try {
    relative = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (relative === '/' || relative === '') relative = '/index.html';
  if (relative.includes('\0')) return null;
  const file = path.resolve(root, `.${path.posix.normalize(relative)}`);
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  try {
    if (!(await stat(file)).isFile()) return null;
    const body = await readFile(file);
    const contentType = contentTypeOf(file);
    if (token && path.extname(file) === '.html') return { body: Buffer.from(withTokenInAssetUrls(body.toString('utf8'), token)), contentType };
    return { body, contentType };
  } catch {
    return null;
  }
}

/** Appends ?token=… to the page's own root-relative src/href attributes (Vite writes them as "/assets/…"). */
export function withTokenInAssetUrls(html: string, token: string): string {
  return html.replace(/\b(src|href)="(\/[^"?#]*)"/g, (_all, attribute: string, url: string) => `${attribute}="${url}?token=${encodeURIComponent(token)}"`);
}
