// Runs in the sandboxed preload of the window: the page gets window.cairn and nothing else of Electron.
import { contextBridge, ipcRenderer } from 'electron';
import { exposeDesktopApi } from './preloadBridge.js';

exposeDesktopApi(contextBridge, ipcRenderer);
