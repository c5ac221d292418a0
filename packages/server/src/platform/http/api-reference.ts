import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { replyFormats } from './reply-formats.ts';
import { route } from './route.ts';

const ASSETS = '/api/docs/assets/js';

/**
 * Scalar's options for a self-hosted reference that fetches nothing from outside the service
 * (docs/decisions/0029-api-reference.md): no fonts from fonts.scalar.com (system fonts instead),
 * no developer toolbar (it uploads the document to scalar.com to share it), no AI agent, MCP,
 * client app or telemetry.
 */
const SCALAR_CONFIGURATION = {
  url: '/api/openapi.json',
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  hideClientButton: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  telemetry: false,
};

/**
 * Only the service itself: scripts are files (no inline script, no eval). Scalar injects its
 * styles as <style> elements, most without a nonce, so inline style stays allowed. `serverUrl`
 * is where "Test request" sends calls, which may be another origin than the page's behind a proxy.
 */
function referencePolicy(serverUrl: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(serverUrl).origin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Atrium API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><div id="app"></div>
<script src="${ASSETS}/scalar.js"></script>
<script src="${ASSETS}/reference.js"></script></body></html>`;

const MOUNT = `Scalar.createApiReference('#app', ${JSON.stringify(SCALAR_CONFIGURATION)});\n`;

/** `GET /api/docs` and the two scripts it loads. */
export function registerReferenceRoutes(app: FastifyInstance, opts: { serverUrl: string }): void {
  const policy = referencePolicy(opts.serverUrl);
  route(app, {
    method: 'GET',
    url: '/api/docs',
    operation: 'docs.reference.get',
    auth: 'public',
    stateless: true, // a page held in memory
    reply: replyFormats.body('text/html'),
    schema: {
      tags: ['Docs'],
      summary: 'Interactive API reference (Scalar)',
      response: Type.String(),
    },
    handler: async (_req, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', policy)
        .header('x-content-type-options', 'nosniff')
        .send(PAGE),
  });
  // Hidden, public, outside the envelope, as Scalar's own plugin registered it.
  app.get(`${ASSETS}/scalar.js`, { schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/javascript; charset=utf-8').send(await scalarScript()),
  );
  app.get(`${ASSETS}/reference.js`, { schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/javascript; charset=utf-8').send(MOUNT),
  );
}

let script: Promise<string> | undefined;

/**
 * Scalar's reference UI script. Its Fastify plugin holds it as an 8 MB string literal, which
 * importing puts in the heap twice (module source and string) with the plugin's parser
 * dependencies: ~20 MB for a page rarely opened. So the plugin is imported on the first request
 * and asked for the script through a scratch instance; the script is then kept.
 */
function scalarScript(): Promise<string> {
  script ??= (async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    const scratch = Fastify();
    try {
      await scratch.register(scalar, { routePrefix: '/', configuration: { url: '/api/openapi.json' } });
      const res = await scratch.inject('/js/scalar.js');
      if (res.statusCode !== 200) throw new Error(`Scalar script: ${res.statusCode}`);
      return res.body;
    } finally {
      await scratch.close();
    }
  })();
  script.catch(() => {
    script = undefined; // a failed load is retried by the next request
  });
  return script;
}
