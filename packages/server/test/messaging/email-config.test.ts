import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailConfigs, emailSendLogs } from '../../src/modules/messaging/email/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { type SmtpReceiver, saveConfig, startSmtp } from './email-helpers.ts';

let t: TestApp;
let smtp: SmtpReceiver;
const auth = { user: 'mailer', pass: 'Smtp#Secret-2026' };

beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtp({ auth });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const configOf = async (tenantId: number | null) =>
  (await t.database.db.select().from(emailConfigs)).find((r) => r.tenantId === tenantId);

describe('email configuration', () => {
  it('saves a tenant’s configuration, never answers the password and stores it encrypted', async () => {
    const a = await createTenant(t);
    const empty = await call(t.app, 'GET', '/api/email-config', { token: a.adminToken });
    expect(empty.json().data).toEqual({ config: null, inherited: false });

    const res = await call(t.app, 'PUT', '/api/email-config', {
      token: a.adminToken,
      body: {
        host: '127.0.0.1',
        port: smtp.port,
        username: auth.user,
        password: auth.pass,
        fromAddress: 'noreply@a.test',
        fromName: 'Tenant A',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const saved = res.json().data;
    expect(saved).toMatchObject({ host: '127.0.0.1', port: smtp.port, secure: false, username: auth.user });
    expect(saved).toMatchObject({
      passwordSet: true,
      fromAddress: 'noreply@a.test',
      fromName: 'Tenant A',
      enabled: true,
    });
    expect(res.body).not.toContain(auth.pass);
    expect(Object.keys(saved)).not.toContain('password');
    expect(Object.keys(saved)).not.toContain('passwordEncrypted');

    const row = await rowById(t, emailConfigs, saved.id);
    expect(row?.tenantId).toBe(a.tenantId);
    expect(row?.passwordEncrypted).not.toContain(auth.pass);
    expect(t.app.ctx.secrets.decrypt(row?.passwordEncrypted as string, `email_configs.password:${saved.id}`)).toBe(
      auth.pass,
    );

    const got = await call(t.app, 'GET', '/api/email-config', { token: a.adminToken });
    expect(got.json().data).toEqual({ config: saved, inherited: false });
    expect(got.body).not.toContain(auth.pass);
  });

  it('keeps the password when a save omits it, and drops it when the username is cleared', async () => {
    const a = await createTenant(t);
    const first = await saveConfig(t, a.adminToken, smtp.port, { username: auth.user, password: auth.pass });
    const stored = (await rowById(t, emailConfigs, first.id))?.passwordEncrypted;

    const again = await call(t.app, 'PUT', '/api/email-config', {
      token: a.adminToken,
      body: { host: 'smtp.example.com', port: 465, secure: true, username: auth.user, fromAddress: 'x@a.test' },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toMatchObject({
      id: first.id,
      host: 'smtp.example.com',
      secure: true,
      passwordSet: true,
    });
    expect((await rowById(t, emailConfigs, first.id))?.passwordEncrypted).toBe(stored);

    const noAuth = await call(t.app, 'PUT', '/api/email-config', {
      token: a.adminToken,
      body: { host: 'smtp.example.com', port: 25, fromAddress: 'x@a.test' },
    });
    expect(noAuth.json().data).toMatchObject({ id: first.id, username: '', passwordSet: false });
    expect((await rowById(t, emailConfigs, first.id))?.passwordEncrypted).toBeNull();
  });

  it('rejects bad input naming the field and writes nothing', async () => {
    const a = await createTenant(t);
    const before = await rowCount(t, emailConfigs);
    const put = (body: object) => call(t.app, 'PUT', '/api/email-config', { token: a.adminToken, body });
    const base = { host: '127.0.0.1', port: 25, fromAddress: 'x@a.test' };
    expectError(await put({ ...base, port: 0 }), 400, 'request.validation_failed', 'port');
    expectError(await put({ ...base, fromAddress: 'not-an-address' }), 400, 'request.validation_failed', 'fromAddress');
    expectError(await put({ ...base, host: 'smtp host; rm' }), 400, 'request.validation_failed', 'host');
    expectError(await put({ ...base, username: 'u' }), 400, 'request.validation_failed', 'password');
    expect(await rowCount(t, emailConfigs)).toBe(before);
    expectError(
      await call(t.app, 'POST', '/api/email-config/test', { token: a.adminToken, body: { to: 'nope' } }),
      400,
      'request.validation_failed',
      'to',
    );
  });

  it('checks the view and update permissions', async () => {
    const viewer = await createUserWithPermissions(t, ['system:email-config:view']);
    const nobody = await createUserWithPermissions(t, []);
    const body = { host: '127.0.0.1', port: 25, fromAddress: 'x@demo.test' };
    expect((await call(t.app, 'GET', '/api/email-config', { token: viewer.token })).statusCode).toBe(200);
    expectError(await call(t.app, 'GET', '/api/email-config', { token: nobody.token }), 403, 'auth.permission_denied');
    expectError(
      await call(t.app, 'PUT', '/api/email-config', { token: viewer.token, body }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'POST', '/api/email-config/test', { token: viewer.token, body: { to: 'a@b.test' } }),
      403,
      'auth.permission_denied',
    );
    expect(await configOf(t.demoTenantId)).toBeUndefined();
  });

  it('keeps each tenant’s configuration to itself', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    await saveConfig(t, b.adminToken, 2525, { fromAddress: 'b@b.test' });
    const bRow = await configOf(b.tenantId);
    await saveConfig(t, a.adminToken, 2626, { fromAddress: 'a@a.test' });
    const ofA = (await call(t.app, 'GET', '/api/email-config', { token: a.adminToken })).json().data;
    expect(ofA.config).toMatchObject({ port: 2626, fromAddress: 'a@a.test' });
    expect(await configOf(b.tenantId)).toEqual(bRow);
  });
});

describe('test mail', () => {
  let a: TenantFixture;
  beforeAll(async () => {
    a = await createTenant(t);
  });

  it('answers 404 while nothing is saved at this scope', async () => {
    expectError(
      await call(t.app, 'POST', '/api/email-config/test', { token: a.adminToken, body: { to: 'ops@a.test' } }),
      404,
      'messaging.email_config_not_found',
    );
  });

  it('arrives through the saved configuration, logged in email_send_logs', async () => {
    const config = await saveConfig(t, a.adminToken, smtp.port, {
      username: auth.user,
      password: auth.pass,
      fromAddress: 'noreply@a.test',
      fromName: 'Tenant A',
      enabled: false,
    });
    const res = await call(t.app, 'POST', '/api/email-config/test', {
      token: a.adminToken,
      body: { to: 'ops@a.test' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = res.json().data;
    expect(result).toMatchObject({ status: 'sent', error: null });
    const got = smtp.received.at(-1);
    expect(got?.user).toBe(auth.user);
    expect(got?.from).toBe('noreply@a.test');
    expect(got?.to).toEqual(['ops@a.test']);
    expect(got?.mail.from?.value[0]).toEqual({ address: 'noreply@a.test', name: 'Tenant A' });
    expect(got?.mail.subject).toBe('Atrium SMTP test');
    expect(got?.mail.messageId).toBe(result.messageId);

    const log = await rowById(t, emailSendLogs, result.logId);
    expect(log).toMatchObject({ tenantId: a.tenantId, configId: config.id, dispatchId: null, eventKey: null });
    expect(log).toMatchObject({ toAddress: 'ops@a.test', subject: 'Atrium SMTP test', status: 'sent', error: null });
  });

  it('answers failed with the SMTP error when the server refuses the login', async () => {
    await saveConfig(t, a.adminToken, smtp.port, { username: auth.user, password: 'wrong', fromAddress: 'n@a.test' });
    const count = smtp.received.length;
    const res = await call(t.app, 'POST', '/api/email-config/test', {
      token: a.adminToken,
      body: { to: 'ops@a.test' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const result = res.json().data;
    expect(result.status).toBe('failed');
    expect(result.error).toContain('535');
    expect(result.error).not.toContain('wrong');
    expect(smtp.received.length).toBe(count);
    expect(await rowById(t, emailSendLogs, result.logId)).toMatchObject({ status: 'failed', error: result.error });
  });

  it('uses the new settings right after a save (the cached connection pool is replaced)', async () => {
    const other = await startSmtp();
    try {
      await saveConfig(t, a.adminToken, smtp.port, { username: auth.user, password: auth.pass });
      await call(t.app, 'POST', '/api/email-config/test', { token: a.adminToken, body: { to: 'one@a.test' } });
      await saveConfig(t, a.adminToken, other.port, { fromAddress: 'moved@a.test' });
      const res = await call(t.app, 'POST', '/api/email-config/test', {
        token: a.adminToken,
        body: { to: 'two@a.test' },
      });
      expect(res.json().data.status).toBe('sent');
      expect(other.received.map((r) => [r.from, r.to])).toEqual([['moved@a.test', ['two@a.test']]]);
    } finally {
      await other.close();
    }
  });
});

describe('platform configuration', () => {
  it('serves tenants without their own; a tenant’s own (even disabled) takes precedence', async () => {
    const a = await createTenant(t);
    const adapter = t.app.messaging.channels.get('email');
    expect(await adapter?.available(a.tenantId)).toBe(false);

    const platform = await saveConfig(t, t.adminToken, smtp.port, { fromAddress: 'platform@atrium.test' });
    expect((await configOf(null))?.id).toBe(platform.id);
    const view = (await call(t.app, 'GET', '/api/email-config', { token: a.adminToken })).json().data;
    expect(view).toEqual({ config: null, inherited: true });
    expect(await adapter?.available(a.tenantId)).toBe(true);
    expect(await adapter?.available(null)).toBe(true);
    const platformView = (await call(t.app, 'GET', '/api/email-config', { token: t.adminToken })).json().data;
    expect(platformView).toMatchObject({ config: { id: platform.id }, inherited: false });

    await saveConfig(t, a.adminToken, smtp.port, { enabled: false });
    expect(await adapter?.available(a.tenantId)).toBe(false);
    expect((await call(t.app, 'GET', '/api/email-config', { token: a.adminToken })).json().data.inherited).toBe(false);

    await saveConfig(t, t.adminToken, smtp.port, { fromAddress: 'platform@atrium.test', enabled: false });
    const other = await createTenant(t);
    expect(await adapter?.available(other.tenantId)).toBe(false);
    expect((await call(t.app, 'GET', '/api/email-config', { token: other.adminToken })).json().data.inherited).toBe(
      false,
    );
    expect((await t.database.db.select().from(emailConfigs).where(eq(emailConfigs.id, platform.id))).length).toBe(1);
  });
});
