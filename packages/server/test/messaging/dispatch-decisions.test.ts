import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { members } from '../../src/modules/member/tables.ts';
import { createChannelRegistry } from '../../src/modules/messaging/channels/registry.ts';
import { usableChannels } from '../../src/modules/messaging/dispatch/expand-service.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import type { EventKey, NotifyInput } from '../../src/modules/messaging/index.ts';
import { verifySignature } from '../../src/platform/egress/signing.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { count, outcomes, receiver, runTask, settle, testClock } from './dispatch-helpers.ts';

/**
 * Every decision and reason code of spec §7.3, each produced by the rule that causes it. The
 * demo tenant has no SMTP configuration, so email is `channel_unavailable` unless a test says
 * otherwise; in-app and webhook deliver for real.
 */
let t: TestApp;
let hook: Awaited<ReturnType<typeof receiver>>;
let failing: Awaited<ReturnType<typeof receiver>>;
let alice: { userId: number; token: string };
let bob: { userId: number; token: string };
let other: TenantFixture;
const clock = testClock('2026-11-21T04:00:00Z'); // 12:00 in Asia/Shanghai

beforeAll(async () => {
  hook = await receiver(200);
  failing = await receiver(500);
  t = await createTestApp({
    clock: clock.clock,
    env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${hook.port},127.0.0.1:${failing.port}` },
  });
  alice = await createUserWithPermissions(t, []);
  bob = await createUserWithPermissions(t, []);
  other = await createTenant(t, 'other-tenant');
});
afterAll(async () => {
  await t?.close();
  await hook?.close();
  await failing?.close();
});

const u = (id: number) => ({ type: 'user' as const, id });
const mention = { docTitle: 'Runbook', actorName: 'Carol' };
const notify = <K extends EventKey>(key: K, input: NotifyInput<K>) => t.app.messaging.notify(key, input);

describe('candidates and channel policy', () => {
  it('gives each recipient × default channel exactly one row', async () => {
    const rows = await settle(
      t,
      await notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId), u(bob.userId), u(alice.userId)],
        variables: mention,
      }),
    );
    expect(rows).toHaveLength(4); // the repeated recipient counts once
    expect(outcomes(rows, `u:${alice.userId}`)).toEqual({ inapp: 'sent', email: 'suppressed/channel_unavailable' });
  });

  it('`only` replaces the candidates, `enable` adds an available channel, `disable` removes one', async () => {
    const only = await settle(
      t,
      await notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: mention,
        channels: { only: ['inapp'] },
      }),
    );
    expect(outcomes(only)).toEqual({ inapp: 'sent' });
    const alert = { host: 'db-1', metric: 'cpu', value: '97%', threshold: '90%', level: 'P1' };
    const enabled = await settle(
      t,
      await notify('ops.monitor.alert', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: alert,
        channels: { enable: ['webhook'], disable: ['email'] },
        channelOptions: { webhook: { url: hook.url } },
      }),
    );
    expect(outcomes(enabled)).toEqual({ inapp: 'sent', webhook: 'sent' });
    const got = hook.received.at(-1);
    expect(JSON.parse(got?.body ?? '{}')).toMatchObject({ event: 'ops.monitor.alert' });
    // the receiver verifies the signature with the secret an administrator reads from the API
    const secret = await call(t.app, 'GET', '/api/notification-policies/webhook-secret', { token: t.demoAdminToken });
    expect(secret.json().data.header).toBe('X-Atrium-Signature');
    const signature = got?.headers['x-atrium-signature'] as string;
    expect(verifySignature(secret.json().data.secret, signature, got?.body ?? '', clock.clock())).toBe(true);
    const otherSecret = await call(t.app, 'GET', '/api/notification-policies/webhook-secret', {
      token: other.adminToken,
    });
    expect(verifySignature(otherSecret.json().data.secret, signature, got?.body ?? '', clock.clock())).toBe(false);
    expectError(
      await call(t.app, 'GET', '/api/notification-policies/webhook-secret', { token: alice.token }),
      403,
      'auth.permission_denied',
    );
    // wiki events cannot use webhook: enabling it adds nothing
    const ignored = await settle(
      t,
      await notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: mention,
        channels: { enable: ['webhook'], disable: ['email'] },
      }),
    );
    expect(outcomes(ignored)).toEqual({ inapp: 'sent' });
  });

  it('one failing pair does not affect the others', async () => {
    const rows = await settle(
      t,
      await notify('ops.monitor.alert', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId), u(bob.userId)],
        variables: { host: 'h', metric: 'disk', value: '99%', threshold: '95%', level: 'P1' },
        channels: { only: ['inapp', 'webhook'] },
        channelOptions: { webhook: { url: failing.url } },
      }),
    );
    expect(outcomes(rows, `u:${alice.userId}`)).toEqual({ inapp: 'sent', webhook: 'failed/delivery_error' });
    expect(rows.find((r) => r.channel === 'webhook')?.error).toBe('HTTP 500');
    expect(outcomes(rows, `u:${bob.userId}`)).toEqual({ inapp: 'sent', webhook: 'failed/delivery_error' });
  });
});

describe('who can be reached', () => {
  it('a user of another tenant or a disabled user is unreachable; nothing is dropped', async () => {
    const [disabled] = await t.database.db
      .insert(users)
      .values({ tenantId: t.demoTenantId, username: 'gone', passwordHash: 'x', nickname: 'Gone', status: 'disabled' })
      .returning();
    const rows = await settle(
      t,
      await notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [u(other.adminUserId), u(disabled?.id ?? 0)],
        variables: mention,
        channels: { only: ['inapp'] },
      }),
    );
    expect(rows.map((r) => `${r.recipientKey} ${r.decision}/${r.reasonCode}`).sort()).toEqual(
      [`u:${other.adminUserId} suppressed/unreachable`, `u:${disabled?.id} suppressed/unreachable`].sort(),
    );
  });

  it('a member has no in-app inbox (unreachable); an external recipient gets only its own channel', async () => {
    const [member] = await t.database.db
      .insert(members)
      .values({ tenantId: t.demoTenantId, nickname: 'Mia' })
      .returning();
    const rows = await settle(
      t,
      await notify('ops.monitor.alert', {
        tenantId: t.demoTenantId,
        recipients: [
          { type: 'member', id: member?.id ?? 0 },
          { type: 'external', channel: 'webhook', address: hook.url },
        ],
        variables: { host: 'h', metric: 'm', value: '1', threshold: '0', level: 'P3' },
      }),
    );
    expect(outcomes(rows, `m:${member?.id}`)).toEqual({
      inapp: 'suppressed/unreachable',
      email: 'suppressed/channel_unavailable',
    });
    expect(outcomes(rows, `e:webhook:${hook.url}`)).toEqual({
      inapp: 'suppressed/preference_off',
      email: 'suppressed/preference_off',
      webhook: 'sent',
    });
  });
});

describe('switches: settings, overrides, preferences, mute', () => {
  it('a channel switched off in the messaging settings is channel_unavailable', async () => {
    await call(t.app, 'PUT', '/api/settings/messaging', { token: t.demoAdminToken, body: { inappEnabled: false } });
    const rows = await settle(
      t,
      await notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: mention,
        channels: { only: ['inapp'] },
      }),
    );
    await call(t.app, 'PUT', '/api/settings/messaging', { token: t.demoAdminToken, body: { inappEnabled: true } });
    expect(outcomes(rows)).toEqual({ inapp: 'suppressed/channel_unavailable' });
  });

  it('a channel with no registered adapter is not usable (channel_unavailable)', async () => {
    const none = createChannelRegistry();
    expect(await usableChannels(t.app.ctx, none, t.demoTenantId, ['inapp', 'webhook'])).toEqual(new Set());
    expect(await usableChannels(t.app.ctx, t.app.messaging.channels, t.demoTenantId, ['inapp', 'email'])).toEqual(
      new Set(['inapp']), // email: an adapter, but no SMTP configuration in this tenant
    );
  });

  it('a platform override switches a channel for every tenant; the tenant’s own override wins', async () => {
    const off = await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.adminToken,
      body: { items: [{ eventKey: 'wiki.doc.published', channel: 'inapp', enabled: false }] },
    });
    expect(off.statusCode).toBe(200);
    const published = { docTitle: 'Guide', actorName: 'Dan' };
    const none = await settle(
      t,
      await notify('wiki.doc.published', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: published,
      }),
    );
    expect(none).toHaveLength(0);
    await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.demoAdminToken,
      body: { items: [{ eventKey: 'wiki.doc.published', channel: 'inapp', enabled: true }] },
    });
    const back = await settle(
      t,
      await notify('wiki.doc.published', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: published,
      }),
    );
    expect(outcomes(back)).toEqual({ inapp: 'sent' });
    const elsewhere = await settle(
      t,
      await notify('wiki.doc.published', {
        tenantId: other.tenantId,
        recipients: [u(other.adminUserId)],
        variables: published,
      }),
    );
    expect(elsewhere).toHaveLength(0);
  });

  it('a preference switched off suppresses (preference_off) unless an override locks the channel on', async () => {
    const save = await call(t.app, 'PUT', '/api/notification-preferences/matrix', {
      token: bob.token,
      body: { items: [{ eventKey: 'wiki.doc.commented', channel: 'inapp', enabled: false }] },
    });
    expect(save.statusCode).toBe(200);
    const vars = { docTitle: 'Spec', actorName: 'Eve' };
    const off = await settle(
      t,
      await notify('wiki.doc.commented', {
        tenantId: t.demoTenantId,
        recipients: [u(bob.userId), u(alice.userId)],
        variables: vars,
      }),
    );
    expect(outcomes(off, `u:${bob.userId}`)).toEqual({ inapp: 'suppressed/preference_off' });
    expect(outcomes(off, `u:${alice.userId}`)).toEqual({ inapp: 'sent' });
    await call(t.app, 'PUT', '/api/notification-policies/overrides', {
      token: t.demoAdminToken,
      body: { items: [{ eventKey: 'wiki.doc.commented', channel: 'inapp', enabled: true, locked: true }] },
    });
    const locked = await settle(
      t,
      await notify('wiki.doc.commented', { tenantId: t.demoTenantId, recipients: [u(bob.userId)], variables: vars }),
    );
    expect(outcomes(locked)).toEqual({ inapp: 'sent' });
  });

  it('a channel the user switched on is added; global mute suppresses all but mandatory events', async () => {
    await call(t.app, 'PUT', '/api/notification-preferences/settings', {
      token: alice.token,
      body: { globalMuted: true },
    });
    const muted = await settle(
      t,
      await notify('workflow.task.cc', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: { taskTitle: 'T', processName: 'P' },
      }),
    );
    expect(outcomes(muted)).toEqual({ inapp: 'suppressed/globally_muted' });
    const mandatory = await settle(
      t,
      await notify('identity.tenant.expiring', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: { tenantName: 'Demo', expiresAt: '2026-12-01', daysLeft: 10 },
        channels: { only: ['inapp'] },
      }),
    );
    expect(outcomes(mandatory)).toEqual({ inapp: 'sent' });
    await call(t.app, 'PUT', '/api/notification-preferences/settings', {
      token: alice.token,
      body: { globalMuted: false },
    });
  });
});

describe('rate limit and idempotency', () => {
  it('caps successful deliveries per recipient × event × channel within the window (rate_limited)', async () => {
    const urge = () =>
      notify('workflow.task.urged', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: { taskTitle: 'Budget', processName: 'Expense', actorName: 'Fay' },
        channels: { only: ['inapp'] },
      });
    const got = [];
    for (let i = 0; i < 4; i++) got.push(outcomes(await settle(t, await urge())).inapp);
    expect(got).toEqual(['sent', 'sent', 'sent', 'suppressed/rate_limited']); // max 3 per hour
    clock.advance(3600_000 + 1000);
    expect(outcomes(await settle(t, await urge())).inapp).toBe('sent');
  });

  it('the same idempotency key again is deduped, per recipient and channel', async () => {
    const send = (recipients: number[]) =>
      notify('platform.feedback.handled', {
        tenantId: t.demoTenantId,
        recipients: recipients.map(u),
        variables: { subject: 'Login', reply: 'Fixed' },
        idempotencyKey: 'feedback-42',
      });
    expect(outcomes(await settle(t, await send([alice.userId])))).toEqual({ inapp: 'sent' });
    const again = await settle(t, await send([alice.userId, bob.userId]));
    expect(outcomes(again, `u:${alice.userId}`)).toEqual({ inapp: 'deduped' });
    expect(outcomes(again, `u:${bob.userId}`)).toEqual({ inapp: 'sent' });
  });
});

describe('the dispatch entry point', () => {
  it('notifyWithin writes the outbox in the caller’s transaction: a rollback sends nothing', async () => {
    const before = await count(t, 'notification_outbox');
    await expect(
      t.database.db.transaction(async (tx) => {
        await t.app.messaging.notifyWithin(tx, 'wiki.doc.mentioned', {
          tenantId: t.demoTenantId,
          recipients: [u(alice.userId)],
          variables: mention,
        });
        throw new Error('business failure');
      }),
    ).rejects.toThrow('business failure');
    await new Promise((r) => setTimeout(r, 300));
    expect(await count(t, 'notification_outbox')).toBe(before);
    const id = await t.database.db.transaction((tx) =>
      t.app.messaging.notifyWithin(tx, 'wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [u(alice.userId)],
        variables: mention,
      }),
    );
    expect(outcomes(await settle(t, id)).inapp).toBe('sent');
  });

  it('an unknown event key or a mistyped variable is a programming error, thrown at the call', async () => {
    const before = await count(t, 'notification_outbox');
    // @ts-expect-error the compiler refuses keys outside the catalog
    await expect(notify('wiki.doc.deleted', { tenantId: null, recipients: [], variables: {} })).rejects.toThrow(
      'unknown event key',
    );
    await expect(
      // @ts-expect-error and variables of the wrong type
      notify('wiki.doc.mentioned', { tenantId: null, recipients: [], variables: { docTitle: 1, actorName: 'x' } }),
    ).rejects.toThrow('docTitle');
    await expect(
      notify('wiki.doc.mentioned', {
        tenantId: null,
        recipients: [],
        variables: mention,
        channels: { only: ['fax' as 'sms'] },
      }),
    ).rejects.toThrow('unknown channel');
    expect(await count(t, 'notification_outbox')).toBe(before);
  });

  it('the outbox sweeper expands a row whose wake-up was lost', async () => {
    const [row] = await t.database.db
      .insert(notificationOutbox)
      .values({
        tenantId: t.demoTenantId,
        eventKey: 'wiki.doc.mentioned',
        input: { recipients: [u(bob.userId)], variables: mention, channels: { only: ['inapp'] } },
        createdAt: new Date(clock.clock().getTime() - 120_000),
      })
      .returning();
    await runTask(t, 'messaging.sweepOutbox');
    const rows = await settle(t, row?.id ?? 0);
    expect(outcomes(rows)).toEqual({ inapp: 'sent' });
    expect(rows[0]?.attempts).toBe(1);
  });
});
