import type { LightMyRequestResponse } from 'fastify';
import { driveAccessRequests } from '../../src/modules/drive/tables.ts';
import { unsubscribeToken } from '../../src/modules/messaging/unsubscribe/token.ts';
import { paymentNotifyLogs } from '../../src/modules/payment/tables.ts';
import { createCollect } from '../drive/collect-helpers.ts';
import { file, folder } from '../drive/drive-fixtures.ts';
import { uploadFile } from '../files/files-helpers.ts';
import { emailLogRow } from '../messaging/email-helpers.ts';
import { messageRow } from '../messaging/inapp-helpers.ts';
import { smsLogRow } from '../messaging/sms-helpers.ts';
import { insertGroup } from '../monitor/issues-fixtures.ts';
import { sourceMapRow } from '../monitor/sourcemaps-helpers.ts';
import { deliveryRow } from '../open-platform/webhooks-helpers.ts';
import { taskRow } from '../tasks/tasks-helpers.ts';
import { ADMIN_PASSWORD, call, login, type TestApp } from './app.ts';
import { catalog } from './catalog.ts';
import type { GivenValues } from './fuzz-cases.ts';

/**
 * One real resource of every kind a documented path names, so a test can call each operation
 * with path values that exist (`PUT /api/users/{id}` reaches the user, not a 404): made in the
 * demo tenant by its administrator, platform resources (tenants, menus, cron jobs) by the
 * platform administrator. `valuesFor(path)` answers the values of a documented path's parameters.
 * Outbound URLs (webhooks) are `hookUrl`: a receiver of the test's own, in EGRESS_ALLOW_HOSTS.
 */
export type PathValues = Record<string, string>;
export type Resources = {
  valuesFor(path: string): PathValues | undefined;
  /** what a valid request of `METHOD path` needs beyond its document's samples (see fuzz-cases.ts GivenValues) */
  extrasFor(method: string, path: string): Omit<GivenValues, 'path'>;
};

