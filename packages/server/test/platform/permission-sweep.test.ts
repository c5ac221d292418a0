import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import { route } from '../../src/platform/http/route.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { allTenantPermissions } from '../helpers/fixtures.ts';
import { type Schema, sampleOf } from '../helpers/sample-body.ts';

/**
 * The permission sweep (issue 26): for every operation that declares an `x-permission`, a signed-in
 * user who holds every other permission of their scope but exactly that one gets 403
 * `auth.permission_denied` naming that code, and nothing is written. Holding every code first, the
 * same user's reads are not refused: the role really grants them. Tenant
 * codes are swept with a demo-tenant user, `platform:` codes with a platform user.
 *
 * Every other operation is public (`security: []`) or listed in SELF_SERVICE with the reason it
 * needs no permission: a new operation with neither fails here until it declares one.
 */
const SELF_SERVICE: [RegExp, string][] = [
  [/^(POST|GET|PUT) \/api\/auth\//, 'the signed-in person’s own session, identity and password'],
  [/^GET \/api\/profile\//, 'the person’s own records and sessions'],
  [
    /^POST \/api\/profile\/operation-logs\/export$/,
    'the person’s own operation records as a file: the user id comes from the session, never the body',
  ],
  [/^GET \/api\/settings\/me$/, 'the person’s own settings'],
  [
    /^(GET|POST|PUT|DELETE) \/api\/in-app-messages(\/(unread-count|read-all|batch-read|batch|\{id\}(\/read)?))?$/,
    'the person’s own inbox (administration is under /admin, with permissions)',
  ],
  [
    /^(GET|POST) \/api\/announcements\/(inbox|published|unread-count|read-all|\{id\}\/read)$/,
    'announcements as their reader sees them',
  ],
  [/^(GET|PUT) \/api\/notification-preferences\//, 'the person’s own notification preferences'],
  [/^(GET|POST|DELETE) \/api\/push-devices(\/\{id\})?$/, 'the person’s own devices'],
  [
    /^(GET|POST) \/api\/tasks(\/\{id\}(\/(cancel|result))?)?$/,
    'the person’s own tasks (exports), scoped to their creator',
  ],
  [/^GET \/api\/notices\/(published|\{id\}\/view)$/, 'published notices, for every signed-in reader'],
  [/^GET \/api\/dict-types\/\{code\}\/items$/, 'dictionary items that forms of every page read'],
  [
    /^GET \/api\/system-configs\/key\/\{key\}$/,
    'a configuration value read by key for the console, by every signed-in user',
  ],
  [/^GET \/api\/files\/\{id\}\/content$/, 'a file’s content: the owning resource’s access decides (managed files)'],
  [/^(GET|POST) \/api\/oauth2\/authorize(\/info)?$/, 'the person’s own consent on the OAuth consent page'],
  [/^(GET|DELETE) \/api\/open-platform\/connected-apps(\/\{id\})?$/, 'the applications the person has connected'],
  [/^GET \/api\/open\/v1\/me$/, 'an application’s OAuth access token: guarded by scopes'],
  [/^POST \/api\/frontend-errors$/, 'error reports from browsers: guarded by the site key'],
];

type Operation = {
  'x-permission'?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};
type Doc = { paths: Record<string, Record<string, Operation>> };

let t: TestApp;

/**
 * Tables written whatever the requests do: the role a sweep edits and the logs of sign-ins and
 * operations, by design; the platform's cron runs, by the scheduler's own ticks (a built-in job
 * may fall due while the sweep runs)
 */
const WRITTEN_BY_THE_SWEEP = new Set(['roles', 'operation_logs', 'login_logs', 'refresh_tokens', 'cron_job_runs']);
/** columns that move with time, not with requests: session activity, the scheduler's last run */
const VOLATILE = ['last_active_at', 'last_run_at', 'last_status'];

async function tenantSnapshot(t: TestApp, tenantId: number | null): Promise<string> {
  const rows = async (q: ReturnType<typeof sql>) =>
    ((await t.database.db.execute(q)) as unknown as { rows: Record<string, unknown>[] }).rows;
  const tables = (await rows(sql`
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'tenant_id' ORDER BY table_name`)) as { table_name: string }[];
  const out: Record<string, unknown> = {};
  for (const { table_name } of tables) {
    if (WRITTEN_BY_THE_SWEEP.has(table_name)) continue;
    const found = await rows(
      sql`SELECT * FROM ${sql.identifier(table_name)} WHERE tenant_id = ${platformKey(tenantId)} ORDER BY 1`,
    );
    out[table_name] = found.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !VOLATILE.includes(k))));
  }
  return JSON.stringify(out);
}

