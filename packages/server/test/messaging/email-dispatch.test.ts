import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsubscribeToken } from '../../src/modules/messaging/unsubscribe/token.ts';
import { ADMIN_PASSWORD, call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createUserWithPermissions, USER_PASSWORD } from '../helpers/fixtures.ts';
import { count, dispatchesOf, outcomes, runTask, setContact, settle, testClock } from './dispatch-helpers.ts';
import { headerOf, type SmtpReceiver, saveConfig, startSmtp } from './email-helpers.ts';

/**
 * Notifications by email end to end: a real SMTP server receives what notify() sends; the
 * unsubscribe link in the mail works (page and RFC 8058 one-click); digests fold into one mail.
 */
let t: TestApp;
let smtp: SmtpReceiver;
let reader: { userId: number; username: string };
let digester: { userId: number; username: string; token: string };
let noMail: { userId: number };
const clock = testClock('2026-11-21T02:00:00Z'); // 10:00 in Asia/Shanghai

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ clock: clock.clock, env: { PUBLIC_BASE_URL: 'https://atrium.example' } });
  await saveConfig(t, t.demoAdminToken, smtp.port);
  reader = await createUserWithPermissions(t, []);
  digester = await createUserWithPermissions(t, []);
  noMail = await createUserWithPermissions(t, []);
  await setContact(t, reader.userId, { email: 'reader@example.com' });
  await setContact(t, digester.userId, { email: 'digest@example.com' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const mention = { docTitle: 'Release <plan>', actorName: 'Ann' };
const mailsTo = (address: string) => smtp.received.filter((r) => r.to.includes(address));

describe('email notifications', () => {
  it('arrive through SMTP with the event text, the absolute deep link and one-click unsubscribe headers', async () => {
    const rows = await settle(
      t,
      await t.app.messaging.notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [
          { type: 'user', id: reader.userId },
          { type: 'user', id: noMail.userId },
        ],
        variables: mention,
        link: '/wiki/docs/7',
      }),
    );
    expect(outcomes(rows, `u:${reader.userId}`)).toEqual({ inapp: 'sent', email: 'sent' });
    expect(outcomes(rows, `u:${noMail.userId}`)).toEqual({ inapp: 'sent', email: 'suppressed/unreachable' });
    const [mail] = mailsTo('reader@example.com');
    expect(mail?.mail.subject).toBe('Ann mentioned you in Release <plan>');
    expect(mail?.mail.html).toContain('Release &lt;plan&gt;');
    expect(mail?.mail.text).toContain('Ann mentioned you in "Release <plan>".');
    // the deep link leaves the console: absolute, under PUBLIC_BASE_URL
    expect(mail?.mail.html).toContain('href="https://atrium.example/wiki/docs/7"');
    expect(mail?.mail.text).toContain('View details: https://atrium.example/wiki/docs/7');
    const unsubscribe = headerOf(mail?.mail as ParsedMail, 'List-Unsubscribe') as string;
    expect(unsubscribe).toMatch(/^<https:\/\/atrium\.example\/api\/notification-unsubscribe\/[^>]+>$/);
    expect(headerOf(mail?.mail as ParsedMail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(mail?.mail.html).toContain(unsubscribe.slice(1, -1));
  });

  it('the unsubscribe page names the event; the one-click POST switches that event’s email off', async () => {
    const header = headerOf(mailsTo('reader@example.com')[0]?.mail as ParsedMail, 'List-Unsubscribe') as string;
    const path = new URL(header.slice(1, -1)).pathname;
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Mentioned in a document');
    const before = await count(t, 'notification_preferences');
    // what a mail client sends (RFC 8058 §3.1): no cookie, no token, a form body
    const click = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(click.statusCode).toBe(200);
    expect(click.body).toContain('no longer receive');
    expect(await count(t, 'notification_preferences')).toBe(before + 1);
    const again = await settle(
      t,
      await t.app.messaging.notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: reader.userId }],
        variables: mention,
      }),
    );
    expect(outcomes(again)).toEqual({ inapp: 'sent', email: 'suppressed/preference_off' });
    // the matrix shows the switch the link made
    const token = await login(t.app, reader.username, USER_PASSWORD, 'demo');
    const matrix = (await call(t.app, 'GET', '/api/notification-preferences/matrix', { token })).json().data as {
      eventKey: string;
      channels: { channel: string; enabled: boolean }[];
    }[];
    const row = matrix.find((e) => e.eventKey === 'wiki.doc.mentioned');
    expect(row?.channels.find((c) => c.channel === 'email')?.enabled).toBe(false);
  });

  it('a one-click form whose List-Unsubscribe is not One-Click is refused naming it, and nothing is written', async () => {
    // once any value unsubscribed (input fuzz): the document says One-Click, or no form at all
    const someone = await createUserWithPermissions(t, []);
    const token = unsubscribeToken(t.app.ctx.secrets, {
      tenantId: t.demoTenantId,
      recipientKey: `u:${someone.userId}`,
      eventKey: 'wiki.doc.mentioned',
    });
    const post = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/notification-unsubscribe/${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
    const before = await count(t, 'notification_preferences');
    for (const payload of ['List-Unsubscribe=Two-Click', 'List-Unsubscribe=One-Click&List-Unsubscribe=One-Click']) {
      expectError(await post(payload), 400, 'request.validation_failed', 'List-Unsubscribe');
    }
    expect(await count(t, 'notification_preferences')).toBe(before);
    expect((await post('List-Unsubscribe=One-Click')).statusCode).toBe(200);
    expect(await count(t, 'notification_preferences')).toBe(before + 1);
  });

  it('a forged or altered token is refused with a page, and nothing is written', async () => {
    const before = await count(t, 'notification_preferences');
    for (const url of [
      '/api/notification-unsubscribe/v1.k.forged-token-value',
      '/api/notification-unsubscribe/abcdefghijk',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        payload: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('not valid');
    }
    expect(await count(t, 'notification_preferences')).toBe(before);
  });

  it('mandatory events carry no unsubscribe link', async () => {
    await settle(
      t,
      await t.app.messaging.notify('identity.tenant.expiring', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: reader.userId }],
        variables: { tenantName: 'Demo', expiresAt: '2026-12-01', daysLeft: 10 },
      }),
    );
    const mail = mailsTo('reader@example.com').find((m) => m.mail.subject?.startsWith('Tenant Demo'));
    expect(mail).toBeDefined();
    expect(headerOf(mail?.mail as ParsedMail, 'List-Unsubscribe')).toBeUndefined();
  });
});

