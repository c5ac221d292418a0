import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveAccessRequests } from '../../src/modules/drive/tables.ts';
import { paymentNotifyLogs } from '../../src/modules/payment/tables.ts';
import { file, folder } from '../drive/drive-fixtures.ts';
import { managedFileRow } from '../files/files-helpers.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { sampleOf } from '../helpers/sample-body.ts';
import { emailLogRow } from '../messaging/email-helpers.ts';
import { messageRow } from '../messaging/inapp-helpers.ts';
import { smsLogRow } from '../messaging/sms-helpers.ts';
import { insertGroup } from '../monitor/issues-fixtures.ts';
import { sourceMapRow } from '../monitor/sourcemaps-helpers.ts';
import { deliveryRow, insertApp } from '../open-platform/webhooks-helpers.ts';
import { taskRow } from '../tasks/tasks-helpers.ts';

/**
 * Walks every operation whose path takes an `{id}` and calls it as tenant A's administrator
 * (who holds every tenant permission) with an id that belongs to tenant B. Each must answer
 * 404 (or 403 for platform-only resources) and tenant B's data must be byte-for-byte unchanged.
 * A new route with an id fails this test until its resource is added to `ownerOf` below.
 */
let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
const idsOfB = new Map<string, number>();
/** ids of B's rows under another of B's rows (`/api/drive/spaces/{id}/members/{memberId}`) */
const nestedOfB: Record<string, number> = {};

type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> } }>>;
};

async function createInB(url: string, body: object): Promise<number> {
  const res = await call(t.app, 'POST', url, { token: b.adminToken, body });
  if (res.statusCode >= 300) throw new Error(`setup POST ${url} failed: ${res.body}`);
  return res.json().data.id;
}