/** A request the guard is the only thing to refuse: path, query and body filled with valid samples. */
function requestOf(path: string, op: Operation, code: string) {
  // `{module}:setting:view`: the module named by the code being swept
  const module = code.split(':')[0] ?? 'system';
  let url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'module' ? module : '1'));
  const query = new URLSearchParams();
  for (const p of op.parameters ?? [])
    if (p.in === 'query' && p.required) query.set(p.name, String(sampleOf(p.schema, p.name)));
  if ([...query].length) url += `?${query}`;
  const schema = op.requestBody?.content['application/json']?.schema;
  return { url, body: schema ? sampleOf(schema) : undefined };
}

type Operations = { method: string; path: string; op: Operation }[];

async function documentOf(t: TestApp): Promise<Doc> {
  return (await call(t.app, 'GET', '/api/openapi.json')).json() as Doc;
}

/** Operations by the permission code they declare. */
function byCodeOf(doc: Doc): Map<string, Operations> {
  const byCode = new Map<string, Operations>();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      const declared = op['x-permission'];
      if (!declared) continue;
      const code = declared.replace('{module}', 'system');
      byCode.set(code, [...(byCode.get(code) ?? []), { method: method.toUpperCase(), path, op }]);
    }
  return byCode;
}

/** Operations neither public, nor declaring a permission, nor self-service for a stated reason. */
function undeclared(doc: Doc): string[] {
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      const name = `${method.toUpperCase()} ${path}`;
      const publicOp = Array.isArray(op.security) && op.security.length === 0;
      if (publicOp || op['x-permission']) continue;
      if (!SELF_SERVICE.some(([pattern]) => pattern.test(name))) out.push(name);
    }
  return out;
}

/**
 * One role per scope, its codes set through the API before each code is swept: the role's
 * holders are refreshed the way an administrator's change refreshes them. Answers what went
 * wrong (operations not refused for the code) and whether the scope's rows changed.
 */
