// The application menu: the usual Edit roles, File › Open Vault, View › Focus Search (Ctrl/Cmd-K, sent to the
// page over IPC), reload and developer tools in development only.
import { Menu, type MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  isDev: boolean;
  openVault(): void | Promise<void>;
  focusSearch(): void;
}

export function buildAppMenu({ isDev, openVault, focusSearch }: MenuActions): Menu {
  const isMac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [{ label: 'Open Vault…', accelerator: 'CmdOrCtrl+O', click: () => void openVault() }, { type: 'separator' }, isMac ? { role: 'close' } : { role: 'quit' }],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { label: 'Focus Search', accelerator: 'CmdOrCtrl+K', click: focusSearch },
        { type: 'separator' },
        ...(isDev ? ([{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as MenuItemConstructorOptions[]) : []),
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
  return Menu.buildFromTemplate(template);
}
