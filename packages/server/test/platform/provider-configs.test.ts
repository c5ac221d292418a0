import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushConfigs } from '../../src/modules/messaging/push/tables.ts';
import { smsConfigs } from '../../src/modules/messaging/sms/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant } from '../helpers/fixtures.ts';

/** The provider-configuration kit under concurrency, through two of its users (SMS: listed, push: single). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('set-default', () => {
  it('several at once leave exactly one default; the losers get the module’s 409', async () => {
    const x = await createTenant(t);
    const ids: number[] = [];
    for (const name of ['A', 'B', 'C', 'D', 'E']) {
      const res = await call(t.app, 'POST', '/api/sms-configs', {
        token: x.adminToken,
        body: { name, provider: 'aliyun', accessKeyId: 'LTAI-key', accessKeySecret: 'secret-0001', signName: 'Atrium' },
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().data.id);
    }
    const results = await Promise.all(
      ids.slice(1).map((id) => call(t.app, 'POST', `/api/sms-configs/${id}/default`, { token: x.adminToken })),
    );
    for (const res of results) {
      if (res.statusCode !== 200) {
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json().error).toBe('messaging.sms_default_conflict');
      }
    }
    expect(results.some((r) => r.statusCode === 200)).toBe(true);
    const rows = await t.database.db.select().from(smsConfigs).where(eq(smsConfigs.tenantId, x.tenantId));
    expect(rows.filter((r) => r.isDefault)).toHaveLength(1);
  });
});

describe('single configuration', () => {
  it('first saves at once make one row: the later ones update it', async () => {
    const x = await createTenant(t);
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        call(t.app, 'PUT', '/api/push-config', {
          token: x.adminToken,
          body: { appKey: `app-key-${i}`, masterSecret: `master-secret-${i}` },
        }),
      ),
    );
    for (const res of results) expect(res.statusCode, res.body).toBe(200);
    const rows = await t.database.db.select().from(pushConfigs).where(eq(pushConfigs.tenantId, x.tenantId));
    expect(rows).toHaveLength(1);
    const view = (await call(t.app, 'GET', '/api/push-config', { token: x.adminToken })).json().data;
    expect(view).toMatchObject({ configured: true, effective: 'own', masterSecretSet: true });
    expect(JSON.stringify(view)).not.toContain('master-secret-');
  });
});
