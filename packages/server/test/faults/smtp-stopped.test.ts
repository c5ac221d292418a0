import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchRow } from '../../src/modules/messaging/dispatch/tables.ts';
import { ADMIN_PASSWORD, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';
import { dispatchesOf, runTask, setContact, testClock } from '../messaging/dispatch-helpers.ts';
import { type Received, type SmtpReceiver, saveConfig, startSmtp } from '../messaging/email-helpers.ts';
import { expectAnswered, health, metric, pollUntil, timedCall } from './fault-helpers.ts';

/**
 * The SMTP server stopped and started again under a running instance (issue 27, decision 0040):
 * what is notified meanwhile is written to the outbox as always, its email waits (pending, tried
 * again with backoff by the sweeper) instead of failing, no request fails or hangs, health says
 * degraded; once the server is back every waiting email arrives exactly once.
 */
let t: TestApp;
let smtp: SmtpReceiver;
const received: Received[] = [];
let port: number;
let reader: { userId: number };
const clock = testClock('2026-11-21T02:00:00Z');

beforeAll(async () => {
  smtp = await startSmtp({ received });
  port = smtp.port;
  t = await createTestApp({ clock: clock.clock });
  // the platform's configuration: the demo tenant has none of its own and uses it; health probes it
  await saveConfig(t, t.adminToken, port, { fromAddress: 'platform@atrium.test' });
  reader = await createUserWithPermissions(t, []);
  await setContact(t, reader.userId, { email: 'reader@example.com' });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** One notification of its own subject to the reader, expanded and delivered now. */
async function notifyReader(docTitle: string): Promise<{ outboxId: number; email: DispatchRow }> {
  const outboxId = await t.app.messaging.notify('wiki.doc.mentioned', {
    tenantId: t.demoTenantId,
    recipients: [{ type: 'user', id: reader.userId }],
    variables: { docTitle, actorName: 'Ann' },
    link: '/wiki/docs/1',
  });
  await t.app.messaging.process(outboxId);
  // the queue's worker may have claimed the row first: it does the work then, and this waits for it
  let rows: DispatchRow[] = [];
  await pollUntil(`notification ${outboxId} expanded and its email tried`, async () => {
    rows = await dispatchesOf(t, outboxId);
    const email = rows.find((r) => r.channel === 'email');
    return rows.some((r) => r.channel === 'inapp') && !!email && (email.decision !== 'pending' || email.attempts > 0);
  });
  expect(rows.find((r) => r.channel === 'inapp')?.decision).toBe('sent');
  return { outboxId, email: rows.find((r) => r.channel === 'email') as DispatchRow };
}

async function emailRowOf(outboxId: number): Promise<DispatchRow | undefined> {
  return (await dispatchesOf(t, outboxId)).find((r) => r.channel === 'email');
}

const mailsAbout = (docTitle: string) => received.filter((r) => r.mail.subject === `Ann mentioned you in ${docTitle}`);

describe('SMTP stopped and started again', () => {
  const waiting: { title: string; outboxId: number }[] = [];

  it('before: a notification arrives by email; health says mail up', async () => {
    const { email } = await notifyReader('Before');
    expect(email.decision).toBe('sent');
    expect(mailsAbout('Before')).toHaveLength(1);
    expect((await health(t.app)).report.dependencies.mail).toMatchObject({ state: 'up', kind: 'smtp' });
  });

  it('while stopped: the email waits in the outbox, nothing fails, health is degraded', async () => {
    await smtp.close();

    for (const title of ['During one', 'During two']) {
      const { outboxId, email } = await notifyReader(title);
      // still pending, its lease pushed back by the retry delay: the sweeper tries it again
      expect(email).toMatchObject({ decision: 'pending', reasonCode: null, attempts: 1 });
      expect(email.error).toMatch(/ECONNREFUSED|connect/i);
      expect(email.lockedUntil?.getTime()).toBeGreaterThan(clock.clock().getTime());
      waiting.push({ title, outboxId });
    }

    // a sweep while the server is still down: tried again, still waiting, not failed
    clock.advance(5 * 60_000);
    await runTask(t, 'messaging.sweepOutbox');
    for (const { outboxId } of waiting) {
      const email = await emailRowOf(outboxId);
      expect(email?.decision).toBe('pending');
      expect(email?.attempts).toBeGreaterThanOrEqual(2);
    }

    // the administrator's test mail answers the failure, it does not fail the request
    const test = expectAnswered(
      await timedCall(t.app, 'POST', '/api/email-config/test', { token: t.adminToken, body: { to: 'ops@a.test' } }),
      'test mail',
    );
    expect(test.statusCode, test.body).toBe(200);
    expect(test.json().data.status).toBe('failed');
    const login = expectAnswered(
      await timedCall(t.app, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } }),
      'sign-in',
    );
    expect(login.statusCode).toBe(200);
    const list = expectAnswered(await timedCall(t.app, 'GET', '/api/users', { token: t.demoAdminToken }), 'list');
    expect(list.statusCode).toBe(200);

    await pollUntil('health says degraded', async () => (await health(t.app)).report.status === 'degraded', 5_000);
    const h = await health(t.app);
    expect(h.statusCode).toBe(200);
    expect(h.report.ready).toBe(true);
    expect(h.report.dependencies.mail).toMatchObject({ state: 'down', kind: 'smtp', required: false });
    expect(h.report.dependencies.mail?.error).toMatch(/connection (refused|failed)/);
    expect(await metric(t.app, 'atrium_dependency_failures_total{dependency="mail"}')).toBeGreaterThan(0);
    expect(mailsAbout('During one')).toHaveLength(0);
  });

  it('started again: every waiting email arrives exactly once', async () => {
    const startedAt = performance.now();
    smtp = await startSmtp({ port, received });
    await pollUntil('health says mail up', async () => (await health(t.app)).report.dependencies.mail?.state === 'up');
    console.info(`smtp-stopped: mail up again ${Math.round(performance.now() - startedAt)} ms after the restart`);

    // past the longest retry delay so far: the next sweep (every minute) sends them
    clock.advance(30 * 60_000);
    await runTask(t, 'messaging.sweepOutbox');
    for (const { title, outboxId } of waiting) {
      expect(mailsAbout(title)).toHaveLength(1);
      expect(await emailRowOf(outboxId)).toMatchObject({ decision: 'sent', error: null });
    }
    console.info(
      `smtp-stopped: waiting emails delivered ${Math.round(performance.now() - startedAt)} ms after the restart (sweep run at once)`,
    );

    // another sweep sends nothing twice, and nothing sent before the outage went again
    await runTask(t, 'messaging.sweepOutbox');
    for (const { title } of waiting) expect(mailsAbout(title)).toHaveLength(1);
    expect(mailsAbout('Before')).toHaveLength(1);
    expect((await health(t.app)).report.status).toBe('ok');
  });
});
