import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileEverySchema } from '../../src/platform/http/schema-compilers.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }>; schema?: unknown }>;
  'x-permission'?: string;
};
type Doc = {
  openapi: string;
  servers: { url: string; description?: string }[];
  tags: { name: string }[];
  security: Record<string, string[]>[];
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
  paths: Record<string, Record<string, Operation>>;
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PUBLIC_ROUTES = [
  '/api/health',
  '/api/auth/login',
  '/api/auth/captcha',
  '/api/auth/refresh',
  '/api/openapi.json',
  '/api/docs',
  '/api/docs/guides/{name}',
  '/api/frontend-errors/console-site',
];

let t: TestApp;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp();
  const res = await call(t.app, 'GET', '/api/openapi.json');
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => t?.close());

function operations(): { path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );
}

/**
 * Every route Fastify knows, read from `printRoutes({ commonPrefix: false })`: a tree whose
 * lines are `<indent><branch><segment> (METHODS)`, each segment continuing its parent's path.
 */
function registeredRoutes(app: FastifyInstance): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    stack.length = (m[1] ?? '').length / 4;
    stack.push(m[2] ?? '');
    if (m[3]) for (const method of m[3].split(', ')) routes.push({ method, url: stack.join('') });
  }
  return routes;
}

/**
 * The OpenAPI spellings of a Fastify path: `:id` → `{id}`. Routes sharing a parametric node print
 * the names they use there as `:id|:code`; any one of them may be the documented one.
 */
function openApiPaths(url: string): string[] {
  let paths = [''];
  for (const segment of url.split('/').slice(1)) {
    const alternatives = segment.split('|').map((alt) => alt.replace(/^:(\w+)/, '{$1}'));
    paths = paths.flatMap((prefix) => alternatives.map((alt) => `${prefix}/${alt}`));
  }
  return paths;
}

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names the service as its one server (the development default when PUBLIC_BASE_URL is unset), paths keeping /api', () => {
    // api-reference.test.ts checks a configured PUBLIC_BASE_URL
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.1:3000', description: expect.any(String) }]);
    for (const path of Object.keys(doc.paths)) expect(path, path).toMatch(/^\/(api|\.well-known)\//);
  });

  it('declares the BearerAuth http bearer scheme as the global security', () => {
    expect(doc.components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ BearerAuth: [] }]);
  });

  it('gives every operation an operationId, declared tags and a success response with a schema', () => {
    const declaredTags = new Set(doc.tags.map((tag) => tag.name));
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
      expect(ids.has(op.operationId as string), `${where}: duplicate operationId`).toBe(false);
      ids.add(op.operationId as string);
      expect(op.tags?.length, `${where}: tags`).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(declaredTags.has(tag), `${where}: tag ${tag} not declared`).toBe(true);

      // A WebSocket upgrade succeeds with 101 Switching Protocols; everything else with a 2xx.
      const success = Object.entries(op.responses ?? {}).filter(([code]) =>
        path === '/api/ws' ? code === '101' : /^2\d\d$/.test(code),
      );
      expect(success.length, `${where}: success response`).toBeGreaterThan(0);
      if (path !== '/api/ws') {
        const hasBody = success.some(
          ([, r]) => r.schema !== undefined || Object.values(r.content ?? {}).some((c) => c.schema),
        );
        expect(hasBody, `${where}: success schema`).toBe(true);
      }
    }
  });

  it('marks the public routes with an empty security list', () => {
    for (const path of PUBLIC_ROUTES) {
      const item = doc.paths[path];
      expect(item, path).toBeDefined();
      for (const op of Object.values(item ?? {})) expect(op.security, path).toEqual([]);
    }
  });

  it('makes the token optional where a sign-in is optional (an empty requirement, OpenAPI 3.1 Operation Object `security`)', () => {
    for (const [path, method] of [
      ['/api/files/{id}/content', 'get'],
      ['/api/frontend-errors', 'post'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.security, path).toEqual([{}, { BearerAuth: [] }]);
    }
  });

  it('keeps the global security on signed-in routes', () => {
    for (const path of ['/api/auth/me', '/api/monitor/server', '/api/dashboard/stats', '/api/license']) {
      expect(doc.paths[path]?.get, path).toBeDefined();
      expect(doc.paths[path]?.get?.security, path).toBeUndefined();
    }
  });

  it('shows the permission of every guarded route as x-permission', () => {
    const documented = new Set(operations().flatMap(({ op }) => (op['x-permission'] ? [op['x-permission']] : [])));
    // Templates such as {module}:setting:view stand for one code per settings module, as in app.permissionCodes.
    const modules = t.app.ctx.settingsRegistry.all().map((m) => m.module);
    const expanded = new Set(
      [...documented].flatMap((code) =>
        code.includes('{module}') ? modules.map((m) => code.replace('{module}', m)) : [code],
      ),
    );
    expect([...expanded].sort()).toEqual([...t.app.permissionCodes].sort());
    expect(doc.paths['/api/monitor/server']?.get?.['x-permission']).toBe('monitor:server:view');
    expect(doc.paths['/api/dashboard/stats']?.get?.['x-permission']).toBe('dashboard:stats:view');
    expect(doc.paths['/api/license']?.get?.['x-permission']).toBe('platform:license:view');
  });

  it('describes every route Fastify serves, except /metrics and the reference UI assets', () => {
    const routes = registeredRoutes(t.app);
    // the parser sees nested segments too
    expect(routes).toContainEqual({ method: 'GET', url: '/api/docs/assets/js/scalar.js' });
    expect(routes).toContainEqual({ method: 'POST', url: '/api/auth/login' });

    const missing: string[] = [];
    for (const { method, url } of routes) {
      if (url === '/metrics' || url.startsWith('/api/docs/assets')) continue;
      const documentedAs = method === 'HEAD' ? 'get' : method.toLowerCase();
      if (!openApiPaths(url).some((path) => doc.paths[path]?.[documentedAs])) missing.push(`${method} ${url}`);
    }
    expect(missing).toEqual([]);
  });

  it('leaves /metrics out', () => {
    expect(Object.keys(doc.paths).filter((p) => p.includes('metrics'))).toEqual([]);
  });
});

describe('schemas compiled on first use', () => {
  it('every validator and serializer of every route compiles (they are built lazily at run time)', () => {
    // Compiling one throws on a schema Ajv or fast-json-stringify cannot use; lazily, that would
    // first surface as a failed request.
    const count = compileEverySchema(t.app);
    expect(count).toBeGreaterThan(doc ? Object.keys(doc.paths).length : 0);
    // pure CPU (every route's validators and serializers at once): slow beside the other worker
  }, 120_000);

  it('a route validates and serializes correctly after its first, lazy compilation', async () => {
    const bad = await call(t.app, 'GET', '/api/users?page=0', { token: t.adminToken });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.map((d: { field: string }) => d.field)).toEqual(['page']);
    const again = await call(t.app, 'GET', '/api/users?page=0', { token: t.adminToken });
    expect(again.json().details.map((d: { field: string }) => d.field)).toEqual(['page']);
    const ok = await call(t.app, 'GET', '/api/users?page=1&pageSize=1', { token: t.adminToken });
    expect(ok.statusCode).toBe(200);
    expect(Object.keys(ok.json().data)).toEqual(expect.arrayContaining(['list', 'total']));
  });
});
