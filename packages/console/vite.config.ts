import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console is built into dist/ at install (the root `prepare` script) and served by the
 * service at / (packages/server/src/platform/http/console.ts). Hashed assets under /assets/ are
 * immutable; index.html is revalidated on every load.
 */
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    // No inline script anywhere: the service's Content-Security-Policy allows none.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // `npm run dev -w @atrium/console` next to `npm start`; ATRIUM_API names another service
    proxy: { '/api': { target: process.env.ATRIUM_API ?? 'http://127.0.0.1:3000', ws: true } },
  },
});
