import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageConfigs } from '../../src/modules/files/storage/tables.ts';
import { createStorageResolver, type StorageResolver } from '../../src/modules/files/storage-resolver.ts';
import { StorageUnavailable } from '../../src/platform/storage/provider.ts';
import { createS3Provider } from '../../src/platform/storage/s3.ts';
import { createTestApp, call as rawCall, type TestApp } from '../helpers/app.ts';
import { createVia, expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { S3_SECRET, startS3rver, type TestS3 } from './storage-s3rver.ts';

/** Storage configurations over HTTP, against a real S3-compatible server; and the resolver on top. */
let t: TestApp;
let s3: TestS3;
let dataDir: string;
let other: TenantFixture;
let reader: { token: string };
let nobody: { token: string };
let resolver: StorageResolver;
const answers: string[] = [];

/** Every answer is kept: none may ever contain the secret. */
async function call(...args: Parameters<typeof rawCall>) {
  const res = await rawCall(...args);
  answers.push(res.body);
  return res;
}

beforeAll(async () => {
  s3 = await startS3rver();
  dataDir = await mkdtemp(join(tmpdir(), 'atrium-storage-'));
  t = await createTestApp({
    // the one local S3 server is reachable through the egress allow-list, nothing else local is
    env: { DATA_DIR: dataDir, EGRESS_ALLOW_HOSTS: new URL(s3.endpoint).host },
  });
  ({ other, nobody } = await twoTenants(t));
  reader = await createUserWithPermissions(t, ['system:storage:list']);
  resolver = createStorageResolver(t.app.ctx);
});

afterAll(async () => {
  resolver?.close();
  await t?.close();
  await s3?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const s3Body = (name: string, extra: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) => ({
  name,
  kind: 's3',
  settings: {
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    forcePathStyle: true,
    prefix: 'atrium',
    ...settings,
  },
  secret: S3_SECRET,
  ...extra,
});
const rowOf = async (id: number) =>
  (await t.database.db.select().from(storageConfigs).where(eq(storageConfigs.id, id)))[0];

const create = (token: string, body: object) => createVia(t, '/api/storage-configs', token, body);

describe('storage configurations', () => {
  it('creates an S3 configuration: the secret is stored encrypted and answered only as hasSecret', async () => {
    const res = await call(t.app, 'POST', '/api/storage-configs', {
      token: t.demoAdminToken,
      body: s3Body('Primary bucket', { remark: 'main' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      name: 'Primary bucket',
      kind: 's3',
      hasSecret: true,
      isDefault: false,
      status: 'active',
      remark: 'main',
      settings: { bucket: s3.bucket, accessKeyId: s3.accessKeyId, forcePathStyle: true, prefix: 'atrium' },
    });
    expect(data).not.toHaveProperty('secret');
    expect(data).not.toHaveProperty('secretEncrypted');

    const row = await rowOf(data.id);
    expect(row?.tenantId).toBe(t.demoTenantId);
    expect(row?.secretEncrypted).toBeTruthy();
    expect(row?.secretEncrypted).not.toContain(S3_SECRET);
    expect(JSON.stringify(row?.settings)).not.toContain(S3_SECRET);
    expect(t.app.ctx.secrets.decrypt(row?.secretEncrypted as string, `storage_configs.secret:${data.id}`)).toBe(
      S3_SECRET,
    );

    const one = await call(t.app, 'GET', `/api/storage-configs/${data.id}`, { token: reader.token });
    expect(one.statusCode).toBe(200);
    expect(one.json().data).toMatchObject({ id: data.id, hasSecret: true });
    const list = await call(t.app, 'GET', '/api/storage-configs?kind=s3', { token: reader.token });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.list.map((c: { id: number }) => c.id)).toContain(data.id);
  });

  it('creates a local configuration with no settings', async () => {
    const res = await call(t.app, 'POST', '/api/storage-configs', {
      token: t.demoAdminToken,
      body: { name: 'Local disk', kind: 'local' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ kind: 'local', hasSecret: false, settings: {} });
  });

  it('rejects bad input with 400 naming the field and writes nothing', async () => {
    const before = await rowCount(t, storageConfigs);
    const cases: [object, string][] = [
      [s3Body('No bucket', {}, { bucket: undefined }), 'settings.bucket'],
      [s3Body('No key id', {}, { accessKeyId: undefined }), 'settings.accessKeyId'],
      [{ ...s3Body('No secret'), secret: undefined }, 'secret'],
      [s3Body('Bad endpoint', {}, { endpoint: 'ftp://files.example.com' }), 'settings.endpoint'],
      [s3Body('Creds in URL', {}, { endpoint: 'http://user:pw@files.example.com' }), 'settings.endpoint'],
      [s3Body('Bad bucket', {}, { bucket: 'a' }), 'settings.bucket'],
      [s3Body('Bad prefix', {}, { prefix: '../up' }), 'settings.prefix'],
      [s3Body('Extra', {}, { password: 'x' }), 'settings.password'],
      [{ name: 'Local with secret', kind: 'local', secret: 'x' }, 'secret'],
      [{ name: 'Local with bucket', kind: 'local', settings: { bucket: 'abc' } }, 'settings.bucket'],
      [{ name: '', kind: 'local' }, 'name'],
      [{ name: 'FTP', kind: 'ftp' }, 'kind'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, 'POST', '/api/storage-configs', { token: t.demoAdminToken, body });
      expectError(res, 400, 'request.validation_failed', field);
    }
    expect(await rowCount(t, storageConfigs)).toBe(before);
  });

  it('answers 409 naming name for a name taken in the tenant; another tenant may use it', async () => {
    await create(t.demoAdminToken, s3Body('Same name'));
    const again = await call(t.app, 'POST', '/api/storage-configs', {
      token: t.demoAdminToken,
      body: s3Body('Same name'),
    });
    expectError(again, 409, 'files.storage_config_exists', 'name');
    await create(other.adminToken, s3Body('Same name'));
  });

  it('updates: an omitted secret is kept, a new one replaces it, settings merge', async () => {
    const id = await create(t.demoAdminToken, s3Body('Editable'));
    const before = (await rowOf(id))?.secretEncrypted;

    const upd = await call(t.app, 'PUT', `/api/storage-configs/${id}`, {
      token: t.demoAdminToken,
      body: { name: 'Edited', settings: { prefix: 'other/prefix' } },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data).toMatchObject({
      name: 'Edited',
      hasSecret: true,
      settings: { prefix: 'other/prefix', bucket: s3.bucket, accessKeyId: s3.accessKeyId },
    });
    expect((await rowOf(id))?.secretEncrypted).toBe(before);

    const rotated = await call(t.app, 'PUT', `/api/storage-configs/${id}`, {
      token: t.demoAdminToken,
      body: { secret: 'a-brand-new-secret-value' },
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.body).not.toContain('a-brand-new-secret-value');
    const row = await rowOf(id);
    expect(row?.secretEncrypted).not.toBe(before);
    expect(t.app.ctx.secrets.decrypt(row?.secretEncrypted as string, `storage_configs.secret:${id}`)).toBe(
      'a-brand-new-secret-value',
    );

    const bad = await call(t.app, 'PUT', `/api/storage-configs/${id}`, {
      token: t.demoAdminToken,
      body: { settings: { endpoint: 'not a url' } },
    });
    expectError(bad, 400, 'request.validation_failed', 'settings.endpoint');
    const kind = await call(t.app, 'PUT', `/api/storage-configs/${id}`, {
      token: t.demoAdminToken,
      body: { kind: 'local' },
    });
    expectError(kind, 400, 'request.validation_failed', 'kind');
    expect((await rowOf(id))?.name).toBe('Edited');
  });

  it('keeps one default per tenant: making another default unsets the previous one atomically', async () => {
    const a = await create(t.demoAdminToken, s3Body('Default A'));
    const b = await create(t.demoAdminToken, { name: 'Default B', kind: 'local' });
    const ra = await call(t.app, 'POST', `/api/storage-configs/${a}/default`, { token: t.demoAdminToken });
    expect(ra.statusCode, ra.body).toBe(200);
    expect(ra.json().data.isDefault).toBe(true);
    const rb = await call(t.app, 'POST', `/api/storage-configs/${b}/default`, { token: t.demoAdminToken });
    expect(rb.json().data.isDefault).toBe(true);
    expect((await rowOf(a))?.isDefault).toBe(false);
    const defaults = await t.database.db.select().from(storageConfigs).where(eq(storageConfigs.isDefault, true));
    expect(defaults.filter((r) => r.tenantId === t.demoTenantId).map((r) => r.id)).toEqual([b]);

    // a default created directly also replaces the previous one
    const c = await create(t.demoAdminToken, { name: 'Default C', kind: 'local', isDefault: true });
    expect((await rowOf(b))?.isDefault).toBe(false);
    expect((await rowOf(c))?.isDefault).toBe(true);

    expectError(
      await call(t.app, 'DELETE', `/api/storage-configs/${c}`, { token: t.demoAdminToken }),
      409,
      'files.storage_config_default',
    );
    expectError(
      await call(t.app, 'PUT', `/api/storage-configs/${c}`, { token: t.demoAdminToken, body: { status: 'disabled' } }),
      409,
      'files.storage_config_default',
    );
    expect(await rowOf(c)).toMatchObject({ isDefault: true, status: 'active' });

    // a disabled configuration cannot become the default
    await call(t.app, 'PUT', `/api/storage-configs/${a}`, { token: t.demoAdminToken, body: { status: 'disabled' } });
    expectError(
      await call(t.app, 'POST', `/api/storage-configs/${a}/default`, { token: t.demoAdminToken }),
      409,
      'files.storage_config_disabled',
    );
  });

  it('deletes a configuration that is not the default', async () => {
    const id = await create(t.demoAdminToken, s3Body('Short-lived'));
    const res = await call(t.app, 'DELETE', `/api/storage-configs/${id}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rowOf(id)).toBeUndefined();
    expectError(
      await call(t.app, 'DELETE', `/api/storage-configs/${id}`, { token: t.demoAdminToken }),
      404,
      'files.storage_config_not_found',
    );
  });

  it('tests connectivity for real: ok for a working bucket, the error (without the secret) otherwise', async () => {
    const good = await create(t.demoAdminToken, s3Body('Probe good'));
    const ok = await call(t.app, 'POST', `/api/storage-configs/${good}/test`, { token: t.demoAdminToken });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toEqual({ ok: true, message: null });

    const local = await create(t.demoAdminToken, { name: 'Probe local', kind: 'local' });
    expect(
      (await call(t.app, 'POST', `/api/storage-configs/${local}/test`, { token: t.demoAdminToken })).json().data,
    ).toEqual({ ok: true, message: null });

    const noBucket = await create(t.demoAdminToken, s3Body('Probe no bucket', {}, { bucket: 'no-such-bucket' }));
    const r1 = await call(t.app, 'POST', `/api/storage-configs/${noBucket}/test`, { token: t.demoAdminToken });
    expect(r1.statusCode).toBe(200);
    expect(r1.json().data.ok).toBe(false);
    expect(r1.json().data.message).toMatch(/bucket/i);

    const badKey = await create(t.demoAdminToken, s3Body('Probe bad key', {}, { accessKeyId: 'AKIAWRONG' }));
    const r2 = await call(t.app, 'POST', `/api/storage-configs/${badKey}/test`, { token: t.demoAdminToken });
    expect(r2.json().data.ok).toBe(false);
    expect(r2.json().data.message).toMatch(/access key/i);
  });

  it("refuses a tenant's endpoint on a private, loopback or metadata address (the egress rules)", async () => {
    const before = await rowCount(t, storageConfigs);
    for (const endpoint of [
      'http://127.0.0.1:9',
      'http://169.254.169.254',
      'http://10.0.0.5:9000',
      'http://localhost:9',
      'http://[::1]:9000',
    ]) {
      const res = await call(t.app, 'POST', '/api/storage-configs', {
        token: t.demoAdminToken,
        body: s3Body(`SSRF ${endpoint}`, {}, { endpoint }),
      });
      expectError(res, 400, 'request.validation_failed', 'settings.endpoint');
    }
    const id = await create(t.demoAdminToken, s3Body('Will be redirected'));
    const upd = await call(t.app, 'PUT', `/api/storage-configs/${id}`, {
      token: t.demoAdminToken,
      body: { settings: { endpoint: 'http://127.0.0.1:6379' } },
    });
    expectError(upd, 400, 'request.validation_failed', 'settings.endpoint');
    expect(await rowCount(t, storageConfigs)).toBe(before + 1);

    // Saved before the rules (or the allow-list) changed: the connections themselves are refused,
    // an IP literal before connecting, a name whose DNS answer is loopback at the lookup.
    for (const endpoint of ['http://127.0.0.1:9', 'http://localhost:9']) {
      const [row] = await t.database.db
        .insert(storageConfigs)
        .values({
          tenantId: t.demoTenantId,
          name: `Legacy ${endpoint}`,
          kind: 's3',
          settings: {
            endpoint,
            region: 'us-east-1',
            bucket: s3.bucket,
            accessKeyId: s3.accessKeyId,
            forcePathStyle: true,
            prefix: '',
          },
        })
        .returning();
      const id = row?.id as number;
      await t.database.db
        .update(storageConfigs)
        .set({ secretEncrypted: t.app.ctx.secrets.encrypt(S3_SECRET, `storage_configs.secret:${id}`) })
        .where(eq(storageConfigs.id, id));
      const res = await call(t.app, 'POST', `/api/storage-configs/${id}/test`, { token: t.demoAdminToken });
      expect(res.json().data).toEqual({ ok: false, message: expect.stringMatching(/not allowed/) });
      // refused before connecting (an IP literal), or at the lookup: a failed call, 503 to a request
      const err = await resolver
        .byConfigId(id)
        .then((p) => p.head('x'))
        .catch((e: unknown) => e);
      expect(String(err instanceof StorageUnavailable ? err.cause : err)).toMatch(/not allowed/);
    }

    // the platform's configurations are the operator's: a private endpoint is accepted
    const platform = await call(t.app, 'POST', '/api/storage-configs', {
      token: t.adminToken,
      body: s3Body('Operator MinIO', {}, { endpoint: 'http://10.0.0.5:9000' }),
    });
    expect(platform.statusCode, platform.body).toBe(201);
  });

  it('answers 403 without the permission', async () => {
    const id = await create(t.demoAdminToken, s3Body('Guarded'));
    const before = await rowOf(id);
    const denied: [string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      [nobody.token, 'GET', '/api/storage-configs'],
      [nobody.token, 'GET', `/api/storage-configs/${id}`],
      [reader.token, 'POST', '/api/storage-configs', s3Body('Not allowed')],
      [reader.token, 'PUT', `/api/storage-configs/${id}`, { name: 'Hijacked' }],
      [reader.token, 'DELETE', `/api/storage-configs/${id}`],
      [reader.token, 'POST', `/api/storage-configs/${id}/default`],
      [reader.token, 'POST', `/api/storage-configs/${id}/test`],
    ];
    for (const [token, method, url, body] of denied) {
      expectError(await call(t.app, method, url, { token, ...(body ? { body } : {}) }), 403, 'auth.permission_denied');
    }
    expect(await rowOf(id)).toEqual(before);
    const names = (await t.database.db.select().from(storageConfigs)).map((r) => r.name);
    expect(names).not.toContain('Not allowed');
  });

  it("answers 404 for another tenant's configuration and leaves it unchanged", async () => {
    const id = await create(t.demoAdminToken, s3Body('Tenant A only'));
    const before = await rowOf(id);
    const token = other.adminToken;
    const attempts: ['GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['GET', `/api/storage-configs/${id}`],
      ['PUT', `/api/storage-configs/${id}`, { name: 'Taken over', secret: 'stolen' }],
      ['DELETE', `/api/storage-configs/${id}`],
      ['POST', `/api/storage-configs/${id}/default`],
      ['POST', `/api/storage-configs/${id}/test`],
    ];
    for (const [method, url, body] of attempts) {
      expectError(
        await call(t.app, method, url, { token, ...(body ? { body } : {}) }),
        404,
        'files.storage_config_not_found',
      );
    }
    expect(await rowOf(id)).toEqual(before);
    const list = await call(t.app, 'GET', '/api/storage-configs?pageSize=200', { token });
    expect(list.json().data.list.map((c: { id: number }) => c.id)).not.toContain(id);
  });
});

describe('storage resolver', () => {
  it('uses the built-in local disk without configurations, and for configId null', async () => {
    const fresh = await createTenant(t);
    const picked = await resolver.forNewObject(fresh.tenantId);
    expect(picked.configId).toBeNull();
    expect(picked.provider).toBe(resolver.local);
    expect(await resolver.byConfigId(null)).toBe(resolver.local);
    expect((resolver.local as { rootDir?: string }).rootDir).toBe(join(dataDir, 'files'));
  });

  it("picks the tenant's default, else the platform's default", async () => {
    const platformId = await create(t.adminToken, { name: 'Platform disk', kind: 'local', isDefault: true });
    expect((await rowOf(platformId))?.tenantId).toBeNull();
    const fresh = await createTenant(t);
    expect((await resolver.forNewObject(fresh.tenantId)).configId).toBe(platformId);
    expect((await resolver.forNewObject(null)).configId).toBe(platformId);

    const own = await create(fresh.adminToken, s3Body('Fresh default', { isDefault: true }));
    const picked = await resolver.forNewObject(fresh.tenantId);
    expect(picked.configId).toBe(own);
    expect(picked.provider.kind).toBe('s3');

    // bytes written through the resolved provider land in the bucket, under the prefix
    await picked.provider.put('objects/x/hello.txt', Readable.from([Buffer.from('hello')]), {
      contentType: 'text/plain',
    });
    const direct = createS3Provider({ ...s3, secretAccessKey: S3_SECRET, forcePathStyle: true });
    try {
      expect(await direct.head('atrium/objects/x/hello.txt')).toEqual({ size: 5 });
    } finally {
      direct.close();
    }
  });

  it('caches providers per configuration and rebuilds one after an update', async () => {
    const id = await create(t.demoAdminToken, s3Body('Cached'));
    const first = await resolver.byConfigId(id);
    expect(await resolver.byConfigId(id)).toBe(first);
    const upd = await call(t.app, 'PUT', `/api/storage-configs/${id}`, {
      token: t.demoAdminToken,
      body: { settings: { prefix: 'moved' } },
    });
    expect(upd.statusCode).toBe(200);
    const second = await resolver.byConfigId(id);
    expect(second).not.toBe(first);
    expect(await resolver.byConfigId(id)).toBe(second);
    resolver.invalidate(id);
    expect(await resolver.byConfigId(id)).not.toBe(second);
    await expect(resolver.byConfigId(999_999)).rejects.toThrow(/does not exist/);
  });
});

describe('secrets in answers', () => {
  it('no answer of this file ever contained a secret', () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const body of answers) {
      expect(body).not.toContain(S3_SECRET);
      expect(body).not.toContain('a-brand-new-secret-value');
    }
  });
});
