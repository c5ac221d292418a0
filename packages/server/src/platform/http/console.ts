import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fileInside, openRepresentation, qualities, sendFile } from './static-files.ts';

/**
 * The web console (packages/console), built into its dist/ at install and served here
 * (docs/decisions/0031-console-serving.md). It answers only what no route matched: a GET or HEAD
 * outside /api and /.well-known, so every API answer, 404s and 414s included, stays as it was.
 */

/** Where `npm run build -w @atrium/console` writes, from this file's place in the repository. */
export const DEFAULT_CONSOLE_DIR = resolve(import.meta.dirname, '../../../../console/dist');

export const BUILD_COMMAND = 'npm run build -w @atrium/console';

const IMMUTABLE = 'public, max-age=31536000, immutable'; // Vite's hashed file names under /assets/
const REVALIDATE = 'no-cache';

/** The metric names of what the console answers (a console page load is not "unmatched"). */
const consoleOperations = { page: 'console.page.get', file: 'console.file.get' } as const;

/**
 * Scripts only from the service's own files: no inline script, no eval. Inline style is allowed:
 * antd 6 takes a nonce for its CSS-in-JS, but its scroll lock (Modal, Drawer) and autosizing
 * TextArea still write styles without one, and a nonce would break them (decision 0031).
 * The console's WebSocket (/api/ws) is the page's own origin: 'self' covers it in current
 * browsers, the ws: form of PUBLIC_BASE_URL covers older ones.
 */
function consolePolicy(publicBaseUrl: string): string {
  const origin = new URL(publicBaseUrl);
  const socketOrigin = `${origin.protocol === 'https:' ? 'wss:' : 'ws:'}//${origin.host}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self' ${socketOrigin}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

/**
 * Whether the request asks for a page: its Accept names text/html (a browser's navigation), or
 * it has no Accept at all (RFC 9110 §12.5.1: anything goes). A bare wildcard is what fetch(),
 * curl and a page's scripts and images send: a missing script must stay a 404, not become the page.
 */
function acceptsPage(accept: string | undefined): boolean {
  return accept === undefined || accept.trim() === '' || (qualities(accept).get('text/html') ?? 0) > 0;
}

const outsideConsole = (path: string) =>
  path === '/api' || path.startsWith('/api/') || path.startsWith('/.well-known/');

type ConsolePages = (req: FastifyRequest, reply: FastifyReply) => Promise<string | null>;

/**
 * Answers a GET or HEAD no route matched, and names what it answered (for metrics); null lets
 * the service's JSON 404 answer. A file of dist/ is sent as itself (immutable under /assets/);
 * any other path of a page request gets index.html, so the console's own routes (/login,
 * /oauth2/authorize?…, /s/abc) load the app; an unknown /assets/ file is never the page.
 */
export function consolePages(opts: { dir: string; publicBaseUrl: string }): ConsolePages {
  const policy = consolePolicy(opts.publicBaseUrl);
  const indexFile = join(opts.dir, 'index.html');
  return async (req, reply) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return null;
    const path = req.url.split('?')[0] ?? '/';
    if (outsideConsole(path)) return null;
    const file = fileInside(opts.dir, path);
    if (file && file !== indexFile) {
      const found = await openRepresentation(file, req.headers['accept-encoding']);
      if (found) {
        sendFile(req, securityHeaders(reply), file, found, path.startsWith('/assets/') ? IMMUTABLE : REVALIDATE);
        return consoleOperations.file;
      }
    }
    // `/` is always the page; another path only when a page is asked for, and never under /assets/
    const root = path === '/' || file === indexFile;
    if (!root && (path.startsWith('/assets/') || !acceptsPage(req.headers.accept))) return null;

    const page = await openRepresentation(indexFile, req.headers['accept-encoding']);
    securityHeaders(reply);
    if (page) sendFile(req, reply.header('content-security-policy', policy), indexFile, page, REVALIDATE);
    else
      reply
        .code(503)
        .header('content-security-policy', NOT_BUILT_POLICY)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(NOT_BUILT_PAGE);
    return consoleOperations.page;
  };
}

const securityHeaders = (reply: FastifyReply) =>
  reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'strict-origin-when-cross-origin');

/** One line for the start banner: where the console is, or how to build it. */
export function consoleStatusLine(dir: string, base: string): string {
  return existsSync(join(dir, 'index.html'))
    ? `Console: ${base}/`
    : `Console: not built (no index.html in ${dir}): run ${BUILD_COMMAND}, then reload; no restart needed`;
}

/**
 * What a browser sees at / when the console is not built: the build was skipped
 * (`npm ci --ignore-scripts`, an install without dev dependencies) or dist/ was removed.
 * No script, nothing from outside; its one style block is allowed by its hash.
 */
const NOT_BUILT_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#8882;padding:0 .25rem}';
const NOT_BUILT_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(NOT_BUILT_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Atrium: the console is not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${NOT_BUILT_STYLE}</style>
</head><body>
<h1>The console is not built</h1>
<p>Atrium is running, and so is its API (reference: <a href="/api/docs">/api/docs</a>), but the web console
has not been built into <code>packages/console/dist</code>. <code>npm ci</code> builds it; the build was
skipped (<code>npm ci --ignore-scripts</code>, or an install without dev dependencies) or the folder
was removed.</p>
<p>In the service's folder, run <code>${BUILD_COMMAND}</code>, then reload this page: the
service need not be restarted. The build needs the dev dependencies; where they are left out,
build on a machine that has them and copy <code>packages/console/dist</code> over.</p>
</body></html>
`;
