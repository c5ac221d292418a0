import { eq } from 'drizzle-orm';
import { driveAccessRequests } from '../../src/modules/drive/tables.ts';
import { notificationDispatches, notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { pushSendLogs } from '../../src/modules/messaging/push/tables.ts';
import { errorAlertLogs } from '../../src/modules/monitor/alerts/tables.ts';
import { openWebhookDeliveries } from '../../src/modules/open-platform/webhooks/tables.ts';
import { paymentNotifyLogs } from '../../src/modules/payment/tables.ts';
import { file, folder } from '../drive/drive-fixtures.ts';
import { uploadFile } from '../files/files-helpers.ts';
import { call, type TestApp } from '../helpers/app.ts';
import type { TenantFixture } from '../helpers/fixtures.ts';
import { emailLogRow } from '../messaging/email-helpers.ts';
import { messageRow } from '../messaging/inapp-helpers.ts';
import { smsLogRow } from '../messaging/sms-helpers.ts';
import { insertEvent, insertGroup } from '../monitor/issues-fixtures.ts';
import { sourceMapRow } from '../monitor/sourcemaps-helpers.ts';
import { deliveryRow, insertApp } from '../open-platform/webhooks-helpers.ts';
import { waitForTask } from '../tasks/tasks-helpers.ts';

/**
 * One tenant's real rows of every resource the API can name, and the table that maps a parameter
 * name to them (the tenant sweep, tenant-isolation.test.ts). Every text the rows hold carries the
 * tenant's `mark`, so an answer that shows one of its rows to another tenant can be recognised.
 *
 * Keys are `name`, `<path prefix> name` or `<METHOD> <path prefix> name`; the longest prefix of
 * the operation's path wins (`/api/sms-templates configId` is an SMS configuration,
 * `/api/payment configId` a payment channel's). A plural (`ids`, `roleIds`) not in the table is
 * the list of its singular's value. Each entry lists alternatives, each swept on its own: `with`
 * gives the parameters that say what the value is (`subjectType: 'department'`); `shared` marks a
 * name every tenant has (a settings module) or a platform row every tenant may read (a menu):
 * success is right as long as nothing of this tenant shows or changes.
 */
export type Alternative = { value: unknown; with?: Record<string, unknown>; shared?: true };
export type ValueTable = Record<string, Alternative[]>;
export type TenantResources = { tenant: TenantFixture; mark: string; table: ValueTable };

const one = (value: unknown): Alternative[] => [{ value }];

export async function buildTenantResources(t: TestApp, tenant: TenantFixture): Promise<TenantResources> {
  const mark = tenant.code;
  const create = async (url: string, body: object): Promise<{ id: number } & Record<string, unknown>> => {
    const res = await call(t.app, 'POST', url, { token: tenant.adminToken, body });
    if (res.statusCode >= 300) throw new Error(`setup POST ${url} for ${mark} failed: ${res.body}`);
    return res.json().data;
  };
  const id = async (url: string, body: object) => (await create(url, body)).id;

  const dept = await id('/api/departments', { name: `${mark} dept` });
  const position = await id('/api/positions', { code: `${mark}-pos`, name: `${mark} position` });
  const role = await id('/api/roles', { code: `${mark}-role`, name: `${mark} role`, permissions: [], menuIds: [] });
  const user = await id('/api/users', {
    username: `${mark}-user`,
    password: 'Sweep-user#Pass2026',
    nickname: `${mark} user`,
    departmentId: dept,
    roleIds: [role],
    positionIds: [position],
  });
  const group = await id('/api/user-groups', { name: `${mark} group` });
  const groupMembers = await call(t.app, 'PUT', `/api/user-groups/${group}/members`, {
    token: tenant.adminToken,
    body: { userIds: [user] },
  });
  if (groupMembers.statusCode !== 200) throw new Error(`setup group members failed: ${groupMembers.body}`);
  const member = await id('/api/members', { nickname: `${mark} member` });
  const dictType = await create('/api/dict-types', { code: `${mark.replace(/-/g, '_')}_type`, name: `${mark} type` });
  const dictItem = await id('/api/dict-items', { typeId: dictType.id, label: `${mark} item`, value: `${mark}-item` });
  const config = await create('/api/system-configs', { key: `${mark}.key`, value: mark, name: `${mark} config` });
  const notice = await id('/api/notices', { title: `${mark} notice`, content: `<p>${mark}</p>` });
  await call(t.app, 'POST', `/api/notices/${notice}/publish`, { token: tenant.adminToken });
  const inAppMessage = await messageRow(t, tenant.tenantId, tenant.adminUserId, { title: `${mark} message` });
  const inAppTemplate = await id('/api/in-app-templates', { code: `${mark}-tpl`, title: mark, content: mark });
  // published to all of the tenant: "visible to every user of its tenant" is what another must still not reach
  const published = await id('/api/announcements', { title: `${mark} announcement`, content: `<p>${mark}</p>` });
  await call(t.app, 'POST', `/api/announcements/${published}/publish`, { token: tenant.adminToken });
  // a draft can still be edited: the caller's own, beside another tenant's targets, reaches their check
  const draft = await id('/api/announcements', { title: `${mark} draft`, content: `<p>${mark}</p>` });
  const smsConfig = await id('/api/sms-configs', {
    name: `${mark} sms`,
    provider: 'aliyun',
    accessKeyId: mark,
    accessKeySecret: mark,
    signName: mark,
  });
  const smsTemplate = await id('/api/sms-templates', {
    code: `${mark}-sms`,
    name: mark,
    configId: smsConfig,
    providerTemplateId: mark,
  });
  const emailTemplate = await id('/api/email-templates', {
    code: `${mark}-mail`,
    name: mark,
    subject: mark,
    content: `<p>${mark}</p>`,
  });
  const device = await id('/api/push-devices', { platform: 'android', registrationId: `${mark}-device` });
  const redirect = `https://${mark}.example.com/callback`;
  const app = await create('/api/open-platform/apps', {
    name: `${mark} app`,
    clientType: 'confidential',
    grantTypes: ['client_credentials', 'authorization_code'],
    redirectUris: [redirect],
    allowedScopes: ['drive:read'],
  });
  // what an authorization request carries beside its client (RFC 6749 §4.1.1, RFC 7636 §4.3)
  const authorization = {
    redirect_uri: redirect,
    response_type: 'code',
    scope: 'drive:read',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  const uploaded = await uploadFile(t, tenant.adminToken, {
    name: `${mark}.txt`,
    data: Buffer.from(mark),
    contentType: 'text/plain',
  });
  if (uploaded.statusCode >= 300) throw new Error(`setup file upload failed: ${uploaded.body}`);
  // a real export, finished: its result is a file of the tenant
  const task = await id('/api/export-jobs/operation-logs', {});
  const finished = await waitForTask(t, tenant.adminToken, task);
  if (finished.status !== 'succeeded') throw new Error(`setup export ${finished.status}: ${finished.error}`);
  const hookApp = await insertApp(t, tenant.tenantId, { name: `${mark} hook app` });
  // a public IP literal: the URL passes the egress check without DNS; nothing is ever sent to it
  const subscription = await id('/api/open-platform/webhooks', {
    appId: hookApp,
    url: 'https://93.184.215.14/hook',
    events: ['*'],
    description: mark,
  });
  const delivery = await deliveryRow(t, tenant.tenantId, subscription);
  const site = await id('/api/frontend-errors/sites', {
    name: `${mark} site`,
    allowedOrigins: [`https://${mark}.example.com`],
  });
  const alert = await id('/api/frontend-errors/alerts', { name: `${mark} rule`, condition: 'new_error' });
  const sessions = await call(t.app, 'GET', '/api/online-sessions', { token: tenant.adminToken });
  const { outbox, issue } = await logRows(t, tenant, member, alert);
  const settings = await call(t.app, 'PUT', '/api/settings/monitor', {
    token: tenant.adminToken,
    body: { errorIgnorePatterns: [mark] },
  });
  if (settings.statusCode !== 200) throw new Error(`setup settings failed: ${settings.body}`);

  const table: ValueTable = {
    '/api/users id': one(user),
    // the administrator: the one with sign-ins, operations, messages and sends to be found by it
    userId: one(tenant.adminUserId),
    headUserId: one(user),
    assigneeId: one(user),
    recipientId: [
      { value: tenant.adminUserId, with: { recipientType: 'user' } },
      { value: member, with: { recipientType: 'member' } },
    ],
    subjectId: [
      { value: user, with: { subjectType: 'user' } },
      { value: dept, with: { subjectType: 'department' } },
      { value: role, with: { subjectType: 'role' } },
      { value: group, with: { subjectType: 'group' } },
    ],
    '/api/announcements targets': [
      { value: [{ type: 'user', id: user }], with: { targetType: 'targeted' } },
      { value: [{ type: 'role', id: role }], with: { targetType: 'targeted' } },
      { value: [{ type: 'dept', id: dept }], with: { targetType: 'targeted' } },
    ],
    '/api/departments id': one(dept),
    departmentId: one(dept),
    '/api/drive/spaces departmentId': [{ value: dept, with: { type: 'department' } }],
    '/api/departments parentId': one(dept),
    '/api/positions id': one(position),
    positionId: one(position),
    '/api/roles id': one(role),
    roleId: one(role),
    '/api/user-groups id': one(group),
    '/api/members id': one(member),
    '/api/dict-types id': one(dictType.id),
    typeId: one(dictType.id),
    '/api/dict-types code': one(dictType.code),
    '/api/dict-items id': one(dictItem),
    '/api/system-configs id': one(config.id),
    '/api/system-configs key': one(config.key),
    '/api/notices id': one(notice),
    '/api/in-app-messages id': one(inAppMessage),
    '/api/in-app-templates id': one(inAppTemplate),
    '/api/in-app-messages templateId': one(inAppTemplate),
    '/api/announcements id': one(published),
    'PUT /api/announcements/{id} id': one(draft),
    '/api/files id': one(uploaded.json().data.id),
    '/api/files/uploads id': one(await id('/api/files/uploads', { name: `${mark}.pdf`, size: 10, chunkSize: 1024 })),
    '/api/tasks id': one(task),
    '/api/storage-configs id': one(await id('/api/storage-configs', { name: `${mark} disk`, kind: 'local' })),
    '/api/sms-configs id': one(smsConfig),
    '/api/sms-templates configId': one(smsConfig),
    '/api/sms-templates id': one(smsTemplate),
    '/api/sms-send-logs templateId': one(smsTemplate),
    '/api/sms-send-logs id': one(await smsLogRow(t, tenant.tenantId)),
    '/api/email-templates id': one(emailTemplate),
    '/api/email-send-logs templateId': one(emailTemplate),
    '/api/email-send-logs id': one(await emailLogRow(t, tenant.tenantId)),
    '/api/push-devices id': one(device),
    '/api/open-platform/apps id': one(app.id),
    // the tenant's administrator holds no consent to another tenant's application
    '/api/open-platform/connected-apps id': one(app.id),
    client_id: [{ value: app.clientId, with: authorization }],
    appId: one(hookApp),
    '/api/open-platform/webhooks id': one(subscription),
    '/api/open-platform subscriptionId': one(subscription),
    '/api/open-platform/webhook-deliveries id': one(delivery),
    '/api/open-platform eventId': one(await eventIdOf(t, delivery)),
    '/api/frontend-errors/groups id': one(await insertGroup(t, tenant.tenantId, { message: `${mark} error` })),
    groupId: one(issue),
    '/api/frontend-errors/sites id': one(site),
    '/api/frontend-errors/source-maps id': one(await sourceMapRow(t, tenant.tenantId, `${mark}@1.0.0`)),
    '/api/frontend-errors/alerts id': one(alert),
    ruleId: one(alert),
    '/api/online-sessions id': one(sessions.json().data.list[0].id),
    '/api/settings module': [{ value: 'monitor', shared: true }],
    outboxId: one(outbox),
    ...(await driveRows(t, tenant, create, user)),
    ...(await paymentRows(t, tenant, create)),
  };
  return { tenant, mark, table };
}

/**
 * Rows the filters of logs find: a notification sent to the administrator and to a member (its
 * outbox row done and its push logged), an issue with an event, and an alert rule's firing.
 */
async function logRows(t: TestApp, tenant: TenantFixture, member: number, rule: number) {
  const db = t.database.db;
  const tenantId = tenant.tenantId;
  const eventKey = 'system.notice.published';
  // done already: the dispatcher has nothing to pick up while the sweep runs
  const [outbox] = await db
    .insert(notificationOutbox)
    .values({ tenantId, eventKey, input: { recipients: [], variables: {} }, status: 'done' })
    .returning();
  const contact = { name: tenant.code, email: null, phone: null, address: null };
  await db.insert(notificationDispatches).values(
    [
      ['user', tenant.adminUserId, `u:${tenant.adminUserId}`],
      ['member', member, `m:${member}`],
    ].map(([recipientType, recipientId, recipientKey]) => ({
      tenantId,
      outboxId: outbox?.id as number,
      eventKey,
      channel: 'push' as const,
      recipientType: recipientType as 'user',
      recipientId: recipientId as number,
      recipientKey: recipientKey as string,
      contact,
      decision: 'sent' as const,
    })),
  );
  await db.insert(pushSendLogs).values({
    tenantId,
    eventKey,
    userId: tenant.adminUserId,
    registrationIds: [`${tenant.code}-device`],
    status: 'sent',
  });
  const issue = await insertGroup(t, tenantId, { message: `${tenant.code} other error` });
  await insertEvent(t, { id: issue, tenantId }, new Date(), { message: `${tenant.code} other error` });
  await db
    .insert(errorAlertLogs)
    .values({ tenantId, ruleId: rule, ruleSnapshot: { name: tenant.code }, hits: {}, channels: {} });
  return { outbox: outbox?.id, issue };
}

type Create = (url: string, body: object) => Promise<{ id: number } & Record<string, unknown>>;

async function eventIdOf(t: TestApp, deliveryId: number): Promise<string> {
  const [row] = await t.database.db
    .select({ eventId: openWebhookDeliveries.eventId })
    .from(openWebhookDeliveries)
    .where(eq(openWebhookDeliveries.id, deliveryId));
  return row?.eventId as string;
}

/**
 * The drive: a team space with a member, a folder holding a file with a grant, a hold, an access
 * request, a share link (downloads and saves allowed, so a visitor's request reaches the node it
 * names) with a short link, a collection link, an upload session, and a file in the recycle bin.
 */
async function driveRows(t: TestApp, tenant: TenantFixture, create: Create, user: number): Promise<ValueTable> {
  const mark = tenant.code;
  const token = tenant.adminToken;
  const space = await create('/api/drive/spaces', { type: 'team', name: `${mark} space` });
  const dir = await folder(t, tenant.tenantId, space.id, null, `${mark} folder`);
  const doc = await file(t, tenant.tenantId, space.id, dir, `${mark}.txt`, `content of ${mark}`);
  const trashed = await file(t, tenant.tenantId, space.id, dir, `${mark}-trashed.txt`, `trashed ${mark}`);
  const trash = await call(t.app, 'DELETE', '/api/drive/nodes/batch', { token, body: { ids: [trashed.id] } });
  if (trash.statusCode !== 200) throw new Error(`setup drive trash failed: ${trash.body}`);
  const member = await create(`/api/drive/spaces/${space.id}/members`, {
    subjectType: 'user',
    subjectId: user,
    role: 'viewer',
  });
  const grant = await create(`/api/drive/nodes/${doc.id}/permissions`, {
    subjectType: 'user',
    subjectId: user,
    role: 'viewer',
  });
  const hold = await create('/api/drive/admin/legal-holds', { nodeId: dir.id, reason: mark });
  const [request] = await t.database.db
    .insert(driveAccessRequests)
    .values({
      tenantId: tenant.tenantId,
      spaceId: space.id,
      nodeId: doc.id,
      requesterUserId: user,
      requestedRole: 'editor',
    })
    .returning();
  const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
  const link = await create('/api/drive/share-links', {
    nodeId: dir.id,
    title: `${mark} link`,
    capabilities: ['preview', 'download', 'save'],
    expiresAt,
  });
  const collect = await create('/api/drive/share-links', {
    nodeId: dir.id,
    kind: 'collect',
    title: `${mark} inbox`,
    expiresAt,
  });
  const short = await call(t.app, 'POST', `/api/drive/share-links/${link.id}/short-link`, { token });
  if (short.statusCode !== 200) throw new Error(`setup short link failed: ${short.body}`);
  const upload = { spaceId: space.id, parentId: dir.id, name: `${mark}.bin`, size: 10, chunkSize: 1024 };
  const session = await call(t.app, 'POST', '/api/drive/nodes/upload/init', { token, body: upload });
  if (session.statusCode >= 300) throw new Error(`setup drive upload init failed: ${session.body}`);
  const sessionId = session.json().data.sessionId;
  return {
    '/api/drive/spaces id': one(space.id),
    spaceId: one(space.id),
    // into the space's root: a target folder would be the caller's own, in another space
    targetSpaceId: [{ value: space.id, with: { targetParentId: null } }],
    memberId: one(member.id),
    '/api/drive/nodes id': one(doc.id),
    // a folder where the operation names a place, the file where it names what is opened or moved
    '/api/drive parentId': one(dir.id),
    targetParentId: one(dir.id),
    nodeId: one(doc.id),
    '/api/drive/nodes/recycle ids': one([trashed.id]),
    versionId: one(doc.currentVersionId),
    grantId: one(grant.id),
    '/api/drive/admin/legal-holds id': one(hold.id),
    '/api/drive/access-requests id': one(request?.id),
    '/api/drive/share-links id': one(link.id),
    '/api/drive/share-links/{id}/submissions id': one(collect.id),
    '/api/drive/public/shares token': one(link.token),
    '/api/drive/public/s code': one(String(short.json().data.shortUrl).split('/').pop()),
    '/api/drive/nodes/upload id': one(sessionId),
    '/api/drive/nodes/upload sessionId': one(sessionId),
  };
}

/**
 * Payments: a sandbox configuration, a paid order with a partial refund, their outbox events, a
 * notification log, a payment webhook and a delivery.
 */
async function paymentRows(t: TestApp, tenant: TenantFixture, create: Create): Promise<ValueTable> {
  const mark = tenant.code;
  const token = tenant.adminToken;
  const channelConfig = await create('/api/payment/channel-configs', { channel: 'sandbox', name: `${mark} sandbox` });
  const order = await create('/api/payment/orders', {
    orderNo: `${mark}-1`,
    amount: 1000,
    channel: 'sandbox',
    configId: channelConfig.id,
    subject: mark,
  });
  const paid = await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay`, { token });
  if (paid.statusCode !== 200) throw new Error(`setup payment failed: ${paid.body}`);
  const refund = await create(`/api/payment/orders/${order.id}/refunds`, { amount: 100, reason: mark });
  const events = await call(t.app, 'GET', '/api/payment/ops/events', { token });
  const [log] = await t.database.db
    .insert(paymentNotifyLogs)
    .values({
      tenantId: tenant.tenantId,
      channel: 'channel_b',
      orderNo: order.orderNo as string,
      rawBody: mark,
      headers: {},
      signatureValid: true,
      result: 'applied',
    })
    .returning();
  // subscribed after the payment, so nothing is sent; the delivery is written as a finished one
  const hook = await create('/api/payment/webhooks', {
    url: 'https://93.184.215.14/pay',
    events: ['payment.*'],
    description: mark,
  });
  const delivery = await deliveryRow(t, tenant.tenantId, hook.id, 'payment.succeeded');
  return {
    '/api/payment/channel-configs id': one(channelConfig.id),
    '/api/payment configId': one(channelConfig.id),
    '/api/payment/orders id': one(order.id),
    orderId: one(order.id),
    '/api/payment/refunds id': one(refund.id),
    '/api/payment/ops/events id': one(events.json().data.list[0].id),
    '/api/payment/notify-logs id': one(log?.id),
    '/api/payment/webhooks id': one(hook.id),
    '/api/payment subscriptionId': one(hook.id),
    '/api/payment/webhooks/deliveries id': one(delivery),
    '/api/payment eventId': one(await eventIdOf(t, delivery)),
  };
}

/**
 * Platform rows (no tenant's) that tenants' operations name: a node of the menu tree, which every
 * tenant reads, and a disabled cron job, which only the platform manages. Both tables hold them.
 */
export async function platformRows(t: TestApp): Promise<ValueTable> {
  const token = t.adminToken;
  const menus = await call(t.app, 'GET', '/api/menus', { token });
  const handlers = await call(t.app, 'GET', '/api/cron-jobs/handlers', { token });
  const job = await call(t.app, 'POST', '/api/cron-jobs', {
    token,
    body: { name: 'sweep job', handler: handlers.json().data[0].name, cron: '0 3 * * *', enabled: false },
  });
  if (job.statusCode !== 201) throw new Error(`setup cron job failed: ${job.body}`);
  return {
    '/api/menus id': [{ value: menus.json().data[0].id, shared: true }],
    '/api/cron-jobs id': [{ value: job.json().data.id, shared: true }],
  };
}