async function sweep(t: TestApp, scope: 'tenant' | 'platform', only: (code: string) => boolean = () => true) {
  const all = scope === 'tenant' ? allTenantPermissions(t) : [...t.app.permissionCodes];
  const adminToken = scope === 'tenant' ? t.demoAdminToken : t.adminToken;
  const username = `sweep-${scope}`;
  const password = 'Sweep#Pass2026';
  const role = await call(t.app, 'POST', '/api/roles', {
    token: adminToken,
    body: { code: username, name: username, permissions: all, menuIds: [] },
  });
  if (role.statusCode !== 201) throw new Error(`role: ${role.body}`);
  const roleId = role.json().data.id;
  const user = await call(t.app, 'POST', '/api/users', {
    token: adminToken,
    body: { username, password, nickname: username, roleIds: [roleId] },
  });
  if (user.statusCode !== 201) throw new Error(`user: ${user.body}`);
  const token = await login(t.app, username, password, scope === 'tenant' ? 'demo' : undefined);
  const grant = async (permissions: string[]) => {
    const res = await call(t.app, 'PUT', `/api/roles/${roleId}`, { token: adminToken, body: { permissions } });
    if (res.statusCode !== 200) throw new Error(`grant: ${res.body}`);
  };

  const byCode = byCodeOf(await documentOf(t));
  const codes = [...byCode.keys()].filter((c) => c.startsWith('platform:') === (scope === 'platform') && only(c));
  const failures: string[] = [];
  // the control: holding every code, the reads are not refused — the user does hold them
  for (const code of codes)
    for (const read of (byCode.get(code) ?? []).filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
      const res = await call(t.app, 'GET', requestOf(read.path, read.op, code).url, { token });
      if (res.statusCode === 403) failures.push(`${read.method} ${read.path}: refused although ${code} was held`);
    }
  const tenantId = scope === 'tenant' ? t.demoTenantId : null;
  const before = await tenantSnapshot(t, tenantId);
  let calls = 0;
  for (const code of codes) {
    await grant(all.filter((c) => c !== code));
    for (const { method, path, op } of byCode.get(code) ?? []) {
      const { url, body } = requestOf(path, op, code);
      const res = await call(t.app, method as 'GET', url, { token, ...(body !== undefined ? { body } : {}) });
      calls++;
      const answer = res.headers['content-type']?.includes('json') ? res.json() : {};
      // refused for this code, by name: not for another one the role lacks, not by a later check
      if (res.statusCode !== 403 || answer.error !== 'auth.permission_denied' || !answer.message?.endsWith(code))
        failures.push(`${method} ${path} without ${code} → ${res.statusCode} ${res.body.slice(0, 160)}`);
    }
  }
  const changed = (await tenantSnapshot(t, tenantId)) !== before;
  return { codes: codes.length, calls, failures, changed };
}

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('permissions', () => {
  it('every operation that is not public declares a permission, or is self-service for a stated reason', async () => {
    expect(
      undeclared(await documentOf(t)),
      'declare a permission on these, or add them to SELF_SERVICE with the reason',
    ).toEqual([]);
  });

  it('a tenant user lacking exactly the declared code is refused every operation of it, and nothing is written', async () => {
    const r = await sweep(t, 'tenant');
    console.log(`permission sweep (tenant): ${r.codes} codes, ${r.calls} operations`);
    expect(r.failures).toEqual([]);
    expect(r.changed).toBe(false);
    expect(r.codes).toBeGreaterThan(80);
  }, 240_000);

  it('a platform user lacking exactly the declared platform code is refused, and nothing is written', async () => {
    const r = await sweep(t, 'platform');
    console.log(`permission sweep (platform): ${r.codes} codes, ${r.calls} operations`);
    expect(r.failures).toEqual([]);
    expect(r.changed).toBe(false);
    expect(r.codes).toBeGreaterThan(5);
  }, 240_000);
});

// The sweep is only worth what it catches: planted routes that forgot their guard.
describe('the permission sweep catches', () => {
  let planted: TestApp;
  beforeAll(async () => {
    planted = await createTestApp({ extraRoutes: plantedRoutes });
  });
  afterAll(async () => planted?.close());

  it('an operation that declares no permission and no reason', async () => {
    expect(undeclared(await documentOf(planted))).toEqual(['GET /api/test/planted/undeclared']);
  });

  it('a permission declared but not enforced, and the row its call wrote', async () => {
    const r = await sweep(planted, 'tenant', (code) => code === 'test:planted:write');
    expect(r.calls).toBe(1);
    expect(r.failures).toEqual([
      expect.stringMatching(/^POST \/api\/test\/planted\/unguarded without test:planted:write → 200/),
    ]);
    expect(r.changed).toBe(true);
  });
});

/** A route that documents a permission its `auth` never checks (optional sign-in), and writes. */
function plantedRoutes(app: FastifyInstance) {
  const ok = { response: Type.Object({ ok: Type.Literal(true) }) };
  route(app, {
    method: 'POST',
    url: '/api/test/planted/unguarded',
    operation: 'test.planted_unguarded.create',
    auth: 'optional',
    permission: 'test:planted:write',
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
    handler: async (req) => {
      await app.ctx.db.execute(
        sql`INSERT INTO positions (tenant_id, code, name) VALUES (${req.scope.tenantId}, 'planted', 'Planted')`,
      );
      return { ok: true as const };
    },
  });
  route(app, {
    method: 'GET',
    url: '/api/test/planted/undeclared',
    operation: 'test.planted_undeclared.get',
    auth: 'user',
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
    handler: async () => ({ ok: true as const }),
  });
}
