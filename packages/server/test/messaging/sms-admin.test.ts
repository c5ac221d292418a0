import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsConfigs, smsSendLogs, smsTemplates } from '../../src/modules/messaging/sms/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createVia, expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';

/** SMS configurations, templates and send logs over HTTP: CRUD, defaults, secrets, permissions, tenants. */
let t: TestApp;
let other: TenantFixture;
let nobody: { token: string };
const SECRET = 'very-secret-access-key-0001';

const aliyunBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  provider: 'aliyun',
  accessKeyId: 'LTAI-key',
  accessKeySecret: SECRET,
  signName: 'Atrium',
  ...extra,
});
const createConfig = (name: string, extra: Record<string, unknown> = {}, token = t.demoAdminToken) =>
  createVia(t, '/api/sms-configs', token, aliyunBody(name, extra));

async function defaultsOf(tenantId: number): Promise<number[]> {
  const rows = await t.database.db
    .select({ id: smsConfigs.id })
    .from(smsConfigs)
    .where(and(eq(smsConfigs.tenantId, tenantId), eq(smsConfigs.isDefault, true)));
  return rows.map((r) => r.id);
}

beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody } = await twoTenants(t));
});
afterAll(async () => t?.close());

describe('SMS configurations', () => {
  let first: number;
  let second: number;

  it('creates one: the secret is stored encrypted, never answered, and the first becomes the default', async () => {
    const res = await call(t.app, 'POST', '/api/sms-configs', {
      token: t.demoAdminToken,
      body: aliyunBody('Main', { remark: 'primary' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      name: 'Main',
      provider: 'aliyun',
      accessKeyId: 'LTAI-key',
      accessKeySecretSet: true,
      signName: 'Atrium',
      sdkAppId: null,
      region: 'cn-hangzhou',
      endpoint: 'https://dysmsapi.aliyuncs.com',
      isDefault: true,
      status: 'active',
      remark: 'primary',
    });
    expect(res.body).not.toContain(SECRET);
    first = data.id;
    const row = await rowById(t, smsConfigs, first);
    expect(row?.tenantId).toBe(t.demoTenantId);
    expect(row?.accessKeySecretEncrypted).not.toContain(SECRET);
    expect(
      t.app.ctx.secrets.decrypt(row?.accessKeySecretEncrypted as string, `sms_configs.access_key_secret:${first}`),
    ).toBe(SECRET);
  });

  it('a Tencent configuration needs its SmsSdkAppId and gets the official endpoint', async () => {
    const res = await call(t.app, 'POST', '/api/sms-configs', {
      token: t.demoAdminToken,
      body: aliyunBody('Tencent', { provider: 'tencent', sdkAppId: '1400000001' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      sdkAppId: '1400000001',
      region: 'ap-guangzhou',
      endpoint: 'https://sms.tencentcloudapi.com',
      isDefault: false,
    });
    second = res.json().data.id;
  });

  it('refuses bad input, naming the field, and writes nothing', async () => {
    const before = await rowCount(t, smsConfigs);
    const cases: [Record<string, unknown>, string][] = [
      [aliyunBody('T', { provider: 'tencent' }), 'sdkAppId'],
      [aliyunBody('A', { sdkAppId: '1400' }), 'sdkAppId'],
      [aliyunBody('E', { endpoint: 'ftp://sms.example.com' }), 'endpoint'],
      [aliyunBody('E', { endpoint: 'https://user:pw@sms.example.com' }), 'endpoint'],
      [aliyunBody('P', { provider: 'twilio' }), 'provider'],
      [{ ...aliyunBody('S'), accessKeySecret: undefined }, 'accessKeySecret'],
      [aliyunBody(''), 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, 'POST', '/api/sms-configs', { token: t.demoAdminToken, body });
      expectError(res, 400, 'request.validation_failed', field);
    }
    expectError(
      await call(t.app, 'PUT', `/api/sms-configs/${first}`, { token: t.demoAdminToken, body: { provider: 'tencent' } }),
      400,
      'request.validation_failed',
    );
    expect(await rowCount(t, smsConfigs)).toBe(before);
  });

  it('a name is unique within the tenant', async () => {
    expectError(
      await call(t.app, 'POST', '/api/sms-configs', { token: t.demoAdminToken, body: aliyunBody('Main') }),
      409,
      'messaging.sms_config_exists',
      'name',
    );
    // another tenant may use it
    await createConfig('Main', {}, other.adminToken);
  });

  it('updates: an omitted secret is kept, a new one replaces it', async () => {
    const res = await call(t.app, 'PUT', `/api/sms-configs/${second}`, {
      token: t.demoAdminToken,
      body: { signName: 'Renamed', region: 'ap-beijing' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ signName: 'Renamed', region: 'ap-beijing', accessKeySecretSet: true });
    const before = (await rowById(t, smsConfigs, second))?.accessKeySecretEncrypted;
    await call(t.app, 'PUT', `/api/sms-configs/${second}`, {
      token: t.demoAdminToken,
      body: { accessKeySecret: 'new' },
    });
    const after = (await rowById(t, smsConfigs, second))?.accessKeySecretEncrypted as string;
    expect(after).not.toBe(before);
    expect(t.app.ctx.secrets.decrypt(after, `sms_configs.access_key_secret:${second}`)).toBe('new');
  });

  it('switching the default leaves exactly one default', async () => {
    expect(await defaultsOf(t.demoTenantId)).toEqual([first]);
    const res = await call(t.app, 'POST', `/api/sms-configs/${second}/default`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.isDefault).toBe(true);
    expect(await defaultsOf(t.demoTenantId)).toEqual([second]);
    // a repeat changes nothing
    await call(t.app, 'POST', `/api/sms-configs/${second}/default`, { token: t.demoAdminToken });
    expect(await defaultsOf(t.demoTenantId)).toEqual([second]);
    // the other tenant's default is untouched
    expect(await defaultsOf(other.tenantId)).toHaveLength(1);
  });

  it('a disabled configuration cannot become the default; the default may be disabled', async () => {
    const third = await createConfig('Spare', { status: 'disabled' });
    expect((await rowById(t, smsConfigs, third))?.isDefault).toBe(false);
    expectError(
      await call(t.app, 'POST', `/api/sms-configs/${third}/default`, { token: t.demoAdminToken }),
      409,
      'messaging.sms_config_disabled',
    );
    const res = await call(t.app, 'PUT', `/api/sms-configs/${second}`, {
      token: t.demoAdminToken,
      body: { status: 'disabled' },
    });
    expect(res.json().data).toMatchObject({ status: 'disabled', isDefault: true });
    await call(t.app, 'PUT', `/api/sms-configs/${second}`, { token: t.demoAdminToken, body: { status: 'active' } });
    await call(t.app, 'DELETE', `/api/sms-configs/${third}`, { token: t.demoAdminToken });
  });

  it('deletes: not the default while others exist, not one a template uses', async () => {
    expectError(
      await call(t.app, 'DELETE', `/api/sms-configs/${second}`, { token: t.demoAdminToken }),
      409,
      'messaging.sms_config_default',
    );
    const template = await createVia(t, '/api/sms-templates', t.demoAdminToken, {
      code: 'uses-first',
      name: 'Uses first',
      configId: first,
      providerTemplateId: 'SMS_1',
    });
    expectError(
      await call(t.app, 'DELETE', `/api/sms-configs/${first}`, { token: t.demoAdminToken }),
      409,
      'messaging.sms_config_in_use',
    );
    await call(t.app, 'DELETE', `/api/sms-templates/${template}`, { token: t.demoAdminToken });
    const res = await call(t.app, 'DELETE', `/api/sms-configs/${first}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rowById(t, smsConfigs, first)).toBeUndefined();
    // the last one may go, default or not
    const res2 = await call(t.app, 'DELETE', `/api/sms-configs/${second}`, { token: t.demoAdminToken });
    expect(res2.statusCode, res2.body).toBe(200);
    expect(await defaultsOf(t.demoTenantId)).toEqual([]);
  });

  it('lists with filters, never with a secret', async () => {
    const a = await createConfig('List A');
    const b = await createConfig('List B', { provider: 'tencent', sdkAppId: '1400' });
    const res = await call(t.app, 'GET', '/api/sms-configs?provider=tencent', { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    const ids = res.json().data.list.map((c: { id: number }) => c.id);
    expect(ids).toContain(b);
    expect(ids).not.toContain(a);
    expect(res.body).not.toContain('Encrypted');
    const one = await call(t.app, 'GET', `/api/sms-configs/${a}`, { token: t.demoAdminToken });
    expect(one.json().data).toMatchObject({ id: a, accessKeySecretSet: true });
    expect(one.json().data).not.toHaveProperty('accessKeySecret');
  });

  it('needs the permissions; another tenant’s configuration is not found and stays unchanged', async () => {
    const id = await createConfig('Guarded');
    for (const [method, url, body] of [
      ['GET', '/api/sms-configs', undefined],
      ['GET', `/api/sms-configs/${id}`, undefined],
      ['POST', '/api/sms-configs', aliyunBody('X')],
      ['PUT', `/api/sms-configs/${id}`, { name: 'Y' }],
      ['DELETE', `/api/sms-configs/${id}`, undefined],
      ['POST', `/api/sms-configs/${id}/default`, undefined],
    ] as const) {
      expectError(await call(t.app, method, url, { token: nobody.token, body }), 403, 'auth.permission_denied');
    }
    const reader = await createUserWithPermissions(t, ['system:sms-config:list']);
    expect((await call(t.app, 'GET', `/api/sms-configs/${id}`, { token: reader.token })).statusCode).toBe(200);
    expectError(
      await call(t.app, 'POST', `/api/sms-configs/${id}/default`, { token: reader.token }),
      403,
      'auth.permission_denied',
    );

    const before = await rowById(t, smsConfigs, id);
    for (const [method, url, body] of [
      ['GET', `/api/sms-configs/${id}`, undefined],
      ['PUT', `/api/sms-configs/${id}`, { name: 'Stolen' }],
      ['DELETE', `/api/sms-configs/${id}`, undefined],
      ['POST', `/api/sms-configs/${id}/default`, undefined],
    ] as const) {
      expectError(
        await call(t.app, method, url, { token: other.adminToken, body }),
        404,
        'messaging.sms_config_not_found',
      );
    }
    expect(await rowById(t, smsConfigs, id)).toEqual(before);
    const list = await call(t.app, 'GET', '/api/sms-configs', { token: other.adminToken });
    expect(list.json().data.list.map((c: { id: number }) => c.id)).not.toContain(id);
  });
});

describe('SMS templates', () => {
  let templateId: number;

  it('creates one: the variables default to the placeholders of the content', async () => {
    const res = await call(t.app, 'POST', '/api/sms-templates', {
      token: t.demoAdminToken,
      body: {
        code: 'task.urge',
        name: 'Urge',
        providerTemplateId: 'SMS_153055065',
        content: 'Hi {{name}}, please handle {{ task }} for {{name}}',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      code: 'task.urge',
      configId: null,
      providerTemplateId: 'SMS_153055065',
      variables: ['name', 'task'],
      status: 'active',
    });
    templateId = res.json().data.id;
  });

  it('keeps explicit variable names in their order; updates and lists', async () => {
    const res = await call(t.app, 'PUT', `/api/sms-templates/${templateId}`, {
      token: t.demoAdminToken,
      body: { variables: ['task', 'name'], status: 'disabled' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ variables: ['task', 'name'], status: 'disabled', code: 'task.urge' });
    const list = await call(t.app, 'GET', '/api/sms-templates?keyword=urge&status=disabled', {
      token: t.demoAdminToken,
    });
    expect(list.json().data.list.map((x: { id: number }) => x.id)).toEqual([templateId]);
    const one = await call(t.app, 'GET', `/api/sms-templates/${templateId}`, { token: t.demoAdminToken });
    expect(one.json().data.variables).toEqual(['task', 'name']);
  });

  it('refuses bad input, a taken code and another tenant’s configuration; writes nothing', async () => {
    const foreignConfig = await createConfig('Foreign', {}, other.adminToken);
    const before = await rowCount(t, smsTemplates);
    const base = { code: 'ok', name: 'Ok', providerTemplateId: 'SMS_2' };
    for (const [body, field] of [
      [{ ...base, code: 'has space' }, 'code'],
      [{ ...base, providerTemplateId: '' }, 'providerTemplateId'],
      [{ ...base, variables: ['a', 'a'] }, 'variables'],
      [{ ...base, variables: ['1bad'] }, 'variables.0'],
      [{ ...base, configId: foreignConfig }, 'configId'],
    ] as const) {
      expectError(
        await call(t.app, 'POST', '/api/sms-templates', { token: t.demoAdminToken, body }),
        400,
        'request.validation_failed',
        field,
      );
    }
    expectError(
      await call(t.app, 'POST', '/api/sms-templates', {
        token: t.demoAdminToken,
        body: { ...base, code: 'task.urge' },
      }),
      409,
      'messaging.sms_template_exists',
      'code',
    );
    expect(await rowCount(t, smsTemplates)).toBe(before);
  });

  it('needs the permissions; another tenant’s template is not found and stays unchanged', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/sms-templates', undefined],
      ['GET', `/api/sms-templates/${templateId}`, undefined],
      ['POST', '/api/sms-templates', { code: 'x', name: 'x', providerTemplateId: 'x' }],
      ['PUT', `/api/sms-templates/${templateId}`, { name: 'y' }],
      ['DELETE', `/api/sms-templates/${templateId}`, undefined],
    ] as const) {
      expectError(await call(t.app, method, url, { token: nobody.token, body }), 403, 'auth.permission_denied');
    }
    const before = await rowById(t, smsTemplates, templateId);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'Stolen' }],
      ['DELETE', undefined],
    ] as const) {
      expectError(
        await call(t.app, method, `/api/sms-templates/${templateId}`, { token: other.adminToken, body }),
        404,
        'messaging.sms_template_not_found',
      );
    }
    expect(await rowById(t, smsTemplates, templateId)).toEqual(before);
  });

  it('deletes', async () => {
    const res = await call(t.app, 'DELETE', `/api/sms-templates/${templateId}`, { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    expect(await rowById(t, smsTemplates, templateId)).toBeUndefined();
    expectError(
      await call(t.app, 'DELETE', `/api/sms-templates/${templateId}`, { token: t.demoAdminToken }),
      404,
      'messaging.sms_template_not_found',
    );
  });
});

describe('SMS send logs', () => {
  const ids: number[] = [];
  beforeAll(async () => {
    const rows = [
      { phone: '13800000001', status: 'sent', eventKey: 'workflow.task.urged', at: '2026-03-01T10:00:00Z' },
      { phone: '13800000002', status: 'failed', eventKey: 'ops.monitor.alert', at: '2026-03-02T10:00:00Z' },
      { phone: '13800000001', status: 'failed', eventKey: null, at: '2026-03-03T10:00:00Z' },
    ] as const;
    for (const r of rows) {
      const [row] = await t.database.db
        .insert(smsSendLogs)
        .values({
          tenantId: t.demoTenantId,
          phone: r.phone,
          status: r.status,
          eventKey: r.eventKey,
          provider: 'aliyun',
          error: r.status === 'failed' ? 'isv.BUSINESS_LIMIT_CONTROL: too many' : null,
          createdAt: new Date(r.at),
        })
        .returning();
      ids.push(row?.id as number);
    }
  });

  const listIds = async (query: string, token = t.demoAdminToken) => {
    const res = await call(t.app, 'GET', `/api/sms-send-logs${query}`, { token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.list.map((l: { id: number }) => l.id);
  };

  it('lists newest first, with filters', async () => {
    expect(await listIds('')).toEqual([ids[2], ids[1], ids[0]]);
    expect(await listIds('?status=failed')).toEqual([ids[2], ids[1]]);
    expect(await listIds('?phone=13800000001')).toEqual([ids[2], ids[0]]);
    expect(await listIds('?eventKey=ops.monitor.alert')).toEqual([ids[1]]);
    expect(await listIds('?from=2026-03-02T00:00:00Z&to=2026-03-03T10:00:00Z')).toEqual([ids[1]]);
    expect(await listIds('', other.adminToken)).toEqual([]);
    expectError(
      await call(t.app, 'GET', '/api/sms-send-logs?status=lost', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'status',
    );
  });

  it('reads and deletes one; another tenant cannot; permissions apply', async () => {
    const one = await call(t.app, 'GET', `/api/sms-send-logs/${ids[1]}`, { token: t.demoAdminToken });
    expect(one.json().data).toMatchObject({ id: ids[1], status: 'failed', error: expect.stringContaining('LIMIT') });
    expectError(
      await call(t.app, 'GET', `/api/sms-send-logs/${ids[1]}`, { token: other.adminToken }),
      404,
      'messaging.sms_send_log_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/sms-send-logs/${ids[1]}`, { token: other.adminToken }),
      404,
      'messaging.sms_send_log_not_found',
    );
    const reader = await createUserWithPermissions(t, ['system:sms-send-log:list']);
    expectError(
      await call(t.app, 'DELETE', `/api/sms-send-logs/${ids[1]}`, { token: reader.token }),
      403,
      'auth.permission_denied',
    );
    expectError(await call(t.app, 'GET', '/api/sms-send-logs', { token: nobody.token }), 403, 'auth.permission_denied');
    expect(await rowById(t, smsSendLogs, ids[1] as number)).toBeDefined();
    const del = await call(t.app, 'DELETE', `/api/sms-send-logs/${ids[1]}`, { token: t.demoAdminToken });
    expect(del.statusCode).toBe(200);
    expect(await rowById(t, smsSendLogs, ids[1] as number)).toBeUndefined();
  });
});
