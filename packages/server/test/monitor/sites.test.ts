import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSites } from '../../src/modules/monitor/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { jsError, report } from './ingest-helpers.ts';

let t: TestApp;
let other: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
});
afterAll(async () => t?.close());

const URL = '/api/frontend-errors/sites';

describe('/api/frontend-errors/sites', () => {
  it('creates, lists, reads, updates and deletes a site; the key is random and works for reports', async () => {
    const created = await call(t.app, 'POST', URL, {
      token: t.demoAdminToken,
      body: { name: 'Shop', allowedOrigins: ['https://Shop.Example.com', 'http://localhost:5173'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const site = created.json().data;
    expect(site).toMatchObject({
      name: 'Shop',
      status: 'active',
      allowedOrigins: ['https://shop.example.com', 'http://localhost:5173'],
    });
    expect(site.siteKey).toMatch(/^site_[A-Za-z0-9_-]{32}$/);
    const second = await call(t.app, 'POST', URL, {
      token: t.demoAdminToken,
      body: { name: 'Blog', allowedOrigins: [] },
    });
    expect(second.json().data.siteKey).not.toBe(site.siteKey);

    const list = await call(t.app, 'GET', `${URL}?pageSize=10`, { token: t.demoAdminToken });
    expect(list.json().data.total).toBe(2);
    expect((await call(t.app, 'GET', `${URL}/${site.id}`, { token: t.demoAdminToken })).json().data).toEqual(site);

    const headers = { 'x-analytics-site-key': site.siteKey, origin: 'http://localhost:5173' };
    expect((await report(t, jsError('from localhost'), { headers })).statusCode).toBe(202);

    const disabled = await call(t.app, 'PUT', `${URL}/${site.id}`, {
      token: t.demoAdminToken,
      body: { status: 'disabled' },
    });
    expect(disabled.json().data).toMatchObject({ status: 'disabled', name: 'Shop' });
    expectError(await report(t, jsError('after disable'), { headers }), 403, 'monitor.unknown_site_key');

    const onlyProd = await call(t.app, 'PUT', `${URL}/${site.id}`, {
      token: t.demoAdminToken,
      body: { status: 'active', allowedOrigins: ['https://shop.example.com'] },
    });
    expect(onlyProd.json().data.allowedOrigins).toEqual(['https://shop.example.com']);
    expectError(await report(t, jsError('old origin'), { headers }), 403, 'monitor.origin_not_allowed');

    const del = await call(t.app, 'DELETE', `${URL}/${site.id}`, { token: t.demoAdminToken });
    expect(del.statusCode).toBe(200);
    expectError(
      await call(t.app, 'GET', `${URL}/${site.id}`, { token: t.demoAdminToken }),
      404,
      'monitor.site_not_found',
    );
  });

  it('answers 400 naming the field and 409 for a taken name, writing nothing', async () => {
    const before = await rowCount(t, errorSites);
    const bad: [unknown, string][] = [
      [{ allowedOrigins: [] }, 'name'],
      [{ name: 'x', allowedOrigins: ['https://a.example.com/path'] }, 'allowedOrigins.0'],
      [{ name: 'x', allowedOrigins: ['ftp://a.example.com'] }, 'allowedOrigins.0'],
      [{ name: 'x', allowedOrigins: ['https://a.example.com', 'https://a.example.com'] }, 'allowedOrigins'],
      [{ name: 'x', allowedOrigins: [], status: 'paused' }, 'status'],
    ];
    for (const [body, field] of bad) {
      expectError(
        await call(t.app, 'POST', URL, { token: t.demoAdminToken, body }),
        400,
        'request.validation_failed',
        field,
      );
    }
    await call(t.app, 'POST', URL, { token: t.demoAdminToken, body: { name: 'Dup', allowedOrigins: [] } });
    const dup = await call(t.app, 'POST', URL, { token: t.demoAdminToken, body: { name: 'Dup', allowedOrigins: [] } });
    expectError(dup, 409, 'monitor.site_exists', 'name');
    expect(await rowCount(t, errorSites)).toBe(before + 1);
  });

  it('needs monitor:error:list to read and monitor:error:manage to write', async () => {
    const reader = await createUserWithPermissions(t, ['monitor:error:list']);
    expect((await call(t.app, 'GET', URL, { token: reader.token })).statusCode).toBe(200);
    const before = await rowCount(t, errorSites);
    const denied = await call(t.app, 'POST', URL, { token: reader.token, body: { name: 'No', allowedOrigins: [] } });
    expectError(denied, 403, 'auth.permission_denied');
    expect(await rowCount(t, errorSites)).toBe(before);
    const nobody = await createUserWithPermissions(t, []);
    expectError(await call(t.app, 'GET', URL, { token: nobody.token }), 403, 'auth.permission_denied');
  });

  it('keeps tenants apart: another tenant’s site is not found and stays unchanged', async () => {
    const theirs = await call(t.app, 'POST', URL, {
      token: other.adminToken,
      body: { name: 'Theirs', allowedOrigins: ['https://theirs.example.com'] },
    });
    const id = theirs.json().data.id;
    const token = t.demoAdminToken;
    expectError(await call(t.app, 'GET', `${URL}/${id}`, { token }), 404, 'monitor.site_not_found');
    expectError(
      await call(t.app, 'PUT', `${URL}/${id}`, { token, body: { name: 'Mine now' } }),
      404,
      'monitor.site_not_found',
    );
    expectError(await call(t.app, 'DELETE', `${URL}/${id}`, { token }), 404, 'monitor.site_not_found');
    const names = (await call(t.app, 'GET', URL, { token })).json().data.list.map((s: { name: string }) => s.name);
    expect(names).not.toContain('Theirs');
    expect((await call(t.app, 'GET', `${URL}/${id}`, { token: other.adminToken })).json().data).toEqual(
      theirs.json().data,
    );
  });

  it('a platform administrator must work inside a tenant to create a site', async () => {
    const res = await call(t.app, 'POST', URL, { token: t.adminToken, body: { name: 'P', allowedOrigins: [] } });
    expectError(res, 400, 'monitor.tenant_required');
    const inTenant = await call(t.app, 'POST', URL, {
      token: t.adminToken,
      tenantId: other.tenantId,
      body: { name: 'Made by platform', allowedOrigins: [] },
    });
    expect(inTenant.statusCode, inTenant.body).toBe(201);
  });
});
