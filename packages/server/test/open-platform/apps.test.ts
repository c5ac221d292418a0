import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, fieldsOf, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import {
  accessToken,
  type CreatedApp,
  clientCredentials,
  confidentialBody,
  createApp,
  isActive,
  tablesContaining,
} from './apps-helpers.ts';

/** Application (OAuth client) administration over HTTP: CRUD, rules, secrets at rest, permissions, tenants. */
let t: TestApp;
let other: TenantFixture;
let nobody: { token: string };
let inspector: CreatedApp;
const URL_ = '/api/open-platform/apps';

const codeBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: 'A web app',
  homepageUrl: 'https://web.example',
  logoUrl: 'https://web.example/logo.png',
  clientType: 'public',
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: ['https://web.example/cb', 'http://127.0.0.1:8080/cb', 'http://localhost/cb'],
  allowedScopes: ['openid', 'profile', 'offline_access'],
  ...extra,
});

beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody } = await twoTenants(t));
  // introspects tokens of the demo tenant for the tests below (RFC 7662 needs a confidential client)
  inspector = await createApp(t, t.demoAdminToken, confidentialBody('Inspector'));
});
afterAll(async () => t?.close());

describe('GET /api/open-platform/scopes', () => {
  it('lists the registered scopes with their descriptions and whether they need a user', async () => {
    const res = await call(t.app, 'GET', '/api/open-platform/scopes', { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    const scopes = res.json().data as { name: string; userOnly: boolean; description: string }[];
    expect(scopes.find((s) => s.name === 'openid')).toMatchObject({ userOnly: true });
    expect(scopes.find((s) => s.name === 'drive:read')).toMatchObject({ userOnly: false });
    expect(scopes.every((s) => s.description.length > 0)).toBe(true);
  });

  it('needs open:app:list', async () => {
    expectError(
      await call(t.app, 'GET', '/api/open-platform/scopes', { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('POST /api/open-platform/apps', () => {
  it('registers a confidential client: the secret is answered once and only its digest is stored', async () => {
    const res = await call(t.app, 'POST', URL_, {
      token: t.demoAdminToken,
      body: confidentialBody('Billing sync', { description: 'nightly export' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      name: 'Billing sync',
      description: 'nightly export',
      homepageUrl: '',
      clientType: 'confidential',
      grantTypes: ['client_credentials'],
      allowedScopes: ['drive:read', 'drive:write'],
      status: 'active',
      secretRotatedAt: null,
      previousSecretExpiresAt: null,
    });
    expect(data.clientId).toMatch(/^app_/);
    const secret: string = data.clientSecret;
    expect(secret).toMatch(/^sec_[A-Za-z0-9_-]{43}$/);
    expect(data.secretHint).toBe(secret.slice(-4));
    expect(Object.keys(data)).not.toEqual(expect.arrayContaining(['secretHash']));
    expect(Object.keys(data).filter((k) => /hash/i.test(k))).toEqual([]);

    const row = await rowById(t, openApps, data.id);
    expect(row?.tenantId).toBe(t.demoTenantId);
    expect(row?.secretHash).toBe(sha256(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(await tablesContaining(t, secret)).toEqual([]);

    // never again: not in the item, not in the list
    const got = await call(t.app, 'GET', `${URL_}/${data.id}`, { token: t.demoAdminToken });
    expect(got.statusCode).toBe(200);
    expect(got.body).not.toContain(secret);
    expect(got.body).not.toContain(sha256(secret));
    expect(got.json().data.clientSecret).toBeUndefined();
    expect(got.json().data.secretHint).toBe(secret.slice(-4));
    const list = await call(t.app, 'GET', URL_, { token: t.demoAdminToken });
    expect(list.body).not.toContain(secret);
    expect(list.body).not.toContain(sha256(secret));

    // and it works: a real client_credentials grant with it
    const token = await clientCredentials(t, data.clientId, secret, 'drive:read');
    expect(token.json()).toMatchObject({ token_type: 'Bearer', scope: 'drive:read' });
  });

  it('registers a public client with no secret at all', async () => {
    const res = await call(t.app, 'POST', URL_, { token: t.demoAdminToken, body: codeBody('Web app') });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      clientType: 'public',
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['https://web.example/cb', 'http://127.0.0.1:8080/cb', 'http://localhost/cb'],
      homepageUrl: 'https://web.example',
      logoUrl: 'https://web.example/logo.png',
      secretHint: null,
    });
    expect(data).not.toHaveProperty('clientSecret');
    const row = await rowById(t, openApps, data.id);
    expect(row).toMatchObject({ secretHash: null, secretHint: null, previousSecretHash: null });
  });

  it('refuses every broken rule, naming the field, and writes nothing', async () => {
    const before = await rowCount(t, openApps);
    const cases: [Record<string, unknown>, string][] = [
      [codeBody('P', { grantTypes: ['authorization_code', 'client_credentials'] }), 'grantTypes'],
      [confidentialBody('R', { grantTypes: ['client_credentials', 'refresh_token'] }), 'grantTypes'],
      [codeBody('C', { grantTypes: ['authorization_code'], redirectUris: [] }), 'redirectUris'],
      [codeBody('H', { redirectUris: ['https://ok.example/cb', 'http://web.example/cb'] }), 'redirectUris.1'],
      [codeBody('F', { redirectUris: ['https://web.example/cb#frag'] }), 'redirectUris.0'],
      [codeBody('A', { redirectUris: ['/relative/cb'] }), 'redirectUris.0'],
      [codeBody('U', { redirectUris: ['https://user:pw@web.example/cb'] }), 'redirectUris.0'],
      [codeBody('J', { redirectUris: ['javascript:alert(1)'] }), 'redirectUris.0'],
      [codeBody('S', { allowedScopes: ['nope:read'] }), 'allowedScopes.0'],
      [codeBody('S2', { allowedScopes: ['openid', 'drive:admin'] }), 'allowedScopes.1'],
      [codeBody('W', { homepageUrl: 'javascript:alert(1)' }), 'homepageUrl'],
      [codeBody('L', { logoUrl: 'ftp://web.example/logo.png' }), 'logoUrl'],
      [codeBody('E', { grantTypes: [] }), 'grantTypes'],
      [codeBody('D', { grantTypes: ['authorization_code', 'authorization_code'] }), 'grantTypes'],
      [codeBody('G', { grantTypes: ['password'] }), 'grantTypes.0'],
      [codeBody('Q', { redirectUris: ['https://a.example/cb', 'https://a.example/cb'] }), 'redirectUris'],
      [codeBody('M', { redirectUris: Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`) }), 'redirectUris'],
      [codeBody('T', { clientType: 'spa' }), 'clientType'],
      [codeBody(''), 'name'],
      [codeBody('   '), 'name'],
      [{ ...codeBody('X'), allowedScopes: undefined }, 'allowedScopes'],
      [codeBody('Y', { secretHash: 'x' }), 'secretHash'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, 'POST', URL_, { token: t.demoAdminToken, body });
      expectError(res, 400, 'request.validation_failed', field);
    }
    // every problem at once, each named
    const many = await call(t.app, 'POST', URL_, {
      token: t.demoAdminToken,
      body: codeBody('Many', {
        grantTypes: ['refresh_token'],
        redirectUris: ['http://web.example/a', 'https://web.example/b#x'],
        allowedScopes: ['openid', 'x'],
        logoUrl: 'data:image/png,AAAA',
      }),
    });
    expect(fieldsOf(many).sort()).toEqual([
      'allowedScopes.1',
      'grantTypes',
      'logoUrl',
      'redirectUris.0',
      'redirectUris.1',
    ]);
    expect(await rowCount(t, openApps)).toBe(before);
  });

  it('a name is unique within the tenant; another tenant and the platform may use it', async () => {
    await createApp(t, t.demoAdminToken, confidentialBody('Unique one'));
    const before = await rowCount(t, openApps);
    expectError(
      await call(t.app, 'POST', URL_, { token: t.demoAdminToken, body: confidentialBody('Unique one') }),
      409,
      'open_platform.app_name_exists',
      'name',
    );
    expect(await rowCount(t, openApps)).toBe(before);
    await createApp(t, other.adminToken, confidentialBody('Unique one'));
    const platform = await createApp(t, t.adminToken, confidentialBody('Unique one'));
    expect((await rowById(t, openApps, platform.id))?.tenantId).toBeNull();
    expectError(
      await call(t.app, 'POST', URL_, { token: t.adminToken, body: confidentialBody('Unique one') }),
      409,
      'open_platform.app_name_exists',
      'name',
    );
  });

  it('needs open:app:create', async () => {
    const lister = await createUserWithPermissions(t, ['open:app:list']);
    const before = await rowCount(t, openApps);
    expectError(
      await call(t.app, 'POST', URL_, { token: lister.token, body: confidentialBody('Nope') }),
      403,
      'auth.permission_denied',
    );
    expect(await rowCount(t, openApps)).toBe(before);
  });
});

describe('GET /api/open-platform/apps', () => {
  it('pages the tenant’s applications with name, status and client type filters', async () => {
    const tenant = await createTenant(t);
    const token = tenant.adminToken;
    const alpha = await createApp(t, token, confidentialBody('Alpha reporting'));
    const beta = await createApp(t, token, codeBody('Beta portal'));
    const gamma = await createApp(t, token, confidentialBody('Gamma 100%_sync'));
    await call(t.app, 'PUT', `${URL_}/${beta.id}/status`, { token, body: { status: 'disabled' } });
    const ids = async (query: string) => {
      const res = await call(t.app, 'GET', `${URL_}?${query}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data.list as { id: number }[]).map((a) => a.id).sort((x, y) => x - y);
    };
    expect(await ids('')).toEqual([alpha.id, beta.id, gamma.id]);
    expect(await ids('name=PORTAL')).toEqual([beta.id]);
    expect(await ids('name=100%25_')).toEqual([gamma.id]);
    expect(await ids('name=%25')).toEqual([gamma.id]);
    expect(await ids('status=disabled')).toEqual([beta.id]);
    expect(await ids('status=active&clientType=confidential')).toEqual([alpha.id, gamma.id]);
    expect(await ids('clientType=public')).toEqual([beta.id]);
    const page = (await call(t.app, 'GET', `${URL_}?page=2&pageSize=2`, { token })).json().data;
    expect(page).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page.list).toHaveLength(1);
    expectError(await call(t.app, 'GET', `${URL_}?status=gone`, { token }), 400, 'request.validation_failed', 'status');
  });

  it('shows only the caller’s tenant (the platform’s applications are the platform’s)', async () => {
    const theirs = await createApp(t, other.adminToken, confidentialBody('Theirs only'));
    const platform = await createApp(t, t.adminToken, confidentialBody('Platform only'));
    const mine = (await call(t.app, 'GET', `${URL_}?pageSize=200`, { token: t.demoAdminToken })).json().data.list;
    const ids = (mine as { id: number }[]).map((a) => a.id);
    expect(ids).toContain(inspector.id);
    expect(ids).not.toContain(theirs.id);
    expect(ids).not.toContain(platform.id);
    const atPlatform = (await call(t.app, 'GET', `${URL_}?pageSize=200`, { token: t.adminToken })).json().data.list;
    expect((atPlatform as { id: number }[]).map((a) => a.id)).toContain(platform.id);
    expect((atPlatform as { id: number }[]).map((a) => a.id)).not.toContain(inspector.id);
  });

  it('needs open:app:list', async () => {
    expectError(await call(t.app, 'GET', URL_, { token: nobody.token }), 403, 'auth.permission_denied');
    expectError(
      await call(t.app, 'GET', `${URL_}/${inspector.id}`, { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
  });

  it('an unknown id is 404', async () => {
    expectError(
      await call(t.app, 'GET', `${URL_}/999999`, { token: t.demoAdminToken }),
      404,
      'open_platform.app_not_found',
    );
  });
});

describe('PUT /api/open-platform/apps/:id', () => {
  it('changes the given fields and keeps the others', async () => {
    const app = await createApp(t, t.demoAdminToken, codeBody('Editable'));
    const res = await call(t.app, 'PUT', `${URL_}/${app.id}`, {
      token: t.demoAdminToken,
      body: {
        name: 'Edited',
        redirectUris: ['https://edited.example/cb'],
        allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      id: app.id,
      name: 'Edited',
      description: 'A web app',
      clientType: 'public',
      clientId: app.clientId,
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['https://edited.example/cb'],
      allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
    });
    expect(await rowById(t, openApps, app.id)).toMatchObject({
      name: 'Edited',
      redirectUris: ['https://edited.example/cb'],
    });
  });

  it('checks the rules on the result, refuses a client type change, and changes nothing on 400 or 409', async () => {
    const app = await createApp(t, t.demoAdminToken, codeBody('Strict'));
    await createApp(t, t.demoAdminToken, codeBody('Taken name'));
    const before = await rowById(t, openApps, app.id);
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ redirectUris: [] }, 400, 'request.validation_failed', 'redirectUris'],
      [{ grantTypes: ['refresh_token'] }, 400, 'request.validation_failed', 'grantTypes'],
      [{ grantTypes: ['client_credentials'] }, 400, 'request.validation_failed', 'grantTypes'],
      [
        { redirectUris: ['https://ok.example/cb', 'http://plain.example/cb'] },
        400,
        'request.validation_failed',
        'redirectUris.1',
      ],
      [{ allowedScopes: ['openid', 'nope'] }, 400, 'request.validation_failed', 'allowedScopes.1'],
      [{ homepageUrl: 'mailto:me@example.com' }, 400, 'request.validation_failed', 'homepageUrl'],
      [{ clientType: 'confidential' }, 400, 'request.validation_failed', 'clientType'],
      [{ name: 'Taken name' }, 409, 'open_platform.app_name_exists', 'name'],
    ];
    for (const [body, status, error, field] of cases) {
      expectError(
        await call(t.app, 'PUT', `${URL_}/${app.id}`, { token: t.demoAdminToken, body }),
        status,
        error,
        field,
      );
    }
    expect(await rowById(t, openApps, app.id)).toEqual(before);
  });

  it('removing allowed scopes revokes the tokens holding one of them, in the same change', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Shrinking'));
    const secret = app.clientSecret as string;
    const both = await accessToken(t, app.clientId, secret, 'drive:read drive:write');
    const writeOnly = await accessToken(t, app.clientId, secret, 'drive:write');
    const readOnly = await accessToken(t, app.clientId, secret, 'drive:read');
    // a change that keeps every scope revokes nothing
    await call(t.app, 'PUT', `${URL_}/${app.id}`, {
      token: t.demoAdminToken,
      body: { description: 'still both', allowedScopes: ['drive:write', 'drive:read'] },
    });
    expect(await isActive(t, inspector, both)).toBe(true);

    const res = await call(t.app, 'PUT', `${URL_}/${app.id}`, {
      token: t.demoAdminToken,
      body: { allowedScopes: ['drive:read'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await isActive(t, inspector, both)).toBe(false);
    expect(await isActive(t, inspector, writeOnly)).toBe(false);
    expect(await isActive(t, inspector, readOnly)).toBe(true);
    // and the removed scope can no longer be obtained
    expect((await clientCredentials(t, app.clientId, secret, 'drive:write')).json().error).toBe('invalid_scope');
    // down to nothing: every token goes
    const none = await call(t.app, 'PUT', `${URL_}/${app.id}`, {
      token: t.demoAdminToken,
      body: { allowedScopes: [] },
    });
    expect(none.statusCode, none.body).toBe(200);
    expect(await isActive(t, inspector, readOnly)).toBe(false);
  });

  it('needs open:app:update', async () => {
    const lister = await createUserWithPermissions(t, ['open:app:list', 'open:app:create', 'open:app:delete']);
    const before = await rowById(t, openApps, inspector.id);
    expectError(
      await call(t.app, 'PUT', `${URL_}/${inspector.id}`, { token: lister.token, body: { name: 'Hijacked' } }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'PUT', `${URL_}/${inspector.id}/status`, { token: lister.token, body: { status: 'disabled' } }),
      403,
      'auth.permission_denied',
    );
    expect(await rowById(t, openApps, inspector.id)).toEqual(before);
  });
});

describe('PUT /api/open-platform/apps/:id/status', () => {
  it('a disabled application cannot authenticate and its tokens stop working; enabling restores both', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Switchable'));
    const secret = app.clientSecret as string;
    const token = await accessToken(t, app.clientId, secret);
    const off = await call(t.app, 'PUT', `${URL_}/${app.id}/status`, {
      token: t.demoAdminToken,
      body: { status: 'disabled' },
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data.status).toBe('disabled');
    const refused = await clientCredentials(t, app.clientId, secret);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('invalid_client');
    expect(await isActive(t, inspector, token)).toBe(false);

    await call(t.app, 'PUT', `${URL_}/${app.id}/status`, { token: t.demoAdminToken, body: { status: 'active' } });
    expect(await isActive(t, inspector, token)).toBe(true);
    expect((await clientCredentials(t, app.clientId, secret)).statusCode).toBe(200);
  });

  it('refuses an unknown status, changing nothing', async () => {
    const before = await rowById(t, openApps, inspector.id);
    expectError(
      await call(t.app, 'PUT', `${URL_}/${inspector.id}/status`, {
        token: t.demoAdminToken,
        body: { status: 'paused' },
      }),
      400,
      'request.validation_failed',
      'status',
    );
    expect(await rowById(t, openApps, inspector.id)).toEqual(before);
  });
});

describe('DELETE /api/open-platform/apps/:id', () => {
  it('deletes the application and its tokens: a token obtained before no longer introspects or authenticates', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Doomed'));
    const secret = app.clientSecret as string;
    const token = await accessToken(t, app.clientId, secret, 'drive:read');
    expect(await isActive(t, inspector, token)).toBe(true);

    const res = await call(t.app, 'DELETE', `${URL_}/${app.id}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rowById(t, openApps, app.id)).toBeUndefined();
    expect(await isActive(t, inspector, token)).toBe(false);
    expect((await clientCredentials(t, app.clientId, secret)).json().error).toBe('invalid_client');
    expect(await tablesContaining(t, sha256(token))).toEqual([]);
    expectError(
      await call(t.app, 'DELETE', `${URL_}/${app.id}`, { token: t.demoAdminToken }),
      404,
      'open_platform.app_not_found',
    );
    // the name is free again
    await createApp(t, t.demoAdminToken, confidentialBody('Doomed'));
  });

  it('needs open:app:delete', async () => {
    const editor = await createUserWithPermissions(t, ['open:app:list', 'open:app:update']);
    expectError(
      await call(t.app, 'DELETE', `${URL_}/${inspector.id}`, { token: editor.token }),
      403,
      'auth.permission_denied',
    );
    expect(await rowById(t, openApps, inspector.id)).toBeDefined();
  });
});

describe('another tenant', () => {
  it('cannot see or change an application of this tenant (404, row and tokens unchanged)', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Private'));
    const token = await accessToken(t, app.clientId, app.clientSecret as string);
    const before = await rowById(t, openApps, app.id);
    const attempts: ['GET' | 'PUT' | 'POST' | 'DELETE', string, object | undefined][] = [
      ['GET', `${URL_}/${app.id}`, undefined],
      ['PUT', `${URL_}/${app.id}`, { name: 'Stolen', allowedScopes: [] }],
      ['PUT', `${URL_}/${app.id}/status`, { status: 'disabled' }],
      ['POST', `${URL_}/${app.id}/secret`, {}],
      ['DELETE', `${URL_}/${app.id}`, undefined],
    ];
    for (const [method, url, body] of attempts) {
      const res = await call(t.app, method, url, { token: other.adminToken, ...(body ? { body } : {}) });
      expectError(res, 404, 'open_platform.app_not_found');
      expect(res.body).not.toContain(app.clientId);
    }
    expect(await rowById(t, openApps, app.id)).toEqual(before);
    expect(await isActive(t, inspector, token)).toBe(true);
    // the platform scope is not a tenant's either
    expectError(
      await call(t.app, 'GET', `${URL_}/${app.id}`, { token: t.adminToken }),
      404,
      'open_platform.app_not_found',
    );
    // but a super administrator working inside the tenant sees it
    const inside = await call(t.app, 'GET', `${URL_}/${app.id}`, { token: t.adminToken, tenantId: t.demoTenantId });
    expect(inside.statusCode, inside.body).toBe(200);
    expect((await t.database.db.select().from(openApps).where(eq(openApps.name, 'Stolen'))).length).toBe(0);
  });
});
