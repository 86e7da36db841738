// Cairn's desktop shell (Electron main process). It owns the window, the menu, the native folder dialog and the OS
// shell; the core runs in a utility process (coreHost) and the UI talks to it only through validated IPC.
// Security per Electron's checklist: context isolation, sandbox, no Node in the page, a strict CSP on a private
// scheme, no navigation, no new windows, no permissions, external links only to the OS browser.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { app, BrowserWindow, dialog, ipcMain, Menu, screen, session, shell, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { CairnApi } from '../core/contract/appApi.js';
import { noteFileToOpen } from '../core/app/index.js';
import { buildAppMenu } from './appMenu.js';
import { APP_ORIGIN, APP_URL, registerAppScheme, serveAppScheme } from './appProtocol.js';
import { CoreProcess } from './coreProcess.js';
import { ensureDesktopConfig } from './desktopConfig.js';
import { isAllowedExternalUrl } from './externalLinks.js';
import { CALL_CHANNEL, CHOOSE_FOLDER_CHANNEL, EVENT_CHANNEL } from './ipcChannels.js';
import { createIpcDispatcher } from './ipcDispatcher.js';
import { loadWindowState, onScreen, saveWindowState } from './windowState.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const RENDERER_DIST = here('../../renderer/dist');
const PRELOAD = here('./preload.cjs');
const CORE_HOST = here('./coreHost.js');

const { values: args } = parseArgs({
  args: process.argv.slice(app.isPackaged ? 1 : 2),
  options: { vault: { type: 'string' }, 'default-vault': { type: 'string' }, config: { type: 'string' }, 'data-dir': { type: 'string' }, dev: { type: 'boolean' } },
  strict: false,
});
const isDev = args.dev === true || process.env.CAIRN_DEV === '1';

app.setName('Cairn');
app.setPath('userData', path.join(app.getPath('appData'), 'Cairn'));
registerAppScheme();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let window: BrowserWindow | null = null;
  let core: CoreProcess | null = null;

  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  app.on('web-contents-created', (_event, contents) => lockDown(contents));

  app.whenReady().then(async () => {
    const userData = app.getPath('userData');
    const stateFile = path.join(userData, 'recent-vaults.json');
    const configFile = typeof args.config === 'string' ? path.resolve(args.config) : await ensureDesktopConfig(userData);
    const dataDir = typeof args['data-dir'] === 'string' ? path.resolve(args['data-dir']) : undefined;
    core = new CoreProcess(CORE_HOST, { configFile, dataDir, stateFile, vault: await startVault(stateFile) });

    session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    session.defaultSession.setPermissionCheckHandler(() => false);
    serveAppScheme(RENDERER_DIST);
    registerIpc(core);

    window = createWindow(path.join(userData, 'window-state.json'));
    const send = (event: unknown) => window && !window.isDestroyed() && window.webContents.send(EVENT_CHANNEL, event);
    core.subscribe(send);
    Menu.setApplicationMenu(
      buildAppMenu({
        isDev,
        focusSearch: () => send({ type: 'focus-search' }),
        openVault: async () => {
          const folder = await chooseFolder(window);
          if (folder) await core!.openVault(folder).catch((e: Error) => send({ type: 'error', message: e.message }));
        },
      }),
    );
    window.on('closed', () => (window = null));
  });

  app.on('window-all-closed', () => app.quit());

  // Let the core save its index and stop its embedder before the app exits.
  let quitting = false;
  app.on('will-quit', (event) => {
    if (quitting || !core) return;
    quitting = true;
    event.preventDefault();
    void core.close().finally(() => app.quit());
  });

  /** The vault to open: --vault, else the last one used, else --default-vault (the sample vault in development). */
  async function startVault(stateFile: string): Promise<string | undefined> {
    if (typeof args.vault === 'string') return path.resolve(args.vault);
    try {
      const recent = (JSON.parse(await readFile(stateFile, 'utf8')) as { recentVaults?: unknown }).recentVaults;
      const last = Array.isArray(recent) ? recent.find((v): v is string => typeof v === 'string' && existsSync(v)) : undefined;
      if (last) return last;
    } catch {
      // First run.
    }
    return typeof args['default-vault'] === 'string' ? path.resolve(args['default-vault']) : undefined;
  }

  function createWindow(stateFile: string): BrowserWindow {
    const saved = loadWindowState(stateFile);
    const bounds = onScreen(saved.bounds, screen.getAllDisplays().map((d) => d.workArea));
    const win = new BrowserWindow({
      ...(bounds ?? { width: 1280, height: 820 }),
      minWidth: 720,
      minHeight: 480,
      title: 'Cairn',
      show: false,
      backgroundColor: '#f6f7f9',
      webPreferences: {
        preload: PRELOAD,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        navigateOnDragDrop: false,
        spellcheck: false,
        devTools: isDev,
      },
    });
    if (saved.maximized) win.maximize();
    win.once('ready-to-show', () => win.show());
    const remember = () => saveWindowState(stateFile, { bounds: win.getNormalBounds(), maximized: win.isMaximized() });
    win.on('close', remember);
    void win.loadURL(APP_URL);
    return win;
  }

  function registerIpc(api: CoreProcess): void {
    const dispatch = createIpcDispatcher(api, { openInEditor: (notePath) => openNoteInEditor(api, notePath) });
    ipcMain.handle(CALL_CHANNEL, (event, method: unknown, callArgs: unknown) => (trusted(event) ? dispatch(method, callArgs) : { ok: false, error: 'refused: unknown sender' }));
    ipcMain.handle(CHOOSE_FOLDER_CHANNEL, (event) => (trusted(event) ? chooseFolder(BrowserWindow.fromWebContents(event.sender)) : null));
  }

  /** Only our own window's page, loaded from our own scheme, may call. */
  function trusted(event: IpcMainInvokeEvent): boolean {
    const url = event.senderFrame?.url ?? '';
    return event.sender === window?.webContents && url.startsWith(`${APP_ORIGIN}/`);
  }
}

async function chooseFolder(window: BrowserWindow | null): Promise<string | null> {
  const options = { title: 'Choose your notes folder', properties: ['openDirectory', 'createDirectory'] as Array<'openDirectory' | 'createDirectory'> };
  const result = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
  return result.canceled ? null : (result.filePaths[0] ?? null);
}

/** Opens a note of the open vault in the OS default app. */
async function openNoteInEditor(api: CairnApi, notePath: string): Promise<void> {
  const file = await noteFileToOpen(api, notePath);
  const failure = await shell.openPath(file);
  if (failure) throw new Error(`could not open ${notePath}: ${failure}`);
}

/** No navigation, no new windows, no webviews: links to the web go to the OS browser instead. */
function lockDown(contents: WebContents): void {
  const openOutside = (url: string) => {
    if (isAllowedExternalUrl(url)) void shell.openExternal(url);
  };
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    openOutside(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openOutside(url);
    return { action: 'deny' };
  });
}
