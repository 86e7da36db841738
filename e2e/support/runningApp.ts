// The app as most e2e files drive it: the real `cairn serve` on a workspace plus a fresh Chromium page, started
// together in `before` and stopped together in `after` (browser, then server, then the workspace's files).
import type { Page } from 'playwright-core';
import { openBrowser, type BrowserSession } from './browser.ts';
import { startServe, type ServeProcess } from './cairnServe.ts';
import type { Workspace } from './workspace.ts';

export interface RunningApp {
  server: ServeProcess;
  browser: BrowserSession;
  page: Page;
}

export async function startApp(workspace: Workspace, serveOptions?: Parameters<typeof startServe>[1]): Promise<RunningApp> {
  const server = await startServe(workspace, serveOptions);
  // The caller has nothing to stop yet if the browser cannot start: stop the server here.
  const browser = await openBrowser().catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  return { server, browser, page: browser.page };
}

/** Stops whatever was started; any part is missing when `before` failed half-way. */
export async function stopApp({ browser, server, workspace }: { browser?: BrowserSession; server?: ServeProcess; workspace?: Workspace }): Promise<void> {
  await browser?.close();
  await server?.stop();
  await workspace?.remove();
}
