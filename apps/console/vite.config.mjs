// Vite builds the console into dist/, which the api role serves at /console (apps/api/src/console).
// JSX goes through Vite's own Oxc transform with Preact's automatic runtime, so no framework plugin
// is needed (see ARCHITECTURE.md, "The console").
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Chromium of the worker's generation and current desktop/mobile browsers.
    target: 'es2022',
    sourcemap: true,
  },
  // Same origin as the API in production; `vite` (dev server) proxies the API of a local `npm start`.
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
