import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { escapeHtml } from '../html/escape.ts';
import { AppError } from './errors.ts';
import { replyFormats } from './reply-formats.ts';
import { route } from './route.ts';

/**
 * The repository's guides (`docs/*.md`) that the API reference links to, served read-only at
 * `/api/docs/guides/<name>` (docs/decisions/0029-api-reference.md). Only these names are served:
 * a request names a key of this list, never a path.
 */
export const GUIDES = ['api-conventions.md', 'webhooks.md', 'frontend-errors.md'] as const;
export type Guide = (typeof GUIDES)[number];

const GUIDES_URL = '/api/docs/guides';
const DOCS_DIR = new URL('../../../../../docs/', import.meta.url);

/** `[docs/webhooks.md](/api/docs/guides/webhooks.md)`: a link Scalar renders in a description. */
export function guideLink(name: Guide): string {
  return `[docs/${name}](${GUIDES_URL}/${name})`;
}

// The page has no script; its one style block is allowed by its hash, no other inline style.
const STYLE = 'body{max-width:60rem;margin:2rem auto;padding:0 1rem}pre{white-space:pre-wrap;font-size:14px}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
const GUIDE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'`;

const notFound = () => new AppError(404, 'docs.guide_not_found', 'No such guide');

/** `GET /api/docs/guides/:name`: the guide's Markdown, escaped, as a plain HTML page. */
export function registerGuideRoutes(app: FastifyInstance): void {
  route(app, {
    method: 'GET',
    url: `${GUIDES_URL}/:name`,
    operation: 'docs.guide.get',
    auth: 'public',
    stateless: true, // files of the install
    reply: replyFormats.body('text/html'),
    schema: {
      tags: ['Docs'],
      summary: 'A guide the API reference links to (the repository’s Markdown), as text in an HTML page',
      params: Type.Object({ name: Type.String({ description: `one of ${GUIDES.join(', ')}` }) }),
      response: Type.String(),
    },
    handler: async (req, reply) => {
      const name = GUIDES.find((g) => g === req.params.name);
      if (!name) throw notFound();
      const text = await readFile(new URL(name, DOCS_DIR), 'utf8').catch(() => {
        throw notFound(); // an install without the docs folder
      });
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', GUIDE_CSP)
        .header('x-content-type-options', 'nosniff')
        .send(guidePage(name, text));
    },
  });
}

function guidePage(name: Guide, markdown: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>docs/${name} — Atrium</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<style>${STYLE}</style></head>
<body><p><a href="/api/docs">← API reference</a></p><pre>${escapeHtml(markdown)}</pre></body></html>`;
}
