// The web console's own reporting site (docs/decisions/0037): made by the service at start, its
// key served publicly, its reports kept at platform scope, switched off by disabling it.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_SITE_NAME, seedConsoleSite } from '../../src/modules/monitor/sites/console-site.ts';
import { errorSites } from '../../src/modules/monitor/tables.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { createPublicLinks } from '../../src/platform/http/public-links.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createPlatformUserWithPermissions } from '../helpers/fixtures.ts';
import { jsError, report } from './ingest-helpers.ts';

let t: TestApp;
let origin: string;
beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://office.example.com/atrium' } });
  origin = 'https://office.example.com';
});
afterAll(async () => t?.close());

const SITES = '/api/frontend-errors/sites';
const CONSOLE_SITE = '/api/frontend-errors/console-site';
type Site = { id: number; name: string; siteKey: string; allowedOrigins: string[]; status: string };

const served = async (): Promise<string | null> => {
  const res = await call(t.app, 'GET', CONSOLE_SITE);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.siteKey;
};
const platformSites = async (): Promise<Site[]> => {
  const res = await call(t.app, 'GET', `${SITES}?pageSize=100`, { token: t.adminToken });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.list;
};
const platformRows = () => t.database.db.select().from(errorSites).where(eq(errorSites.tenantId, PLATFORM_TENANT_ID));
/** what a later start does (another PUBLIC_BASE_URL, or the same) */
const restart = (publicBaseUrl = t.app.ctx.links.base) =>
  seedConsoleSite({ ...t.app.ctx, links: createPublicLinks(publicBaseUrl) });
const events = async (token: string) =>
  (await call(t.app, 'GET', '/api/frontend-errors/events?pageSize=100', { token })).json().data.list as {
    message: string;
  }[];