/** The `data` of a successful answer; a fixture that could not be made stops the test, saying why. */
function succeeded(res: LightMyRequestResponse, what: string): Record<string, unknown> {
  if (res.statusCode >= 300) throw new Error(`fixture ${what}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

const inADay = () => new Date(Date.now() + 86_400_000).toISOString();

export async function createResources(t: TestApp, hookUrl: string): Promise<Resources> {
  const tenant = t.demoAdminToken;
  const platform = t.adminToken;
  const byPrefix: Record<string, PathValues> = {};
  const byPath: Record<string, PathValues> = {};
  const created = async (url: string, body: object, token = tenant, key = 'id'): Promise<number> =>
    succeeded(await call(t.app, 'POST', url, { token, body }), url)[key] as number;
  const set = (prefix: string, values: Record<string, string | number>) => {
    byPrefix[prefix] = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
  };
  const me = (await call(t.app, 'GET', '/api/auth/me', { token: tenant })).json().data.user.id as number;

  // identity and system
  const user = await created('/api/users', { username: 'fx-user', password: 'Fx-user#Pass2026', nickname: 'Fx' });
  set('/api/users', { id: user });
  set('/api/roles', { id: await created('/api/roles', { code: 'fx-role', name: 'Fx', permissions: [], menuIds: [] }) });
  set('/api/menus', {
    id: await created('/api/menus', { type: 'button', name: 'Fx button', permission: 'fx:button:use' }, platform),
  });
  const tenantBody = { code: 'fx-tenant', name: 'Fx', adminUsername: 'boss', adminPassword: ADMIN_PASSWORD };
  set('/api/tenants', { id: await created('/api/tenants', tenantBody, platform) });
  set('/api/departments', { id: await created('/api/departments', { name: 'Fx dept' }) });
  set('/api/positions', { id: await created('/api/positions', { code: 'fx-pos', name: 'Fx position' }) });
  set('/api/user-groups', { id: await created('/api/user-groups', { name: 'Fx group' }) });
  set('/api/members', { id: await created('/api/members', { nickname: 'Fx member' }) });
  // a session of another user, so ending it never ends the caller's
  await login(t.app, 'fx-user', 'Fx-user#Pass2026', 'demo');
  const sessions = (await call(t.app, 'GET', `/api/online-sessions?pageSize=200`, { token: tenant })).json().data;
  set('/api/online-sessions', { id: sessions.list.find((s: { userId: number }) => s.userId === user).id });
  const dictType = await created('/api/dict-types', { code: 'fx_type', name: 'Fx type' });
  set('/api/dict-types', { id: dictType, code: 'fx_type' });
  set('/api/dict-items', { id: await created('/api/dict-items', { typeId: dictType, label: 'Fx', value: 'fx' }) });
  const config = { key: 'fx.key', value: 'fx', name: 'Fx config' };
  set('/api/system-configs', { id: await created('/api/system-configs', config) });
  set('/api/system-configs/key', { key: config.key });
  set('/api/notices', { id: await created('/api/notices', { title: 'Fx notice', content: '<p>Fx</p>' }) });
  set('/api/settings', { module: 'security' });
  set('/api/docs/guides', { name: 'api-conventions.md' });
  const jobs = (await call(t.app, 'GET', '/api/cron-jobs?pageSize=1', { token: platform })).json().data.list;
  const job = { name: 'fx-job', handler: jobs[0].handler, cron: '0 3 * * *' };
  set('/api/cron-jobs', { id: await created('/api/cron-jobs', job, platform) });

  // files and tasks
  const uploaded = await uploadFile(t, tenant, {
    name: 'fx.txt',
    data: Buffer.from('fixture'),
    contentType: 'text/plain',
  });
  set('/api/files', { id: succeeded(uploaded, 'upload').id as number });
  set('/api/files/uploads', {
    id: await created('/api/files/uploads', { name: 'fx.bin', size: 10, chunkSize: 1024 }),
    index: 0,
  });
  set('/api/storage-configs', { id: await created('/api/storage-configs', { name: 'Fx disk', kind: 'local' }) });
  set('/api/tasks', { id: await taskRow(t, t.demoTenantId, me) });

  // messaging
  set('/api/in-app-messages', { id: await messageRow(t, t.demoTenantId, me, { title: 'Fx message' }) });
  set('/api/in-app-messages/admin', { id: await messageRow(t, t.demoTenantId, user, { title: 'Fx sent' }) });
  const tpl = { code: 'fx-tpl', title: 'Fx', content: 'Fx' };
  set('/api/in-app-templates', { id: await created('/api/in-app-templates', tpl) });
  const mail = { code: 'fx-mail', name: 'Fx', subject: 'Fx', content: '<p>Fx</p>' };
  set('/api/email-templates', { id: await created('/api/email-templates', mail) });
  set('/api/email-send-logs', { id: await emailLogRow(t, t.demoTenantId) });
  const sms = { name: 'Fx sms', provider: 'aliyun', accessKeyId: 'fx', accessKeySecret: 'fx', signName: 'Fx' };
  set('/api/sms-configs', { id: await created('/api/sms-configs', sms) });
  const smsTpl = { code: 'fx-sms', name: 'Fx', providerTemplateId: 'Fx' };
  set('/api/sms-templates', { id: await created('/api/sms-templates', smsTpl) });
  set('/api/sms-send-logs', { id: await smsLogRow(t, t.demoTenantId) });
  set('/api/push-devices', { id: await created('/api/push-devices', { platform: 'android', registrationId: 'fx' }) });
  const announcement = await created('/api/announcements', { title: 'Fx announcement', content: '<p>Fx</p>' });
  await call(t.app, 'POST', `/api/announcements/${announcement}/publish`, { token: tenant });
  set('/api/announcements', { id: announcement });
  const eventKey = catalog.all()[0]?.key ?? '';
  const unsubscribe = unsubscribeToken(t.app.ctx.secrets, {
    tenantId: t.demoTenantId,
    recipientKey: `u:${me}`,
    eventKey,
  });
  set('/api/notification-unsubscribe', { token: unsubscribe });

  // open platform
  const app = {
    name: 'Fx app',
    clientType: 'confidential',
    grantTypes: ['client_credentials'],
    redirectUris: [],
    allowedScopes: ['drive:read'],
  };
  const appId = await created('/api/open-platform/apps', app);
  set('/api/open-platform/apps', { id: appId });
  set('/api/open-platform/connected-apps', { id: appId });
  const webhook = await created('/api/open-platform/webhooks', { appId, url: `${hookUrl}/open`, events: ['*'] });
  set('/api/open-platform/webhooks', { id: webhook });
  set('/api/open-platform/webhook-deliveries', { id: await deliveryRow(t, t.demoTenantId, webhook) });

  // front-end errors
  set('/api/frontend-errors/groups', { id: await insertGroup(t, t.demoTenantId) });
  const site = { name: 'Fx site', allowedOrigins: ['https://fx.example.com'] };
  set('/api/frontend-errors/sites', { id: await created('/api/frontend-errors/sites', site) });
  set('/api/frontend-errors/source-maps', { id: await sourceMapRow(t, t.demoTenantId) });
  const rule = { name: 'Fx rule', condition: 'new_error' };
  set('/api/frontend-errors/alerts', { id: await created('/api/frontend-errors/alerts', rule) });

  const extras: Record<string, Omit<GivenValues, 'path'>> = {
    // a message is a template or a title and content (the document cannot say "one of")
    'POST /api/in-app-messages/send': { body: { title: 'Fx', content: 'Fx' } },
  };
  await driveResources(t, { tenant, user, set, byPath, created, extras });
  await paymentResources(t, hookUrl, { set, created });
  return {
    valuesFor(path) {
      const exact = byPath[path];
      if (exact) return exact;
      // the longest prefix before a parameter: `/api/drive/nodes/upload/{id}` before `/api/drive/nodes/{id}`
      const prefix = path.slice(0, path.indexOf('/{'));
      return byPrefix[prefix];
    },
    extrasFor: (method, path) => extras[`${method} ${path}`] ?? {},
  };
}

type Make = {
  set(prefix: string, values: Record<string, string | number>): void;
  created(url: string, body: object, token?: string, key?: string): Promise<number>;
};

/** A team space with a member, a folder holding a file with a grant, a lock-free hold, an access request, share and collection links, an upload session. */
async function driveResources(
  t: TestApp,
  {
    tenant,
    user,
    set,
    byPath,
    created,
    extras,
  }: Make & {
    tenant: string;
    user: number;
    byPath: Record<string, PathValues>;
    extras: Record<string, Omit<GivenValues, 'path'>>;
  },
) {
  const spaceId = await created('/api/drive/spaces', { type: 'team', name: 'Fx space' });
  const memberId = await created(`/api/drive/spaces/${spaceId}/members`, {
    subjectType: 'user',
    subjectId: user,
    role: 'viewer',
  });
  set('/api/drive/spaces', { id: spaceId, memberId });
  // a one-request upload names its space (or the file it versions) in the query
  extras['POST /api/drive/nodes/upload'] = { query: { spaceId: String(spaceId) } };
  const dir = await folder(t, t.demoTenantId, spaceId, null, 'Fx folder');
  const doc = await file(t, t.demoTenantId, spaceId, dir, 'fx.txt');
  const grant = { subjectType: 'user', subjectId: user, role: 'viewer' };
  const grantId = await created(`/api/drive/nodes/${doc.id}/permissions`, grant);
  set('/api/drive/nodes', { id: doc.id, versionId: doc.currentVersionId as number, grantId });
  set('/api/drive/admin/legal-holds', {
    id: await created('/api/drive/admin/legal-holds', { nodeId: dir.id, reason: 'Fx' }),
  });
  const [request] = await t.database.db
    .insert(driveAccessRequests)
    .values({ tenantId: t.demoTenantId, spaceId, nodeId: doc.id, requesterUserId: user, requestedRole: 'editor' })
    .returning();
  set('/api/drive/access-requests', { id: request?.id as number });
  const link = await call(t.app, 'POST', '/api/drive/share-links', {
    token: tenant,
    body: { nodeId: doc.id, expiresAt: inADay() },
  });
  const { id: linkId, token: linkToken } = link.json().data as { id: number; token: string };
  set('/api/drive/share-links', { id: linkId });
  set('/api/drive/public/shares', { token: linkToken });
  const short = await call(t.app, 'POST', `/api/drive/share-links/${linkId}/short-link`, { token: tenant });
  set('/api/drive/public/s', { code: String(short.json().data.shortUrl).split('/').pop() as string });
  const collect = await createCollect(t, tenant, dir.id);
  byPath['/api/drive/share-links/{id}/submissions'] = { id: String(collect.id) };
  byPath['/api/drive/public/shares/{token}/submissions'] = { token: collect.token };
  set('/api/drive/nodes/upload', {
    id: await created(
      '/api/drive/nodes/upload/init',
      { spaceId, name: 'fx.bin', size: 10, chunkSize: 1024 },
      tenant,
      'sessionId',
    ),
  });
}

/** A sandbox configuration, a paid order with a refund, their outbox event, a callback log, a payment webhook and a delivery. */
async function paymentResources(t: TestApp, hookUrl: string, { set, created }: Make) {
  set('/api/payment/channel-configs', {
    id: await created('/api/payment/channel-configs', { channel: 'sandbox', name: 'Fx sandbox' }),
  });
  const order = await created('/api/payment/orders', {
    orderNo: 'FX-1',
    amount: 1000,
    channel: 'sandbox',
    subject: 'Fx',
  });
  set('/api/payment/orders', { id: order });
  await call(t.app, 'POST', `/api/payment/orders/${order}/sandbox/pay`, { token: t.demoAdminToken });
  set('/api/payment/refunds', { id: await created(`/api/payment/orders/${order}/refunds`, { amount: 100 }) });
  const events = await call(t.app, 'GET', '/api/payment/ops/events', { token: t.demoAdminToken });
  set('/api/payment/ops/events', { id: events.json().data.list[0].id });
  const [log] = await t.database.db
    .insert(paymentNotifyLogs)
    .values({
      tenantId: t.demoTenantId,
      channel: 'channel_b',
      rawBody: 'a=1',
      headers: {},
      signatureValid: true,
      result: 'applied',
    })
    .returning();
  set('/api/payment/notify-logs', { id: log?.id as number });
  const hook = await created('/api/payment/webhooks', { url: `${hookUrl}/payment`, events: ['payment.*'] });
  set('/api/payment/webhooks', { id: hook });
  set('/api/payment/webhooks/deliveries', { id: await deliveryRow(t, t.demoTenantId, hook, 'payment.succeeded') });
  set('/api/public/payment/notify', { channel: 'channel_b' });
}
