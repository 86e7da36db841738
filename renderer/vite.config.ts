// Builds the React UI into renderer/dist, served by `cairn serve` (browser mode) and loaded by the Electron window.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No module-preload polyfill: it is an inline script, which the strict CSP forbids (and every target supports preload).
    modulePreload: { polyfill: false },
    // One script and one stylesheet: every asset URL in index.html then carries the browser-mode token.
    cssCodeSplit: false,
    chunkSizeWarningLimit: 1200,
    rolldownOptions: { output: { codeSplitting: false } },
  },
  server: { strictPort: false },
});