describe('the console’s reporting site', () => {
  it('exists after start at platform scope, allows PUBLIC_BASE_URL’s origin, and its key is served without sign-in', async () => {
    const [site, ...more] = await platformSites();
    expect(more).toEqual([]);
    expect(site).toMatchObject({ name: CONSOLE_SITE_NAME, status: 'active' });
    // (the test database's first start had another PUBLIC_BASE_URL: its origin stays beside)
    expect(site?.allowedOrigins).toContain(origin);
    expect(site?.siteKey).toMatch(/^site_[A-Za-z0-9_-]{32}$/);
    expect(await served()).toBe(site?.siteKey);
    // the answer is the key and nothing else
    expect((await call(t.app, 'GET', CONSOLE_SITE)).json().data).toEqual({ siteKey: site?.siteKey });
  });

  it('is not a tenant’s: a tenant administrator neither lists, reads, changes nor deletes it', async () => {
    const [site] = (await platformSites()) as [Site];
    const token = t.demoAdminToken;
    const names = (await call(t.app, 'GET', SITES, { token })).json().data.list.map((s: Site) => s.name);
    expect(names).not.toContain(CONSOLE_SITE_NAME);
    expectError(await call(t.app, 'GET', `${SITES}/${site.id}`, { token }), 404, 'monitor.site_not_found');
    expectError(
      await call(t.app, 'PUT', `${SITES}/${site.id}`, { token, body: { status: 'disabled' } }),
      404,
      'monitor.site_not_found',
    );
    expectError(await call(t.app, 'DELETE', `${SITES}/${site.id}`, { token }), 404, 'monitor.site_not_found');
    expect(await platformSites()).toEqual([site]);
  });

  it('a platform user without monitor:error:manage may not change it', async () => {
    const [site] = (await platformSites()) as [Site];
    const reader = await createPlatformUserWithPermissions(t, ['monitor:error:list']);
    expectError(
      await call(t.app, 'PUT', `${SITES}/${site.id}`, { token: reader.token, body: { status: 'disabled' } }),
      403,
      'auth.permission_denied',
    );
    expect(await served()).toBe(site.siteKey);
  });

  it('takes reports from the console’s origin into platform scope, never into a tenant; refuses other origins', async () => {
    const key = (await served()) as string;
    const ok = await report(t, jsError('console broke'), { headers: { 'x-analytics-site-key': key, origin } });
    expect(ok.statusCode, ok.body).toBe(202);
    expect((await events(t.adminToken)).map((e) => e.message)).toContain('console broke');
    expect((await events(t.demoAdminToken)).map((e) => e.message)).not.toContain('console broke');

    const elsewhere = await report(t, jsError('from elsewhere'), {
      headers: { 'x-analytics-site-key': key, origin: 'https://evil.example.com' },
    });
    expectError(elsewhere, 403, 'monitor.origin_not_allowed');
  });

  it('is made once: a later start keeps it and its key, adds a new PUBLIC_BASE_URL’s origin, keeps origins an administrator added', async () => {
    const [site] = (await platformSites()) as [Site];
    expect(await restart()).toEqual({ created: false, originAdded: false });
    expect(await platformSites()).toEqual([site]);

    const put = await call(t.app, 'PUT', `${SITES}/${site.id}`, {
      token: t.adminToken,
      body: { allowedOrigins: [origin, 'https://console.example.org'] },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(await restart('http://10.0.0.5:3000')).toEqual({ created: false, originAdded: true });
    const [after] = (await platformSites()) as [Site];
    expect(after.siteKey).toBe(site.siteKey);
    expect(after.allowedOrigins).toEqual([origin, 'https://console.example.org', 'http://10.0.0.5:3000']);
    // the added origin works at once (the site cache was told)
    const res = await report(t, jsError('from the new address'), {
      headers: { 'x-analytics-site-key': site.siteKey, origin: 'http://10.0.0.5:3000' },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(await platformRows()).toHaveLength(1);
  });

  it('starts that run together make one site', async () => {
    await t.database.db.delete(errorSites).where(eq(errorSites.tenantId, PLATFORM_TENANT_ID));
    const results = await Promise.all([restart(), restart(), restart()]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await platformRows()).toHaveLength(1);
    expect(await served()).toBe((await platformSites())[0]?.siteKey);
  });

  it('disabled, its key is served as null at once and refused; enabled again, both come back', async () => {
    const [site] = (await platformSites()) as [Site];
    const disable = await call(t.app, 'PUT', `${SITES}/${site.id}`, {
      token: t.adminToken,
      body: { status: 'disabled' },
    });
    expect(disable.statusCode, disable.body).toBe(200);
    expect(await served()).toBeNull();
    const refused = await report(t, jsError('while off'), {
      headers: { 'x-analytics-site-key': site.siteKey, origin },
    });
    expectError(refused, 403, 'monitor.unknown_site_key');
    // a start does not switch it back on
    await restart();
    expect(await served()).toBeNull();

    await call(t.app, 'PUT', `${SITES}/${site.id}`, { token: t.adminToken, body: { status: 'active' } });
    expect(await served()).toBe(site.siteKey);
  });

  it('deleted, the next start makes a new one with a new key', async () => {
    const [site] = (await platformSites()) as [Site];
    const del = await call(t.app, 'DELETE', `${SITES}/${site.id}`, { token: t.adminToken });
    expect(del.statusCode, del.body).toBe(200);
    expect(await served()).toBeNull();
    expect(await restart()).toEqual({ created: true, originAdded: true });
    const [made] = (await platformSites()) as [Site];
    expect(made.siteKey).not.toBe(site.siteKey);
    expect(await served()).toBe(made.siteKey);
  });

  it('the API still makes sites in tenants only', async () => {
    const res = await call(t.app, 'POST', SITES, { token: t.adminToken, body: { name: 'Other', allowedOrigins: [] } });
    expectError(res, 400, 'monitor.tenant_required');
    expect(await platformRows()).toHaveLength(1);
  });
});
