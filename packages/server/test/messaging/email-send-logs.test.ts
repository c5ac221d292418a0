import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailSendLogs } from '../../src/modules/messaging/email/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createVia, expectError, fieldsOf, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { type SmtpReceiver, saveConfig, startSmtp } from './email-helpers.ts';

let t: TestApp;
let smtp: SmtpReceiver;
let a: TenantFixture;
let b: TenantFixture;

beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtp({ rejectRcpt: (address) => address.startsWith('bounce') });
  a = await createTenant(t);
  b = await createTenant(t);
  await saveConfig(t, a.adminToken, smtp.port, { fromAddress: 'noreply@a.test' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

type Log = typeof emailSendLogs.$inferInsert;
async function insertLogs(tenantId: number, rows: Partial<Log>[]): Promise<number[]> {
  const inserted = await t.database.db
    .insert(emailSendLogs)
    .values(rows.map((r) => ({ tenantId, toAddress: 'x@a.test', subject: 'S', status: 'sent' as const, ...r })))
    .returning({ id: emailSendLogs.id });
  return inserted.map((r) => r.id);
}

describe('test send', () => {
  it('renders a template with HTML-escaped variables and sends it with a text alternative', async () => {
    const templateId = await createVia(t, '/api/email-templates', a.adminToken, {
      code: 'order-shipped',
      name: 'Order shipped',
      subject: 'Order {{no}} for {{name}}',
      content: '<html><body><h1>Hi {{name}}</h1><p>Order <b>{{no}}</b> shipped.</p></body></html>',
      variables: ['name', 'no'],
    });
    const res = await call(t.app, 'POST', '/api/email-send-logs/test-send', {
      token: a.adminToken,
      body: { to: 'ada@a.test', templateId, variables: { name: '<script>x</script> & Co', no: 42 } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = res.json().data;
    expect(result.status).toBe('sent');
    const { mail } = smtp.received.at(-1) ?? {};
    expect(mail?.subject).toBe('Order 42 for <script>x</script> & Co');
    expect(mail?.html).toContain('<h1>Hi &lt;script&gt;x&lt;/script&gt; &amp; Co</h1>');
    expect(mail?.html).not.toContain('<script>');
    expect(mail?.text).toContain('Hi <script>x</script> & Co');
    expect(mail?.text).toContain('Order 42 shipped.');
    expect(await rowById(t, emailSendLogs, result.logId)).toMatchObject({
      tenantId: a.tenantId,
      templateCode: 'order-shipped',
      dispatchId: null,
      toAddress: 'ada@a.test',
      subject: 'Order 42 for <script>x</script> & Co',
      status: 'sent',
    });
  });

  it('sends a given subject and content', async () => {
    const res = await call(t.app, 'POST', '/api/email-send-logs/test-send', {
      token: a.adminToken,
      body: { to: 'bo@a.test', subject: 'Ad hoc {{n}}', content: '<p>Body {{n}}</p>', variables: { n: 'one' } },
    });
    expect(res.json().data.status).toBe('sent');
    expect(smtp.received.at(-1)?.mail.subject).toBe('Ad hoc one');
    expect(smtp.received.at(-1)?.to).toEqual(['bo@a.test']);
  });

  it('answers failed with the server’s refusal and logs it', async () => {
    const count = smtp.received.length;
    const res = await call(t.app, 'POST', '/api/email-send-logs/test-send', {
      token: a.adminToken,
      body: { to: 'bounce@a.test', subject: 'S', content: '<p>C</p>' },
    });
    const result = res.json().data;
    expect(result).toMatchObject({ status: 'failed', messageId: null });
    expect(result.error).toContain('550');
    expect(smtp.received.length).toBe(count);
    expect(await rowById(t, emailSendLogs, result.logId)).toMatchObject({ status: 'failed', error: result.error });
  });

  it('rejects bad input naming the field, and sends nothing', async () => {
    const send = (body: object) => call(t.app, 'POST', '/api/email-send-logs/test-send', { token: a.adminToken, body });
    const before = await rowCount(t, emailSendLogs);
    const missing = await send({ to: 'a@a.test' });
    expectError(missing, 400, 'request.validation_failed');
    expect(fieldsOf(missing).sort()).toEqual(['content', 'subject']);
    expectError(await send({ to: 'not-mail', subject: 's', content: 'c' }), 400, 'request.validation_failed', 'to');
    const ofB = await createVia(t, '/api/email-templates', b.adminToken, {
      code: 'b',
      name: 'B',
      subject: 'B',
      content: 'B',
    });
    expectError(await send({ to: 'a@a.test', templateId: ofB }), 400, 'request.validation_failed', 'templateId');
    expectError(
      await send({ to: 'a@a.test', templateId: ofB, subject: 's' }),
      400,
      'request.validation_failed',
      'subject',
    );
    expect(await rowCount(t, emailSendLogs)).toBe(before);
  });

  it('answers 409 when no enabled configuration applies', async () => {
    const res = await call(t.app, 'POST', '/api/email-send-logs/test-send', {
      token: b.adminToken,
      body: { to: 'a@b.test', subject: 's', content: 'c' },
    });
    expectError(res, 409, 'messaging.email_not_configured');
  });

  it('needs system:email-config:update', async () => {
    const lister = await createUserWithPermissions(t, ['system:email-send-log:list']);
    const res = await call(t.app, 'POST', '/api/email-send-logs/test-send', {
      token: lister.token,
      body: { to: 'a@demo.test', subject: 's', content: 'c' },
    });
    expectError(res, 403, 'auth.permission_denied');
  });
});

describe('send logs', () => {
  let tenant: TenantFixture;
  let ids: number[];
  beforeAll(async () => {
    tenant = await createTenant(t);
    ids = await insertLogs(tenant.tenantId, [
      { toAddress: 'ada@x.test', eventKey: 'ops.monitor.alert', createdAt: new Date('2026-03-01T10:00:00Z') },
      { toAddress: 'bob@x.test', status: 'failed', error: '550 no', createdAt: new Date('2026-03-02T10:00:00Z') },
      { toAddress: 'ADA.L@y.test', eventKey: 'wiki.doc.published', createdAt: new Date('2026-03-03T10:00:00Z') },
    ]);
    await insertLogs(b.tenantId, [{ toAddress: 'ada@x.test' }]);
  });

  const listIds = async (query: string, token = tenant.adminToken) => {
    const res = await call(t.app, 'GET', `/api/email-send-logs${query}`, { token });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().data.list as { id: number }[]).map((r) => r.id);
  };

  it('lists the tenant’s logs newest first, filtered', async () => {
    const [first, second, third] = ids as [number, number, number];
    expect(await listIds('')).toEqual([third, second, first]);
    expect(await listIds('?status=failed')).toEqual([second]);
    expect(await listIds('?toAddress=ada')).toEqual([third, first]);
    expect(await listIds('?eventKey=ops.monitor.alert')).toEqual([first]);
    expect(await listIds('?from=2026-03-02T10:00:00Z&to=2026-03-03T10:00:00Z')).toEqual([second]);
    const page = await call(t.app, 'GET', '/api/email-send-logs?pageSize=2&page=2', { token: tenant.adminToken });
    expect(page.json().data).toMatchObject({ total: 3, page: 2, pageSize: 2, list: [{ id: first }] });
    const one = await call(t.app, 'GET', `/api/email-send-logs/${second}`, { token: tenant.adminToken });
    expect(one.json().data).toMatchObject({ id: second, status: 'failed', error: '550 no', dispatchId: null });
    expectError(
      await call(t.app, 'GET', '/api/email-send-logs?status=lost', { token: tenant.adminToken }),
      400,
      'request.validation_failed',
      'status',
    );
  });

  it('deletes one, and batches all or nothing', async () => {
    const [first, second, third] = ids as [number, number, number];
    const [ofB] = await insertLogs(b.tenantId, [{}]);
    const token = tenant.adminToken;
    const mixed = await call(t.app, 'DELETE', '/api/email-send-logs/batch', { token, body: { ids: [second, ofB] } });
    expectError(mixed, 404, 'messaging.email_send_log_not_found');
    expect(mixed.json().details[0].message).toContain(String(ofB));
    expect(await rowById(t, emailSendLogs, second)).toBeDefined();
    expect(await rowById(t, emailSendLogs, ofB as number)).toBeDefined();
    expectError(
      await call(t.app, 'DELETE', `/api/email-send-logs/${ofB}`, { token }),
      404,
      'messaging.email_send_log_not_found',
    );
    expectError(
      await call(t.app, 'GET', `/api/email-send-logs/${ofB}`, { token }),
      404,
      'messaging.email_send_log_not_found',
    );

    expect((await call(t.app, 'DELETE', `/api/email-send-logs/${first}`, { token })).json().data).toEqual({ ok: true });
    const batch = await call(t.app, 'DELETE', '/api/email-send-logs/batch', { token, body: { ids: [second, third] } });
    expect(batch.json().data).toEqual({ affected: [second, third] });
    expect(await listIds('')).toEqual([]);
    expect(await rowById(t, emailSendLogs, ofB as number)).toBeDefined();
  });

  it('checks the list and delete permissions', async () => {
    const [logId] = await insertLogs(t.demoTenantId, [{}]);
    const lister = await createUserWithPermissions(t, ['system:email-send-log:list']);
    const nobody = await createUserWithPermissions(t, []);
    expect((await call(t.app, 'GET', '/api/email-send-logs', { token: lister.token })).statusCode).toBe(200);
    expectError(
      await call(t.app, 'GET', '/api/email-send-logs', { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/email-send-logs/${logId}`, { token: lister.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'DELETE', '/api/email-send-logs/batch', { token: lister.token, body: { ids: [logId] } }),
      403,
      'auth.permission_denied',
    );
    expect(await rowById(t, emailSendLogs, logId as number)).toBeDefined();
  });
});
