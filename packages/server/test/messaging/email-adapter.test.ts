import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelAdapter } from '../../src/modules/messaging/channels/types.ts';
import { emailSendLogs } from '../../src/modules/messaging/email/tables.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createVia } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { delivery, headerOf, type SmtpReceiver, saveConfig, startSmtp } from './email-helpers.ts';

let t: TestApp;
let smtp: SmtpReceiver;
let a: TenantFixture;
let adapter: ChannelAdapter;

const UNSUB = 'https://console.atrium.test/api/notification-unsubscribe/tok.en_1';
const LINK = 'https://console.atrium.test/ops/monitor?id=7&tab=alerts';

beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtp({ rejectRcpt: (address) => address.startsWith('bounce') });
  a = await createTenant(t);
  await saveConfig(t, a.adminToken, smtp.port, { fromAddress: 'alerts@a.test', fromName: 'Atrium alerts' });
  adapter = t.app.messaging.channels.get('email') as ChannelAdapter;
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const lastTo = (address: string) => smtp.received.findLast((r) => r.to.includes(address));
const logsOf = (dispatchId: number) =>
  t.database.db.select().from(emailSendLogs).where(eq(emailSendLogs.dispatchId, dispatchId));

describe('email adapter', () => {
  it('sends the built-in text in the layout, with the link, a text part and RFC 8058 unsubscribe headers', async () => {
    const d = delivery(
      a.tenantId,
      { email: 'ada@a.test', name: 'Ada' },
      {
        dispatchId: 101,
        link: LINK,
        unsubscribeUrl: UNSUB,
        variables: { host: 'db<1>', metric: 'cpu', value: '97%', threshold: '90%', level: 'critical' },
      },
    );
    const [outcome] = await adapter.deliver([d]);
    const got = lastTo('ada@a.test');
    expect(outcome).toEqual({ status: 'sent', providerMessageId: got?.mail.messageId });
    const mail = got?.mail;
    expect(mail?.subject).toBe('[critical] cpu on db<1>');
    expect(mail?.to).toMatchObject({ value: [{ address: 'ada@a.test', name: 'Ada' }] });
    expect(mail?.from?.value[0]).toEqual({ address: 'alerts@a.test', name: 'Atrium alerts' });
    expect(headerOf(mail as NonNullable<typeof mail>, 'List-Unsubscribe')).toBe(`<${UNSUB}>`);
    expect(headerOf(mail as NonNullable<typeof mail>, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(mail?.html).toContain('cpu on db&lt;1&gt; is 97% (threshold 90%).');
    expect(mail?.html).toContain(`href="${UNSUB}"`);
    expect(mail?.html).toContain(`href="${LINK.replace('&', '&amp;')}"`);
    expect(mail?.text).toContain('cpu on db<1> is 97% (threshold 90%).');
    expect(mail?.text).toContain(`Unsubscribe: ${UNSUB}`);
    expect(mail?.text).toContain(LINK);
    expect(await logsOf(101)).toMatchObject([
      {
        tenantId: a.tenantId,
        eventKey: 'ops.monitor.alert',
        templateCode: null,
        toAddress: 'ada@a.test',
        subject: '[critical] cpu on db<1>',
        status: 'sent',
      },
    ]);
  });

  it('leaves the unsubscribe headers out when the event has no unsubscribe URL', async () => {
    await adapter.deliver([delivery(a.tenantId, { email: 'mandatory@a.test' })]);
    const mail = lastTo('mandatory@a.test')?.mail;
    expect(mail).toBeDefined();
    expect(headerOf(mail as NonNullable<typeof mail>, 'List-Unsubscribe')).toBeUndefined();
    expect(mail?.html).not.toContain('Unsubscribe');
  });

  it('answers unreachable without an address, reaches external mailboxes, and isolates a refused recipient', async () => {
    const batch = [
      delivery(a.tenantId, { email: null }, { dispatchId: 201 }),
      delivery(a.tenantId, { email: 'bounce@a.test' }, { dispatchId: 202 }),
      delivery(a.tenantId, { type: 'external', id: null, name: '', address: 'ext@partner.test' }, { dispatchId: 203 }),
      delivery(a.tenantId, { email: 'ok@a.test' }, { dispatchId: 204 }),
    ];
    const outcomes = await adapter.deliver(batch);
    expect(outcomes[0]).toEqual({ status: 'unreachable', detail: expect.any(String) });
    expect(outcomes[1]).toMatchObject({ status: 'failed', error: expect.stringContaining('550') });
    expect(outcomes[2]).toMatchObject({ status: 'sent' });
    expect(outcomes[3]).toMatchObject({ status: 'sent' });
    expect(lastTo('ext@partner.test')).toBeDefined();
    expect(lastTo('ok@a.test')).toBeDefined();
    expect(lastTo('bounce@a.test')).toBeUndefined();
    expect(await logsOf(201)).toEqual([]);
    expect(await logsOf(202)).toMatchObject([{ status: 'failed', error: (outcomes[1] as { error: string }).error }]);
    expect(await logsOf(203)).toMatchObject([{ status: 'sent', toAddress: 'ext@partner.test' }]);
  });

  it('uses the tenant’s active template, else the platform’s, with variables HTML-escaped', async () => {
    const template = {
      code: 'alert-mail',
      name: 'Alert',
      subject: 'ALERT {{host}}',
      content: '<div class="t">Tenant: {{metric}} on {{host}}</div>',
      variables: ['host', 'metric'],
    };
    await createVia(t, '/api/email-templates', t.adminToken, {
      ...template,
      subject: 'Platform {{host}}',
      content: '<div>Platform: {{host}}</div>',
    });
    const own = await createVia(t, '/api/email-templates', a.adminToken, template);
    const vars = { host: '<b>db</b>', metric: 'cpu', value: '1', threshold: '2', level: 'x' };
    const opts = { templates: { email: 'alert-mail' }, variables: vars, unsubscribeUrl: UNSUB };

    await adapter.deliver([delivery(a.tenantId, { email: 't1@a.test' }, { ...opts, dispatchId: 301 })]);
    const mine = lastTo('t1@a.test')?.mail;
    expect(mine?.subject).toBe('ALERT <b>db</b>');
    expect(mine?.html).toContain('<div class="t">Tenant: cpu on &lt;b&gt;db&lt;/b&gt;</div>');
    expect(mine?.html).toContain(`href="${UNSUB}"`);
    expect(mine?.text).toContain('Tenant: cpu on <b>db</b>');
    expect(mine?.text).toContain(UNSUB);
    expect(await logsOf(301)).toMatchObject([{ templateCode: 'alert-mail' }]);

    await createVia(t, `/api/email-templates`, a.adminToken, { ...template, code: 'unused' });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/email-templates/${own}`,
      headers: { authorization: `Bearer ${a.adminToken}` },
      payload: { status: 'disabled' },
    });
    expect(res.statusCode).toBe(200);
    await adapter.deliver([delivery(a.tenantId, { email: 't2@a.test' }, opts)]);
    expect(lastTo('t2@a.test')?.mail.html).toContain('<div>Platform: &lt;b&gt;db&lt;/b&gt;</div>');

    await adapter.deliver([delivery(a.tenantId, { email: 't3@a.test' }, { ...opts, templates: { email: 'none' } })]);
    expect(lastTo('t3@a.test')?.mail.subject).toBe('[x] cpu on <b>db</b>');
  });

  it('is unavailable without a configuration, and fails rather than drops a batch that arrives anyway', async () => {
    const other = await createTenant(t);
    expect(await adapter.available(other.tenantId)).toBe(false);
    const outcomes = await adapter.deliver([
      delivery(other.tenantId, { email: 'x@o.test' }),
      delivery(other.tenantId, { email: null }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'unreachable']);
  });

  it('delivers a large dispatch through the pooled transport, logging every attempt', async () => {
    const bulk = await startSmtp();
    const tenant = await createTenant(t);
    await saveConfig(t, tenant.adminToken, bulk.port);
    try {
      const total = 1000;
      const size = adapter.batchSize ?? 50;
      const batches = Array.from({ length: total / size }, (_, b) =>
        Array.from({ length: size }, (_, i) =>
          delivery(tenant.tenantId, { email: `user${b * size + i}@bulk.test` }, { dispatchId: 10_000 + b * size + i }),
        ),
      );
      const started = performance.now();
      const outcomes: string[] = [];
      // the dispatcher runs a few deliver() calls of a channel at once
      for (let i = 0; i < batches.length; i += 4) {
        const results = await Promise.all(batches.slice(i, i + 4).map((batch) => adapter.deliver(batch)));
        for (const r of results) outcomes.push(...r.map((o) => o.status));
      }
      const ms = performance.now() - started;
      expect(outcomes.filter((s) => s === 'sent').length).toBe(total);
      expect(new Set(bulk.received.flatMap((r) => r.to)).size).toBe(total);
      const logged = await t.database.db
        .select({ id: emailSendLogs.id })
        .from(emailSendLogs)
        .where(eq(emailSendLogs.tenantId, tenant.tenantId));
      expect(logged.length).toBe(total);
      expect(ms).toBeLessThan(30_000);
    } finally {
      await bulk.close();
    }
  });
});
