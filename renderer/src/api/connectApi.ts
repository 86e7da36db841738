// Picks the api the UI runs on: the Electron preload's window.cairn, else HTTP to the server that served the page.
import type { CairnApi } from '../../../core/contract/appApi.ts';
import type { DesktopApi } from './desktopApi.ts';
import { browserToken, HttpCairnApi } from './httpApi.ts';

export type Connection = { kind: 'desktop'; api: DesktopApi } | { kind: 'browser'; api: CairnApi } | { kind: 'none'; reason: string };

export function connectApi(): Connection {
  if (window.cairn) return { kind: 'desktop', api: window.cairn };
  const token = browserToken();
  if (!token) return { kind: 'none', reason: 'This page needs the link that `cairn serve` printed (it carries an access token).' };
  return { kind: 'browser', api: new HttpCairnApi(token) };
}
