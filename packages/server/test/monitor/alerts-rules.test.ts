import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorAlertLogs, errorAlertRules } from '../../src/modules/monitor/alerts/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { settle } from '../messaging/dispatch-helpers.ts';
import { createRule, LOGS, RULES, ruleRow } from './alerts-helpers.ts';

let t: TestApp;
let other: TenantFixture;
let demoAdminId: number;
beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
  demoAdminId = (await call(t.app, 'GET', '/api/auth/me', { token: t.demoAdminToken })).json().data.user.id;
});
afterAll(async () => t?.close());

const valid = () => ({
  name: 'JS errors',
  enabled: true,
  condition: 'threshold',
  errorType: 'js_error',
  level: 'error',
  threshold: 10,
  windowMinutes: 30,
  channels: ['inapp', 'email'],
  recipients: [demoAdminId],
});

describe('/api/frontend-errors/alerts', () => {
  it('creates, lists, reads, updates, toggles and deletes a rule', async () => {
    const created = await call(t.app, 'POST', RULES, { token: t.demoAdminToken, body: valid() });
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json().data;
    expect(rule).toMatchObject({
      ...valid(),
      webhookUrl: null,
      lastTriggeredAt: null,
      createdBy: demoAdminId,
    });

    const list = await call(t.app, 'GET', `${RULES}?condition=threshold`, { token: t.demoAdminToken });
    expect(list.json().data.list.map((r: { id: number }) => r.id)).toContain(rule.id);
    expect((await call(t.app, 'GET', `${RULES}/${rule.id}`, { token: t.demoAdminToken })).json().data).toEqual(rule);

    const updated = await call(t.app, 'PUT', `${RULES}/${rule.id}`, {
      token: t.demoAdminToken,
      body: { condition: 'spike', errorType: null, channels: ['webhook'], webhookUrl: 'https://hooks.example.com/x' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data).toMatchObject({
      condition: 'spike',
      errorType: null,
      level: 'error',
      channels: ['webhook'],
      webhookUrl: 'https://hooks.example.com/x',
    });

    const off = await call(t.app, 'PUT', `${RULES}/${rule.id}/enabled`, {
      token: t.demoAdminToken,
      body: { enabled: false },
    });
    expect(off.json().data.enabled).toBe(false);
    expect((await ruleRow(t, rule.id)).enabled).toBe(false);

    expect((await call(t.app, 'DELETE', `${RULES}/${rule.id}`, { token: t.demoAdminToken })).statusCode).toBe(200);
    expectError(
      await call(t.app, 'GET', `${RULES}/${rule.id}`, { token: t.demoAdminToken }),
      404,
      'monitor.alert_rule_not_found',
    );
  });

  it('a partial update changes only the fields it names (no create default resets the others)', async () => {
    const created = await call(t.app, 'POST', RULES, { token: t.demoAdminToken, body: valid() });
    const id = created.json().data.id;
    const renamed = await call(t.app, 'PUT', `${RULES}/${id}`, { token: t.demoAdminToken, body: { name: 'Renamed' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data).toMatchObject({ ...valid(), name: 'Renamed' });
    expect((await call(t.app, 'GET', `${RULES}/${id}`, { token: t.demoAdminToken })).json().data).toMatchObject({
      enabled: true,
      threshold: 10,
      windowMinutes: 30,
    });
  });

  it('answers 400 naming the field and writes nothing', async () => {
    const before = await rowCount(t, errorAlertRules);
    const bad: [Record<string, unknown>, string, string][] = [
      [{ threshold: 0 }, 'threshold', 'request.validation_failed'],
      [{ threshold: 100_001 }, 'threshold', 'request.validation_failed'],
      [{ windowMinutes: 0 }, 'windowMinutes', 'request.validation_failed'],
      [{ windowMinutes: 10_081 }, 'windowMinutes', 'request.validation_failed'],
      [{ condition: 'sometimes' }, 'condition', 'request.validation_failed'],
      [{ channels: ['sms'] }, 'channels.0', 'request.validation_failed'],
      [{ webhookUrl: 'ftp://x.example.com' }, 'webhookUrl', 'request.validation_failed'],
      [{ channels: [] }, 'channels', 'monitor.alert_rule_invalid'],
      [{ channels: ['webhook'] }, 'webhookUrl', 'monitor.alert_rule_invalid'],
      [{ channels: ['email'], recipients: [] }, 'recipients', 'monitor.alert_rule_invalid'],
      [{ channels: ['inapp'], recipients: [] }, 'recipients', 'monitor.alert_rule_invalid'],
      // a user of another tenant cannot receive this tenant's alerts
      [{ recipients: [other.adminUserId] }, 'recipients', 'monitor.alert_rule_invalid'],
    ];
    for (const [patch, field, error] of bad) {
      expectError(
        await call(t.app, 'POST', RULES, { token: t.demoAdminToken, body: { ...valid(), ...patch } }),
        400,
        error,
        field,
      );
    }
    expect(await rowCount(t, errorAlertRules)).toBe(before);

    // a disabled rule may be saved incomplete, but not enabled so
    const draft = await createRule(t, t.demoAdminToken, { name: 'draft', condition: 'new_error' });
    expect(draft).toMatchObject({ enabled: false, channels: [], threshold: 1, windowMinutes: 60 });
    expectError(
      await call(t.app, 'PUT', `${RULES}/${draft.id}/enabled`, { token: t.demoAdminToken, body: { enabled: true } }),
      400,
      'monitor.alert_rule_invalid',
      'channels',
    );
    expectError(
      await call(t.app, 'PUT', `${RULES}/${draft.id}`, {
        token: t.demoAdminToken,
        body: { enabled: true, channels: ['webhook', 'inapp'], webhookUrl: 'https://h.example.com' },
      }),
      400,
      'monitor.alert_rule_invalid',
      'recipients',
    );
    expect(await ruleRow(t, draft.id)).toMatchObject({ enabled: false, channels: [] });
  });

  it('needs monitor:alert:list to read and monitor:alert:manage to write', async () => {
    const rule = await createRule(t, t.demoAdminToken, { name: 'perm', condition: 'new_error' });
    const reader = await createUserWithPermissions(t, ['monitor:alert:list']);
    const none = await createUserWithPermissions(t, ['monitor:error:list']);
    expect((await call(t.app, 'GET', RULES, { token: reader.token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', LOGS, { token: reader.token })).statusCode).toBe(200);
    expectError(await call(t.app, 'GET', RULES, { token: none.token }), 403, 'auth.permission_denied');
    expectError(await call(t.app, 'GET', LOGS, { token: none.token }), 403, 'auth.permission_denied');
    const writes: ['POST' | 'PUT' | 'DELETE', string, unknown][] = [
      ['POST', RULES, { name: 'x', condition: 'new_error' }],
      ['PUT', `${RULES}/${rule.id}`, { name: 'renamed' }],
      ['PUT', `${RULES}/${rule.id}/enabled`, { enabled: false }],
      ['DELETE', `${RULES}/${rule.id}`, undefined],
      ['POST', `${RULES}/${rule.id}/test`, undefined],
      ['POST', `${RULES}/${rule.id}/webhook-secret`, {}],
    ];
    for (const [method, url, body] of writes) {
      expectError(await call(t.app, method, url, { token: reader.token, body }), 403, 'auth.permission_denied');
    }
    expect(await ruleRow(t, rule.id)).toMatchObject({ name: 'perm' });
  });

  it('hides another tenant’s rules and logs (404, nothing changed)', async () => {
    const rule = await createRule(t, t.demoAdminToken, { ...valid(), name: 'mine' });
    await call(t.app, 'POST', `${RULES}/${rule.id}/test`, { token: t.demoAdminToken });
    const tok = other.adminToken;
    for (const [method, url, body] of [
      ['GET', `${RULES}/${rule.id}`, undefined],
      ['PUT', `${RULES}/${rule.id}`, { name: 'stolen' }],
      ['PUT', `${RULES}/${rule.id}/enabled`, { enabled: false }],
      ['DELETE', `${RULES}/${rule.id}`, undefined],
      ['POST', `${RULES}/${rule.id}/test`, undefined],
      ['POST', `${RULES}/${rule.id}/webhook-secret`, {}],
    ] as const) {
      expectError(await call(t.app, method, url, { token: tok, body }), 404, 'monitor.alert_rule_not_found');
    }
    expect(await ruleRow(t, rule.id)).toMatchObject({ name: 'mine', enabled: true });
    expect((await call(t.app, 'GET', RULES, { token: tok })).json().data.total).toBe(0);
    expect((await call(t.app, 'GET', `${LOGS}?ruleId=${rule.id}`, { token: tok })).json().data.total).toBe(0);
  });
});

describe('POST /api/frontend-errors/alerts/:id/webhook-secret', () => {
  it('refuses a bad grace period with 400 naming graceSeconds and keeps the secret', async () => {
    const rule = await createRule(t, t.demoAdminToken, {
      ...valid(),
      name: 'rotate-bad',
      channels: ['webhook'],
      webhookUrl: 'https://hooks.example.com/alerts',
    });
    const before = await ruleRow(t, rule.id);
    expect(before.secretEncrypted).toMatch(/./);
    for (const body of [{ graceSeconds: -1 }, { graceSeconds: 8 * 86_400 }, { graceSeconds: 'soon' }, { extra: 1 }]) {
      const res = await call(t.app, 'POST', `${RULES}/${rule.id}/webhook-secret`, { token: t.demoAdminToken, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe('request.validation_failed');
      if ('graceSeconds' in body) expect(JSON.stringify(res.json().details)).toContain('graceSeconds');
    }
    const after = await ruleRow(t, rule.id);
    expect(after.secretEncrypted).toBe(before.secretEncrypted);
    expect(after.previousSecretEncrypted).toBeNull();
  });
});

describe('POST /api/frontend-errors/alerts/:id/test', () => {
  it('sends through the rule’s channels, logs test=true and leaves the debounce alone', async () => {
    const rule = await createRule(t, t.demoAdminToken, { ...valid(), name: 'Checkout', channels: ['inapp'] });
    const res = await call(t.app, 'POST', `${RULES}/${rule.id}/test`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    const log = res.json().data;
    expect(log).toMatchObject({
      ruleId: rule.id,
      test: true,
      ruleSnapshot: { name: 'Checkout', channels: ['inapp'] },
      channels: { inapp: { status: 'queued' } },
    });
    expect((await ruleRow(t, rule.id)).lastTriggeredAt).toBeNull();

    const rows = await settle(t, log.channels.inapp.outboxId);
    expect(rows.map((r) => [r.channel, r.decision])).toEqual([['inapp', 'sent']]);
    const inbox = (await call(t.app, 'GET', '/api/in-app-messages', { token: t.demoAdminToken })).json().data.list;
    expect(inbox).toContainEqual(
      expect.objectContaining({ title: '[test] Checkout: Test notification', source: 'ops.error.alert' }),
    );

    const logs = await call(t.app, 'GET', `${LOGS}?ruleId=${rule.id}&test=true`, { token: t.demoAdminToken });
    expect(logs.json().data).toMatchObject({ total: 1, list: [{ id: log.id, test: true }] });
  });

  it('refuses a rule without channels (400), writing no log', async () => {
    const draft = await createRule(t, t.demoAdminToken, { name: 'empty', condition: 'new_error' });
    const before = await rowCount(t, errorAlertLogs);
    expectError(
      await call(t.app, 'POST', `${RULES}/${draft.id}/test`, { token: t.demoAdminToken }),
      400,
      'monitor.alert_rule_invalid',
      'channels',
    );
    expect(await rowCount(t, errorAlertLogs)).toBe(before);
  });
});