describe('digests', () => {
  it('queue email into one messaging.digest mail at the digest hour; other channels stay immediate', async () => {
    const set = await call(t.app, 'PUT', '/api/notification-preferences/settings', {
      token: digester.token,
      body: { digestMode: 'daily', digestHour: 18 },
    });
    expect(set.statusCode).toBe(200);
    const first = await settle(
      t,
      await t.app.messaging.notify('workflow.task.created', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: digester.userId }],
        variables: { taskTitle: 'Laptop request', processName: 'Purchase' },
      }),
    );
    expect(outcomes(first)).toEqual({ inapp: 'sent', email: 'deferred/digest' });
    const due = first.find((r) => r.channel === 'email');
    expect(due?.deliverAfter?.toISOString()).toBe('2026-11-21T10:00:00.000Z'); // 18:00 Shanghai
    clock.advance(3600_000);
    await settle(
      t,
      await t.app.messaging.notify('workflow.instance.approved', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: digester.userId }],
        variables: { instanceTitle: 'Trip to Lyon', processName: 'Travel' },
      }),
    );
    // mandatory events are never digested
    const mandatory = await settle(
      t,
      await t.app.messaging.notify('identity.tenant.expiring', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: digester.userId }],
        variables: { tenantName: 'Demo', expiresAt: '2026-12-01', daysLeft: 9 },
        channels: { only: ['email'] },
      }),
    );
    expect(outcomes(mandatory)).toEqual({ email: 'sent' });
    const mailsBefore = mailsTo('digest@example.com').length;

    clock.set('2026-11-21T09:59:00Z');
    expect(await runTask(t, 'messaging.sendDigests')).toEqual({ digests: 0, items: 0 });
    clock.set('2026-11-21T10:00:00Z');
    expect(await runTask(t, 'messaging.sendDigests')).toEqual({ digests: 1, items: 2 });
    expect(await runTask(t, 'messaging.sendDigests')).toEqual({ digests: 0, items: 0 });
    const deadline = Date.now() + 10_000;
    while (mailsTo('digest@example.com').length === mailsBefore && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const digest = mailsTo('digest@example.com').slice(mailsBefore);
    expect(digest).toHaveLength(1);
    expect(digest[0]?.mail.subject).toBe('Your notification digest: 2 new');
    expect(digest[0]?.mail.text).toContain('Approval needed: Laptop request');
    expect(digest[0]?.mail.text).toContain('Approved: Trip to Lyon');
    const [folded] = await dispatchesOf(t, first[0]?.outboxId ?? 0).then((r) => r.filter((x) => x.channel === 'email'));
    expect(folded).toMatchObject({ decision: 'deferred', reasonCode: 'digest' });
    expect(folded?.deliveredAt?.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    const trace = await call(
      t.app,
      'GET',
      `/api/notification-policies/dispatches?eventKey=messaging.digest&recipientId=${digester.userId}`,
      {
        token: await login(t.app, 'admin', ADMIN_PASSWORD, 'demo'),
      },
    );
    expect(trace.json().data.list).toEqual([
      expect.objectContaining({ channel: 'email', decision: 'sent', idempotencyKey: folded?.digestKey }),
    ]);
  });
});
