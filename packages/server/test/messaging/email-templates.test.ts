import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailTemplates } from '../../src/modules/messaging/email/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createVia, expectError, fieldsOf, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
});
afterAll(async () => t?.close());

const welcome = {
  code: 'welcome',
  name: 'Welcome',
  subject: 'Welcome, {{name}}',
  content: '<p>Hello {{name}}, your order {{order.no}} ships soon.</p>',
  variables: ['name', 'order'],
};

describe('email templates', () => {
  it('creates, lists, reads, updates and deletes a template', async () => {
    const res = await call(t.app, 'POST', '/api/email-templates', {
      token: a.adminToken,
      body: { ...welcome, remark: 'first mail' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ ...welcome, status: 'active', remark: 'first mail' });
    expect((await rowById(t, emailTemplates, created.id))?.tenantId).toBe(a.tenantId);

    await createVia(t, '/api/email-templates', a.adminToken, {
      code: 'reset',
      name: 'Password reset',
      subject: 'Reset',
      content: '<p>Reset</p>',
      status: 'disabled',
    });
    const list = (await call(t.app, 'GET', '/api/email-templates', { token: a.adminToken })).json().data;
    expect(list.total).toBe(2);
    expect(list.list.map((r: { code: string }) => r.code)).toEqual(['reset', 'welcome']);
    const byKeyword = await call(t.app, 'GET', '/api/email-templates?keyword=welc', { token: a.adminToken });
    expect(byKeyword.json().data.list.map((r: { id: number }) => r.id)).toEqual([created.id]);
    const disabled = await call(t.app, 'GET', '/api/email-templates?status=disabled', { token: a.adminToken });
    expect(disabled.json().data.list.map((r: { code: string }) => r.code)).toEqual(['reset']);

    const got = await call(t.app, 'GET', `/api/email-templates/${created.id}`, { token: a.adminToken });
    expect(got.json().data).toEqual(created);

    const upd = await call(t.app, 'PUT', `/api/email-templates/${created.id}`, {
      token: a.adminToken,
      body: { subject: 'Hi {{name}}', status: 'disabled' },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data).toMatchObject({ subject: 'Hi {{name}}', status: 'disabled', content: welcome.content });

    const del = await call(t.app, 'DELETE', `/api/email-templates/${created.id}`, { token: a.adminToken });
    expect(del.json().data).toEqual({ ok: true });
    expectError(
      await call(t.app, 'GET', `/api/email-templates/${created.id}`, { token: a.adminToken }),
      404,
      'messaging.email_template_not_found',
    );
  });

  it('refuses placeholders that are not declared, naming subject or content, and writes nothing', async () => {
    const before = await rowCount(t, emailTemplates);
    const res = await call(t.app, 'POST', '/api/email-templates', {
      token: a.adminToken,
      body: { ...welcome, code: 'typo', subject: 'Hi {{nmae}}', variables: ['name'] },
    });
    expectError(res, 400, 'request.validation_failed');
    expect(fieldsOf(res).sort()).toEqual(['content', 'subject']);
    expect(res.json().details.find((d: { field: string }) => d.field === 'subject').message).toContain('nmae');
    expect(await rowCount(t, emailTemplates)).toBe(before);

    const id = await createVia(t, '/api/email-templates', a.adminToken, { ...welcome, code: 'keep' });
    const dropVar = await call(t.app, 'PUT', `/api/email-templates/${id}`, {
      token: a.adminToken,
      body: { variables: ['name'] },
    });
    expectError(dropVar, 400, 'request.validation_failed', 'content');
    expect((await rowById(t, emailTemplates, id))?.variables).toEqual(['name', 'order']);
  });

  it('rejects invalid fields', async () => {
    const post = (body: object) => call(t.app, 'POST', '/api/email-templates', { token: a.adminToken, body });
    expectError(await post({ ...welcome, code: 'has space' }), 400, 'request.validation_failed', 'code');
    expectError(await post({ ...welcome, subject: undefined }), 400, 'request.validation_failed', 'subject');
    expectError(await post({ ...welcome, variables: ['1bad'] }), 400, 'request.validation_failed', 'variables.0');
    expectError(await post({ ...welcome, status: 'gone' }), 400, 'request.validation_failed', 'status');
  });

  it('keeps codes unique per tenant; other tenants and the platform may reuse them', async () => {
    await createVia(t, '/api/email-templates', b.adminToken, { ...welcome, code: 'shared' });
    await createVia(t, '/api/email-templates', t.adminToken, { ...welcome, code: 'shared' });
    await createVia(t, '/api/email-templates', a.adminToken, { ...welcome, code: 'shared' });
    const dup = await call(t.app, 'POST', '/api/email-templates', {
      token: a.adminToken,
      body: { ...welcome, code: 'shared' },
    });
    expectError(dup, 409, 'messaging.email_template_exists', 'code');
    const other = await createVia(t, '/api/email-templates', a.adminToken, { ...welcome, code: 'other' });
    expectError(
      await call(t.app, 'PUT', `/api/email-templates/${other}`, { token: a.adminToken, body: { code: 'shared' } }),
      409,
      'messaging.email_template_exists',
      'code',
    );
  });

  it('answers 404 for another tenant’s template and changes nothing', async () => {
    const ofB = await createVia(t, '/api/email-templates', b.adminToken, { ...welcome, code: 'b-only' });
    const before = await rowById(t, emailTemplates, ofB);
    for (const [method, body] of [['GET'], ['PUT', { name: 'taken' }], ['DELETE']] as const) {
      const res = await call(t.app, method, `/api/email-templates/${ofB}`, { token: a.adminToken, body });
      expectError(res, 404, 'messaging.email_template_not_found');
    }
    expect(await rowById(t, emailTemplates, ofB)).toEqual(before);
    const list = (await call(t.app, 'GET', '/api/email-templates', { token: a.adminToken })).json().data;
    expect(list.list.map((r: { id: number }) => r.id)).not.toContain(ofB);
  });

  it('checks each permission', async () => {
    const id = await createVia(t, '/api/email-templates', t.demoAdminToken, { ...welcome, code: 'perm' });
    const lister = await createUserWithPermissions(t, ['system:email-template:list']);
    const before = await rowCount(t, emailTemplates);
    expect((await call(t.app, 'GET', '/api/email-templates', { token: lister.token })).statusCode).toBe(200);
    const denied = [
      call(t.app, 'POST', '/api/email-templates', { token: lister.token, body: { ...welcome, code: 'x' } }),
      call(t.app, 'PUT', `/api/email-templates/${id}`, { token: lister.token, body: { name: 'x' } }),
      call(t.app, 'DELETE', `/api/email-templates/${id}`, { token: lister.token }),
    ];
    for (const res of await Promise.all(denied)) expectError(res, 403, 'auth.permission_denied');
    const nobody = await createUserWithPermissions(t, []);
    expectError(
      await call(t.app, 'GET', '/api/email-templates', { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
    expect(await rowCount(t, emailTemplates)).toBe(before);
  });
});
