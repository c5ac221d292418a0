import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { consoleRelease } from './scripts/release.ts';

/**
 * The console is built into dist/ at install (the root `prepare` script) and served by the
 * service at / (packages/server/src/platform/http/console.ts). Hashed assets under /assets/ are
 * immutable; index.html is revalidated on every load.
 */
const release = consoleRelease();

/**
 * The release beside Vite's manifest, and — with CONSOLE_SOURCEMAPS=1 — the source maps under
 * `.vite/sourcemaps/`: a dot folder the service never serves, so the maps (the console's whole
 * source) reach only whoever uploads them to the monitor (docs/decisions/0037). `hidden`: the
 * bundles do not name their maps either.
 */
function releaseFiles(): Plugin {
  return {
    name: 'atrium-console-release',
    generateBundle(_options, bundle) {
      this.emitFile({ type: 'asset', fileName: '.vite/release.txt', source: `${release}\n` });
      for (const [name, file] of Object.entries(bundle)) {
        if (file.type !== 'asset' || !name.endsWith('.map')) continue;
        delete bundle[name];
        this.emitFile({
          type: 'asset',
          fileName: `.vite/sourcemaps/${name.split('/').pop()}`,
          source: file.source,
        });
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), releaseFiles()],
  base: '/',
  define: { __CONSOLE_RELEASE__: JSON.stringify(release) },
  resolve: {
    // workspace packages from their TypeScript sources (their `source` export), not a prebuilt dist/
    conditions: ['source', ...defaultClientConditions],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    sourcemap: process.env.CONSOLE_SOURCEMAPS === '1' ? 'hidden' : false,
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
