import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpErrors } from '../../src/platform/http/errors.ts';
import { route } from '../../src/platform/http/route.ts';
import { Id } from '../../src/platform/http/schemas.ts';
import { createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createTenant, USER_PASSWORD } from '../helpers/fixtures.ts';
import { buildTenantResources, platformRows, type TenantResources } from './tenant-resources.ts';
import { type Exception, type SweepOptions, type SweepResult, sweepTenants } from './tenant-sweep.ts';

/**
 * The tenant sweep (issue 26): every operation of the live OpenAPI document whose path, query or
 * body names a row is called by tenant B's administrator (who holds every tenant permission) with
 * tenant A's real rows, one parameter at a time; each must refuse them, and A's rows must stay as
 * they were after every call. Every other operation is called once as B: it may show or change
 * nothing of A. How: tenant-sweep.ts; A's and B's rows: tenant-resources.ts.
 *
 * A parameter the sweep cannot fill with a row of A's is listed here with the reason; one with
 * neither a row of A's nor a reason fails the sweep, so a new route is swept from its first day.
 */
const EXCEPTIONS: Exception[] = [
  [
    /^(GET|PUT) \/api\/tenants\/\{id\} id$/,
    'tenants are managed at platform scope only (platform:tenant:*): every tenant’s administrator is refused its own as well — the permission sweep',
  ],
  [/ index$/, 'a chunk’s position in its upload, not a row: the upload’s {id} beside it is swept'],
  [
    / menuIds$|^(POST|PUT) \/api\/menus(\/\{id\})? parentId$/,
    'the menu tree is platform-wide (decision 0002): every tenant’s roles bind the same nodes',
  ],
  [
    / (accessKeyId|sdkAppId|providerTemplateId|registrationId|settings)$/,
    'a provider’s credential or its own id for a thing (a template, a device), not a row of ours',
  ],
  [/^POST \/api\/frontend-errors (replayId|sessionId|context)$/, 'ids the reporting browser makes up, not rows'],
  [/^POST \/api\/auth\/login captchaId$/, 'a one-use captcha challenge, answered before anyone is signed in'],
  [
    /^GET \/api\/ws lastEventId$/,
    'a WebSocket’s replay cursor, which injected requests cannot open; the replay reads the caller’s tenant only (realtime/hub.ts)',
  ],
  [
    /^(GET|POST) \/api\/drive\/public\/shares\/\{token\}(\/(password|nodes|content|preview|submissions))? token$/,
    'the link’s token is its only credential (decision 0017): whoever holds it opens the link, whatever their tenant; the nodes these name are swept with the caller’s own link',
  ],
  [/^GET \/api\/drive\/public\/s\/\{code\} code$/, 'a short link: a public redirect to its share link'],
  [
    /^(GET|POST) \/api\/notification-unsubscribe\/\{token\} token$/,
    'a signed unsubscribe link: its own credential, for people who are not signed in',
  ],
  [
    /^POST \/api\/public\/payment\/notify\/\{channel\} channel$/,
    'a payment channel’s name; the callback’s signature decides whose order it is',
  ],
  [/^GET \/api\/docs\/guides\/\{name\} name$/, 'a guide of the API reference, the same for everyone'],
  [
    /^GET \/api\/oauth2\/authorize\/client client_id$/,
    'public by design (decision 0033): the consent page learns a client’s name and tenant before sign-in',
  ],
  [
    /^POST \/api\/oauth2\/token(\/revoke|\/introspect)? client_id$/,
    'OAuth endpoints authenticate a client, not a tenant’s user; other tenants’ clients and tokens: test/open-platform/oauth-*.test.ts',
  ],
];

/** Rows that only narrow which of the caller's own rows an operation reads or acts on (beside every GET's query). */
const FILTERS: Exception[] = [
  [
    /^POST \/api\/export-jobs\/operation-logs userId$/,
    'the filters of GET /api/operation-logs: the export reads the caller’s tenant’s log',
  ],
  [
    /^POST \/api\/in-app-messages\/admin\/read-all userId$/,
    'marks read the messages of that user in the caller’s tenant: another tenant’s user has none there',
  ],
];

let t: TestApp;
let a: TenantResources;
let b: TenantResources;

beforeAll(async () => {
  t = await createTestApp({ extraRoutes: plantedRoutes });
  a = await buildTenantResources(t, await createTenant(t, 'tnt-alpha'));
  b = await buildTenantResources(t, await createTenant(t, 'tnt-bravo'));
  const platform = await platformRows(t);
  Object.assign(a.table, platform);
  Object.assign(b.table, platform);
}, 120_000);
afterAll(async () => t?.close());

const PLANTED = ' /api/test/planted/';
const sweep = (only: SweepOptions['only']) =>
  sweepTenants(t, {
    caller: b,
    owner: a,
    exceptions: EXCEPTIONS,
    filters: FILTERS,
    // a phone number the schema's pattern takes; a message's text where no template is named
    samples: { phone: '13800000000', title: 'sweep', content: 'sweep' },
    only,
    signIn: () => login(t.app, 'admin', USER_PASSWORD, b.tenant.code),
  });