async function rowsOf(query: ReturnType<typeof sql>): Promise<Record<string, unknown>[]> {
  return ((await t.database.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows;
}

async function snapshotOfB(): Promise<string> {
  const tables = (await rowsOf(sql`
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'tenant_id' ORDER BY table_name`)) as { table_name: string }[];
  const out: Record<string, unknown> = {};
  for (const { table_name } of tables) {
    out[table_name] = await rowsOf(
      sql`SELECT * FROM ${sql.identifier(table_name)} WHERE tenant_id = ${b.tenantId} ORDER BY 1`,
    );
  }
  for (const link of ['user_roles', 'role_menus', 'user_positions', 'user_group_members']) {
    out[link] = await rowsOf(sql`SELECT * FROM ${sql.identifier(link)} ORDER BY 1, 2`);
  }
  return JSON.stringify(out);
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t, 'tenant-a');
  b = await createTenant(t, 'tenant-b');
  const dept = await createInB('/api/departments', { name: 'B dept' });
  const position = await createInB('/api/positions', { code: 'b-pos', name: 'B position' });
  const role = await createInB('/api/roles', { code: 'b-role', name: 'B role', permissions: [], menuIds: [] });
  idsOfB.set('/api/departments', dept);
  idsOfB.set('/api/positions', position);
  idsOfB.set('/api/roles', role);
  idsOfB.set(
    '/api/users',
    await createInB('/api/users', { username: 'b-user', password: 'B-user#Pass2026', nickname: 'B user' }),
  );
  idsOfB.set('/api/user-groups', await createInB('/api/user-groups', { name: 'B group' }));
  idsOfB.set('/api/members', await createInB('/api/members', { nickname: 'B member' }));
  const dictType = await createInB('/api/dict-types', { code: 'b_type', name: 'B type' });
  idsOfB.set('/api/dict-types', dictType);
  idsOfB.set('/api/dict-items', await createInB('/api/dict-items', { typeId: dictType, label: 'B', value: 'b' }));
  idsOfB.set(
    '/api/system-configs',
    await createInB('/api/system-configs', { key: 'b.key', value: 'b', name: 'B config' }),
  );
  idsOfB.set('/api/notices', await createInB('/api/notices', { title: 'B notice', content: '<p>B</p>' }));
  const inAppMessage = await messageRow(t, b.tenantId, b.adminUserId, { title: 'B message' });
  idsOfB.set('/api/in-app-messages', inAppMessage);
  idsOfB.set('/api/in-app-messages/admin', inAppMessage);
  idsOfB.set(
    '/api/in-app-templates',
    await createInB('/api/in-app-templates', { code: 'b-tpl', title: 'B', content: 'B' }),
  );
  // published to all of B, so "visible to every user of its tenant" is what A must still not reach
  const announcement = await createInB('/api/announcements', { title: 'B announcement', content: '<p>B</p>' });
  await call(t.app, 'POST', `/api/announcements/${announcement}/publish`, { token: b.adminToken });
  idsOfB.set('/api/announcements', announcement);
  idsOfB.set('/api/files', await managedFileRow(t, b.tenantId));
  idsOfB.set('/api/tasks', await taskRow(t, b.tenantId, b.adminUserId));
  idsOfB.set('/api/storage-configs', await createInB('/api/storage-configs', { name: 'B disk', kind: 'local' }));
  idsOfB.set('/api/files/uploads', await createInB('/api/files/uploads', { name: 'b.pdf', size: 10, chunkSize: 1024 }));
  const smsConfig = { name: 'B sms', provider: 'aliyun', accessKeyId: 'b', accessKeySecret: 'b', signName: 'B' };
  idsOfB.set('/api/sms-configs', await createInB('/api/sms-configs', smsConfig));
  const smsTemplate = { code: 'b-sms', name: 'B', providerTemplateId: 'B' };
  idsOfB.set('/api/sms-templates', await createInB('/api/sms-templates', smsTemplate));
  idsOfB.set('/api/sms-send-logs', await smsLogRow(t, b.tenantId));
  idsOfB.set(
    '/api/email-templates',
    await createInB('/api/email-templates', { code: 'b-mail', name: 'B', subject: 'B', content: '<p>B</p>' }),
  );
  idsOfB.set('/api/email-send-logs', await emailLogRow(t, b.tenantId));
  const device = { platform: 'android', registrationId: 'b-device' };
  idsOfB.set('/api/push-devices', await createInB('/api/push-devices', device));
  const openApp = {
    name: 'B app',
    clientType: 'confidential',
    grantTypes: ['client_credentials'],
    redirectUris: [],
    allowedScopes: ['drive:read'],
  };
  const bApp = await createInB('/api/open-platform/apps', openApp);
  idsOfB.set('/api/open-platform/apps', bApp);
  // A's administrator has no consent for B's application: disconnecting it must find nothing
  idsOfB.set('/api/open-platform/connected-apps', bApp);
  // a public IP literal: the URL passes the egress check without DNS; nothing is ever sent to it
  const webhook = { appId: await insertApp(t, b.tenantId), url: 'https://93.184.215.14/b-hook', events: ['*'] };
  const subscription = await createInB('/api/open-platform/webhooks', webhook);
  idsOfB.set('/api/open-platform/webhooks', subscription);
  idsOfB.set('/api/open-platform/webhook-deliveries', await deliveryRow(t, b.tenantId, subscription));
  idsOfB.set('/api/frontend-errors/groups', await insertGroup(t, b.tenantId));
  idsOfB.set(
    '/api/frontend-errors/sites',
    await createInB('/api/frontend-errors/sites', { name: 'B site', allowedOrigins: ['https://b.example.com'] }),
  );
  idsOfB.set('/api/frontend-errors/source-maps', await sourceMapRow(t, b.tenantId));
  idsOfB.set(
    '/api/frontend-errors/alerts',
    await createInB('/api/frontend-errors/alerts', { name: 'B rule', condition: 'new_error' }),
  );
  const sessions = await call(t.app, 'GET', '/api/online-sessions', { token: b.adminToken });
  idsOfB.set('/api/online-sessions', sessions.json().data.list[0].id);
  await driveRowsOfB();
  await paymentRowsOfB();
});

/** B's payments: a sandbox configuration, a paid order with a partial refund, their outbox events, a payment webhook and a delivery. */
async function paymentRowsOfB() {
  idsOfB.set(
    '/api/payment/channel-configs',
    await createInB('/api/payment/channel-configs', { channel: 'sandbox', name: 'B sandbox' }),
  );
  const order = await createInB('/api/payment/orders', {
    orderNo: 'B-1',
    amount: 1000,
    channel: 'sandbox',
    subject: 'B',
  });
  idsOfB.set('/api/payment/orders', order);
  await call(t.app, 'POST', `/api/payment/orders/${order}/sandbox/pay`, { token: b.adminToken });
  idsOfB.set('/api/payment/refunds', await createInB(`/api/payment/orders/${order}/refunds`, { amount: 100 }));
  const events = await call(t.app, 'GET', '/api/payment/ops/events', { token: b.adminToken });
  idsOfB.set('/api/payment/ops/events', events.json().data.list[0].id);
  const [log] = await t.database.db
    .insert(paymentNotifyLogs)
    .values({
      tenantId: b.tenantId,
      channel: 'channel_b',
      rawBody: 'a=1',
      headers: {},
      signatureValid: true,
      result: 'applied',
    })
    .returning();
  idsOfB.set('/api/payment/notify-logs', log?.id as number);
  // subscribed after the payment, so nothing is sent; the delivery is written as a finished one
  const hook = await createInB('/api/payment/webhooks', { url: 'https://93.184.215.14/b-pay', events: ['payment.*'] });
  idsOfB.set('/api/payment/webhooks', hook);
  idsOfB.set('/api/payment/webhooks/deliveries', await deliveryRow(t, b.tenantId, hook, 'payment.succeeded'));
}

