/// <reference types="vitest/config" />

import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { embedWidgetPlugin } from './build/embed-widget-plugin.ts';
import { webDeliveryPlugin } from './build/web-delivery-plugin.ts';

// The API and the embedded OpenID Connect provider run in the Node server (npm start, port 3000);
// the dev server forwards them so the SPA talks to one origin, exactly as in production.
const serverUrl = 'http://localhost:3000';

export default defineConfig({
  // webDeliveryPlugin: .br and .gz copies of the build, and the landing page's 100 KiB budget.
  // embedWidgetPlugin: the embed widget's own two small scripts under dist/embed/, with their budgets.
  plugins: [react(), tailwindcss(), embedWidgetPlugin(), webDeliveryPlugin()],
  // @/ is web/src: code outside a feature is imported through it (a feature never imports another feature).
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
    proxy: {
      '/api': { target: serverUrl },
      '/oidc': { target: serverUrl },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // .vite/manifest.json: which chunks each page loads first (build/initial-js.ts); a dot folder, never served.
    manifest: true,
    // The prompt editors' Monaco chunk (~3.3 MB, ~850 kB gzipped) is bundled rather than fetched from
    // a CDN and loads only when an editor is first shown; the limit is set just above it.
    chunkSizeWarningLimit: 3500,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'build/**/*.test.ts'],
    setupFiles: ['./src/testing/setup.ts'],
    restoreMocks: true,
    unstubGlobals: true,
    // A render that takes 5 s on a machine busy with other suites is slow, not broken: the
    // assertions, not a wall clock, decide whether a test passes (the server suite does the same).
    testTimeout: 30_000,
    // Vitest's default on two cores is one worker (cores - 1); nothing else runs beside this suite in `npm test`.
    maxWorkers: 2,
  },
});