describe('tenant isolation', () => {
  it('every operation refuses tenant A’s rows to tenant B’s administrator and changes nothing of A, or is excepted for a stated reason', async () => {
    const r = await sweep((op) => !op.includes(PLANTED));
    console.log(
      `tenant sweep: ${r.operations} operations — ${r.covered} swept in ${r.cases} cases, ` +
        `${r.excepted} excepted, ${r.namingNothing} naming no row`,
    );
    expect(r.failures).toEqual([]);
    expect(r.unusedExceptions, 'exceptions that no longer match a parameter: remove them').toEqual([]);
    expect(r.covered + r.excepted + r.namingNothing).toBe(r.operations);
  }, 240_000);
});

// The sweep is only worth what it catches: planted routes with the bugs it exists for, swept together.
describe('the tenant sweep catches', () => {
  let planted: SweepResult;
  beforeAll(async () => {
    planted = await sweep((op) => op.includes(PLANTED));
  });
  const failure = (pattern: RegExp) => planted.failures.filter((f) => pattern.test(f));

  it('a row read by a body id without the tenant filter', () => {
    expect(failure(/positions\/read/)).toEqual([
      expect.stringMatching(/^POST \/api\/test\/planted\/positions\/read with the owner's positionId → 200 acted on/),
    ]);
  });

  it('a write that answers 404 but changed the other tenant’s row', () => {
    expect(failure(/forget|error_groups/)).toEqual([
      "POST /api/test/planted/issues/forget with the owner's groupId: changed the owner's error_groups",
      "the owner's error_groups changed during the sweep",
    ]);
  });

  it('a list that shows every tenant’s rows', () => {
    expect(failure(/^GET \/api\/test\/planted\/positions /)).toEqual([
      expect.stringMatching(/^GET \/api\/test\/planted\/positions → 200 shows the owner's rows/),
    ]);
  });

  it('a parameter with neither a row of A’s nor a reason', () => {
    expect(failure(/widgets/)).toEqual([
      expect.stringMatching(/^GET \/api\/test\/planted\/widgets\/\{widgetId\}: no row/),
    ]);
  });

  it('a filter that finds nothing even for the caller’s own row, whose empty answer proves nothing', () => {
    expect(failure(/search/)).toEqual([
      "GET /api/test/planted/search with the owner's positionId: the caller's own finds nothing, so an empty answer proves nothing",
    ]);
  });

  it('nothing else', () => {
    expect(planted.failures).toHaveLength(6);
    expect(planted).toMatchObject({ operations: 5, covered: 3, cases: 3, namingNothing: 1, excepted: 0, unfilled: 1 });
  });
});

/** Routes with the bugs the sweep exists for; they read and write through raw SQL, as a careless repository would. */
function plantedRoutes(app: FastifyInstance) {
  const schema = { tags: ['Monitor'], summary: 'test only' };
  const rows = async (q: ReturnType<typeof sql>) =>
    ((await app.ctx.db.execute(q)) as unknown as { rows: { name: string }[] }).rows;
  route(app, {
    method: 'POST',
    url: '/api/test/planted/positions/read',
    operation: 'test.planted_position.read',
    errors: [404], // the id in the body names nothing of the caller's
    auth: 'user',
    schema: { ...schema, body: Type.Object({ positionId: Id }), response: Type.Object({ name: Type.String() }) },
    handler: async (req) => {
      const [row] = await rows(sql`SELECT name FROM positions WHERE id = ${req.body.positionId}`);
      if (!row) throw httpErrors.notFound('test.not_found', 'Position');
      return row;
    },
  });
  route(app, {
    method: 'POST',
    url: '/api/test/planted/issues/forget',
    operation: 'test.planted_issue.forget',
    errors: [404], // the id in the body names nothing of the caller's
    auth: 'user',
    schema: { ...schema, body: Type.Object({ groupId: Id }), response: Type.Null() },
    status: 204,
    handler: async (req) => {
      await app.ctx.db.execute(sql`DELETE FROM error_groups WHERE id = ${req.body.groupId}`);
      throw httpErrors.notFound('test.not_found', 'Issue');
    },
  });
  route(app, {
    method: 'GET',
    url: '/api/test/planted/positions',
    operation: 'test.planted_position.list',
    auth: 'user',
    schema: { ...schema, response: Type.Object({ list: Type.Array(Type.Object({ name: Type.String() })) }) },
    handler: async () => ({ list: await rows(sql`SELECT name FROM positions ORDER BY id`) }),
  });
  route(app, {
    method: 'GET',
    url: '/api/test/planted/search',
    operation: 'test.planted_position.search',
    auth: 'user',
    schema: {
      ...schema,
      querystring: Type.Object({ positionId: Id }),
      response: Type.Object({ list: Type.Array(Type.Object({ name: Type.String() })) }),
    },
    // ignores its filter's row and finds nothing: an empty answer for another tenant's row means nothing
    handler: async () => ({ list: [] }),
  });
  route(app, {
    method: 'GET',
    url: '/api/test/planted/widgets/:widgetId',
    operation: 'test.planted_widget.get',
    auth: 'user',
    schema: {
      ...schema,
      params: Type.Object({ widgetId: Id }),
      response: Type.Object({ ok: Type.Boolean() }),
    },
    handler: async () => {
      throw httpErrors.notFound('test.not_found', 'Widget');
    },
  });
}