/** B's drive: a team space with a member, a folder holding a file with a grant, a hold, an access request and a share link, an upload session. */
async function driveRowsOfB() {
  const bUser = idsOfB.get('/api/users') as number;
  const spaceId = await createInB('/api/drive/spaces', { type: 'team', name: 'B space' });
  idsOfB.set('/api/drive/spaces', spaceId);
  nestedOfB.memberId = await createInB(`/api/drive/spaces/${spaceId}/members`, {
    subjectType: 'user',
    subjectId: bUser,
    role: 'viewer',
  });
  const dir = await folder(t, b.tenantId, spaceId, null, 'B folder');
  const doc = await file(t, b.tenantId, spaceId, dir, 'b.txt');
  idsOfB.set('/api/drive/nodes', doc.id);
  nestedOfB.versionId = doc.currentVersionId as number;
  nestedOfB.grantId = await createInB(`/api/drive/nodes/${doc.id}/permissions`, {
    subjectType: 'user',
    subjectId: bUser,
    role: 'viewer',
  });
  idsOfB.set(
    '/api/drive/admin/legal-holds',
    await createInB('/api/drive/admin/legal-holds', { nodeId: dir.id, reason: 'B' }),
  );
  const [request] = await t.database.db
    .insert(driveAccessRequests)
    .values({ tenantId: b.tenantId, spaceId, nodeId: doc.id, requesterUserId: bUser, requestedRole: 'editor' })
    .returning();
  idsOfB.set('/api/drive/access-requests', request?.id as number);
  idsOfB.set(
    '/api/drive/share-links',
    await createInB('/api/drive/share-links', {
      nodeId: doc.id,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    }),
  );
  const init = { spaceId, name: 'b.bin', size: 10, chunkSize: 1024 };
  const session = await call(t.app, 'POST', '/api/drive/nodes/upload/init', { token: b.adminToken, body: init });
  if (session.statusCode >= 300) throw new Error(`setup drive upload init failed: ${session.body}`);
  idsOfB.set('/api/drive/nodes/upload', session.json().data.sessionId);
}
afterAll(async () => t?.close());

/**
 * Platform-wide resources hold no tenant rows: tenants are refused to a tenant administrator
 * outright; the menu tree may be read (roles bind its nodes) but never changed.
 */
const platformOnly = ['/api/tenants', '/api/menus', '/api/cron-jobs'];
const readableByTenants = ['/api/menus'];

function ownerOf(path: string): string {
  return path.slice(0, path.indexOf('/{id}'));
}

describe('tenant isolation', () => {
  it('every operation with an {id} refuses tenant B’s rows to tenant A and writes nothing', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json() as Doc;
    const before = await snapshotOfB();
    const walked: string[] = [];
    const failures: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.includes('{id}')) continue;
      const owner = ownerOf(path);
      const platform = platformOnly.includes(owner);
      const id = idsOfB.get(owner);
      if (!platform && id === undefined) {
        failures.push(`${path}: no tenant-B fixture for ${owner} — add one to this test`);
        continue;
      }
      for (const [method, op] of Object.entries(ops)) {
        const url = path
          .replace('{id}', String(id ?? 1))
          .replace('{index}', '0')
          .replace(/\{(\w+)\}/g, (_, name: string) => String(nestedOfB[name] ?? 1));
        const schema = op.requestBody?.content['application/json']?.schema;
        const res = await call(t.app, method.toUpperCase() as 'GET', url, {
          token: a.adminToken,
          ...(schema ? { body: sampleOf(schema) as object } : {}),
        });
        walked.push(`${method.toUpperCase()} ${path}`);
        const expected = !platform ? 404 : method === 'get' && readableByTenants.includes(owner) ? 200 : 403;
        if (res.statusCode !== expected)
          failures.push(`${method.toUpperCase()} ${url} → ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(walked.length).toBeGreaterThan(20);
    expect(await snapshotOfB()).toBe(before);
  });

  it('lists show only the caller’s tenant', async () => {
    for (const url of [
      '/api/users',
      '/api/roles',
      '/api/positions',
      '/api/members',
      '/api/notices',
      '/api/dict-types',
      '/api/system-configs',
      '/api/in-app-messages/admin',
      '/api/in-app-templates',
      '/api/frontend-errors/groups',
      '/api/payment/webhooks',
      '/api/payment/webhooks/deliveries',
    ]) {
      const res = await call(t.app, 'GET', url, { token: a.adminToken });
      expect(res.statusCode, url).toBe(200);
      const ids = (res.json().data.list as { id: number }[]).map((r) => r.id);
      expect(ids, url).not.toContain(idsOfB.get(url));
    }
  });
});
