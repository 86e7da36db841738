// Debian's Chromium through playwright-core (Playwright's own browser download does not work here), with a fresh
// profile per run.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO } from './workspace.ts';

export const CHROMIUM = process.env.CAIRN_E2E_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = path.join(REPO, 'e2e', 'artifacts');

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  pageErrors: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<BrowserSession> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium`);
  const profile = await mkdtemp(path.join(tmpdir(), 'cairn-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1360, height: 860 }, colorScheme: 'light' });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  // The console names only the status of a server fault; the request and the error it answered with say what broke.
  page.on('response', (response) => {
    if (response.status() < 500) return;
    void response.text().then(
      (body) => pageErrors.push(`HTTP ${response.status()} ${new URL(response.url()).pathname}: ${body.slice(0, 500)}`),
      () => pageErrors.push(`HTTP ${response.status()} ${new URL(response.url()).pathname}`),
    );
  });
  return {
    context,
    page,
    pageErrors,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}
