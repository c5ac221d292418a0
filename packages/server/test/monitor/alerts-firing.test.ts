import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorAlertRules } from '../../src/modules/monitor/alerts/tables.ts';
import { SIGNATURE_HEADER, verifySignature } from '../../src/platform/egress/signing.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createTenant, type TenantFixture, USER_PASSWORD } from '../helpers/fixtures.ts';
import { receiver, settle, testClock } from '../messaging/dispatch-helpers.ts';
import { createRule, LOGS, logsOf, RULES, ruleRow, runEvaluate, seedEvents, waitFor } from './alerts-helpers.ts';
import { jsError, report } from './ingest-helpers.ts';

/**
 * Alert evaluation with a clock the test moves: each condition fires, at most once per window;
 * report-time new_error; delivery to the inbox and to a real webhook receiver on 127.0.0.1.
 * Each test works in a tenant of its own so one test's rules never see another's errors.
 */
let t: TestApp;
let hook: Awaited<ReturnType<typeof receiver>>;
let failing: Awaited<ReturnType<typeof receiver>>;
const clock = testClock('2026-11-21T04:00:00.000Z');
const MIN = 60_000;
const token = (x: TenantFixture) => login(t.app, 'admin', USER_PASSWORD, x.code);

beforeAll(async () => {
  hook = await receiver(200);
  failing = await receiver(500);
  t = await createTestApp({
    clock: clock.clock,
    env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${hook.port},127.0.0.1:${failing.port}` },
  });
});
afterAll(async () => {
  await t?.close();
  await hook?.close();
  await failing?.close();
});

const rule = async (x: TenantFixture, body: Record<string, unknown>) =>
  createRule(t, await token(x), {
    name: `rule ${body.condition}`,
    enabled: true,
    channels: ['inapp'],
    recipients: [x.adminUserId],
    ...body,
  });

describe('threshold', () => {
  it('fires when the window holds ≥ threshold events (filters applied), at most once per window', async () => {
    const x = await createTenant(t);
    const r = await rule(x, { condition: 'threshold', threshold: 5, windowMinutes: 10, errorType: 'js_error' });
    const now = clock.clock();
    // 4 matching events in the window, 10 of another type, 20 outside the window: no hit
    const g = await seedEvents(t, x.tenantId, new Date(now.getTime() - 2 * MIN), 4);
    await seedEvents(t, x.tenantId, new Date(now.getTime() - 2 * MIN), 10, { type: 'http_error' });
    await seedEvents(t, x.tenantId, new Date(now.getTime() - 11 * MIN), 20);
    await runEvaluate(t);
    expect(await logsOf(t, r.id)).toHaveLength(0);

    await seedEvents(t, x.tenantId, new Date(now.getTime() - MIN), 1, { groupId: g });
    await runEvaluate(t);
    const [log] = await logsOf(t, r.id);
    expect(log).toMatchObject({
      test: false,
      ruleSnapshot: { id: r.id, condition: 'threshold', threshold: 5 },
      hits: { trigger: 'task', count: 5, groups: [{ id: g }] },
      channels: { inapp: { status: 'queued' } },
    });
    expect((await ruleRow(t, r.id)).lastTriggeredAt?.toISOString()).toBe(now.toISOString());

    // inside the window: still over the threshold, but debounced
    clock.advance(5 * MIN);
    await seedEvents(t, x.tenantId, clock.clock(), 10, { groupId: g });
    await runEvaluate(t);
    expect(await logsOf(t, r.id)).toHaveLength(1);

    // a window later it fires again
    clock.advance(5 * MIN);
    await runEvaluate(t);
    expect(await logsOf(t, r.id)).toHaveLength(2);

    // the in-app alert reached the recipient's inbox
    await settle(t, (log?.channels.inapp?.outboxId ?? 0) as number);
    const inbox = (await call(t.app, 'GET', '/api/in-app-messages', { token: await token(x) })).json().data.list;
    expect(inbox).toContainEqual(
      expect.objectContaining({
        title: expect.stringMatching(/^\[threshold\] rule threshold: seeded \d+$/),
        source: 'ops.error.alert',
        link: `/monitor/frontend-errors?issue=${g}`,
      }),
    );
    const api = await call(t.app, 'GET', `${LOGS}?ruleId=${r.id}`, { token: await token(x) });
    expect(api.json().data.total).toBe(2);
  });
});

describe('spike', () => {
  it('fires when the window is ≥ threshold and more than twice the previous window', async () => {
    const x = await createTenant(t);
    const r = await rule(x, { condition: 'spike', threshold: 3, windowMinutes: 60 });
    const now = clock.clock();
    const g = await seedEvents(t, x.tenantId, new Date(now.getTime() - 90 * MIN), 4); // previous window: 4
    await seedEvents(t, x.tenantId, new Date(now.getTime() - 10 * MIN), 8, { groupId: g }); // current: 8 = 2×4
    await runEvaluate(t);
    expect(await logsOf(t, r.id)).toHaveLength(0);

    await seedEvents(t, x.tenantId, new Date(now.getTime() - 5 * MIN), 1, { groupId: g }); // 9 > 8
    await runEvaluate(t);
    const [log] = await logsOf(t, r.id);
    expect(log?.hits).toMatchObject({ condition: 'spike', count: 9, previousCount: 4 });
  });
});

describe('new_error', () => {
  it('fires at report time for a new issue matching the filters, not for a repeat', async () => {
    const x = await createTenant(t);
    const r = await rule(x, { condition: 'new_error', windowMinutes: 30, level: 'error' });
    const tok = await token(x);
    // a warning does not match the level filter
    expect((await report(t, jsError('only a warning', 'w', { level: 'warning' }), { token: tok })).statusCode).toBe(
      202,
    );
    const res = await report(t, jsError('brand new failure'), { token: tok });
    expect(res.statusCode).toBe(202);
    const logs = await waitFor(async () => {
      const l = await logsOf(t, r.id);
      return l.length ? l : undefined;
    }, 'report-time alert');
    expect(logs).toHaveLength(1);
    expect(logs[0]?.hits).toMatchObject({
      trigger: 'report',
      count: 1,
      groups: [{ id: res.json().data.groupId, message: 'brand new failure', level: 'error' }],
    });

    // another new issue inside the window: debounced; after the window, the task finds the next one
    await report(t, jsError('second new failure', 'other'), { token: tok });
    await new Promise((ok) => setTimeout(ok, 200));
    expect(await logsOf(t, r.id)).toHaveLength(1);
    clock.advance(31 * MIN);
    await runEvaluate(t);
    expect(await logsOf(t, r.id)).toHaveLength(1); // nothing new in the last 30 minutes
    await seedEvents(t, x.tenantId, clock.clock(), 1);
    await runEvaluate(t);
    expect(await logsOf(t, r.id)).toHaveLength(2);
  });

  it('a disabled rule never fires', async () => {
    const x = await createTenant(t);
    const r = await rule(x, { condition: 'new_error', enabled: false });
    await seedEvents(t, x.tenantId, clock.clock(), 1);
    await runEvaluate(t);
    expect(await logsOf(t, r.id)).toHaveLength(0);
  });
});

describe('webhook delivery', () => {
  it('posts JSON to the receiver; a failing receiver and a refused private address are logged as failed', async () => {
    const x = await createTenant(t);
    const ok = await rule(x, { condition: 'new_error', channels: ['webhook'], webhookUrl: hook.url, recipients: [] });
    const bad = await rule(x, {
      condition: 'new_error',
      channels: ['webhook'],
      webhookUrl: failing.url,
      recipients: [],
    });
    const blocked = await rule(x, {
      condition: 'new_error',
      channels: ['webhook', 'inapp'],
      webhookUrl: 'http://10.1.2.3:9/hook',
    });
    const g = await seedEvents(t, x.tenantId, clock.clock(), 1);
    await runEvaluate(t);

    const body = JSON.parse(hook.received.at(-1)?.body ?? '{}');
    expect(hook.received.at(-1)?.headers['content-type']).toBe('application/json');
    expect(body).toMatchObject({
      event: 'ops.error.alert',
      test: false,
      rule: { id: ok.id, condition: 'new_error' },
      hits: { groups: [{ id: g }] },
    });
    expect((await logsOf(t, ok.id))[0]?.channels).toEqual({ webhook: { status: 'delivered' } });
    expect((await logsOf(t, bad.id))[0]?.channels).toEqual({ webhook: { status: 'failed', error: 'HTTP 500' } });
    const [blockedLog] = await logsOf(t, blocked.id);
    expect(blockedLog?.channels.webhook).toMatchObject({ status: 'failed' });
    expect(blockedLog?.channels.webhook?.error).toMatch(/^egress\.blocked_address/);
    // the other channel still went out
    expect(blockedLog?.channels.inapp).toMatchObject({ status: 'queued' });
  });

  it('a test send reaches the receiver with test=true and keeps the debounce', async () => {
    const x = await createTenant(t);
    const r = await rule(x, { condition: 'threshold', threshold: 100, channels: ['webhook'], webhookUrl: hook.url });
    const res = await call(t.app, 'POST', `/api/frontend-errors/alerts/${r.id}/test`, { token: await token(x) });
    expect(res.json().data).toMatchObject({ test: true, channels: { webhook: { status: 'delivered' } } });
    expect(JSON.parse(hook.received.at(-1)?.body ?? '{}')).toMatchObject({ test: true, rule: { id: r.id } });
    expect((await ruleRow(t, r.id)).lastTriggeredAt).toBeNull();
  });

  it('signs each webhook with the rule’s secret, shown once; a rotation signs with both secrets for its grace period', async () => {
    const x = await createTenant(t);
    const tok = await token(x);
    const created = await call(t.app, 'POST', RULES, {
      token: tok,
      body: { name: 'signed', condition: 'threshold', threshold: 100, channels: ['webhook'], webhookUrl: hook.url },
    });
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json().data;
    const secret = rule.webhookSecret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(rule.webhookSecretHint).toBe(secret.slice(-4));
    const read = await call(t.app, 'GET', `${RULES}/${rule.id}`, { token: tok });
    expect(read.json().data).not.toHaveProperty('webhookSecret');
    expect(read.body).not.toContain(secret);
    expect((await ruleRow(t, rule.id)).secretEncrypted).not.toContain(secret);

    const sendTest = async () => {
      const res = await call(t.app, 'POST', `${RULES}/${rule.id}/test`, { token: tok });
      expect(res.json().data.channels).toEqual({ webhook: { status: 'delivered' } });
      const hit = hook.received.at(-1);
      if (!hit) throw new Error('the receiver got nothing');
      return { ...hit, signature: hit.headers[SIGNATURE_HEADER] as string };
    };
    const verifies = (s: string, hit: { signature: string; body: string }) =>
      verifySignature(s, hit.signature, hit.body, clock.clock());

    const first = await sendTest();
    expect(first.headers['x-atrium-event']).toBe('ops.error.alert');
    expect(first.headers['x-atrium-event-id']).toMatch(new RegExp(`^error-alert-test:${rule.id}:\\d+$`));
    expect(first.headers['user-agent']).toMatch(/^Atrium-Webhooks\//);
    expect(verifies(secret, first)).toBe(true);
    // a wrong secret, another rule's secret or a tampered body does not verify
    expect(verifies(`${secret}x`, first)).toBe(false);
    const other = await call(t.app, 'POST', RULES, {
      token: tok,
      body: { name: 'other', condition: 'new_error', channels: ['webhook'], webhookUrl: hook.url },
    });
    expect(verifies(other.json().data.webhookSecret, first)).toBe(false);
    expect(
      verifySignature(secret, first.signature, first.body.replace('"test":true', '"test":false'), clock.clock()),
    ).toBe(false);

    const rotated = await call(t.app, 'POST', `${RULES}/${rule.id}/webhook-secret`, { token: tok, body: {} });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const second = rotated.json().data.webhookSecret as string;
    expect(second).not.toBe(secret);
    expect(rotated.json().data.webhookPreviousSecretExpiresAt).toBe(
      new Date(clock.clock().getTime() + 86_400_000).toISOString(),
    );
    const during = await sendTest();
    expect(verifies(second, during)).toBe(true);
    expect(verifies(secret, during)).toBe(true);

    const third = (
      await call(t.app, 'POST', `${RULES}/${rule.id}/webhook-secret`, { token: tok, body: { graceSeconds: 0 } })
    ).json().data.webhookSecret as string;
    const after = await sendTest();
    expect(verifies(third, after)).toBe(true);
    expect(verifies(second, after)).toBe(false);
  });

  it('a rule saved before webhooks were signed fails its webhook until a write gives it a secret', async () => {
    const x = await createTenant(t);
    const tok = await token(x);
    const r = await rule(x, { condition: 'threshold', threshold: 100, channels: ['webhook'], webhookUrl: hook.url });
    await t.database.db
      .update(errorAlertRules)
      .set({ secretEncrypted: null, secretHint: null })
      .where(eq(errorAlertRules.id, r.id));
    const before = await call(t.app, 'POST', `${RULES}/${r.id}/test`, { token: tok });
    expect(before.json().data.channels.webhook).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/secret/),
    });

    const saved = await call(t.app, 'PUT', `${RULES}/${r.id}`, { token: tok, body: { name: 'resaved' } });
    const secret = saved.json().data.webhookSecret as string;
    expect(secret).toMatch(/^whsec_/);
    // only the write that created it answers it
    const again = await call(t.app, 'PUT', `${RULES}/${r.id}`, { token: tok, body: { name: 'again' } });
    expect(again.json().data).not.toHaveProperty('webhookSecret');
    const after = await call(t.app, 'POST', `${RULES}/${r.id}/test`, { token: tok });
    expect(after.json().data.channels).toEqual({ webhook: { status: 'delivered' } });
    const hit = hook.received.at(-1);
    expect(verifySignature(secret, hit?.headers[SIGNATURE_HEADER] as string, hit?.body ?? '', clock.clock())).toBe(
      true,
    );
  });

  it('an upgrade signs the rules saved before signing at start: their webhooks keep going out', async () => {
    const x = await createTenant(t);
    const r = await rule(x, { condition: 'threshold', threshold: 100, channels: ['webhook'], webhookUrl: hook.url });
    await t.database.db
      .update(errorAlertRules)
      .set({ secretEncrypted: null, secretHint: null })
      .where(eq(errorAlertRules.id, r.id));
    // a second instance starting on the same database, as after an upgrade
    const next = await createTestApp({
      store: t.store,
      clock: clock.clock,
      env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${hook.port}` },
    });
    try {
      const row = await ruleRow(t, r.id);
      expect(row.secretEncrypted).toMatch(/./);
      expect(row.secretHint).toMatch(/^.{4}$/);
      const sent = await call(next.app, 'POST', `${RULES}/${r.id}/test`, {
        token: await login(next.app, 'admin', USER_PASSWORD, x.code),
      });
      expect(sent.json().data.channels).toEqual({ webhook: { status: 'delivered' } });
      expect(hook.received.at(-1)?.headers[SIGNATURE_HEADER]).toMatch(/v1=[0-9a-f]{64}/);
    } finally {
      await next.close();
    }
  });
});
