import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelAdapter, Contact } from '../../src/modules/messaging/channels/types.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';
import { deliveryOf } from './delivery-fixture.ts';
import { receiver, setContact, settle } from './dispatch-helpers.ts';
import { headerOf, type SmtpReceiver, saveConfig, startSmtp } from './email-helpers.ts';
import { type PushReceiver, pushDelivery, startPushReceiver } from './push-helpers.ts';

/**
 * A notification's console deep link leaves the console absolute (decision 0028): the email's
 * button and text, its unsubscribe link, the push payload, the webhook envelope and the chat
 * card's button — under PUBLIC_BASE_URL (its path kept), else the development address.
 * The in-app message keeps the link as given: the console opens it (inapp-adapter.test.ts).
 */
const setups: { name: string; env: Record<string, string>; base: string }[] = [
  {
    name: 'PUBLIC_BASE_URL with a path',
    env: { PUBLIC_BASE_URL: 'https://atrium.example/office' },
    base: 'https://atrium.example/office',
  },
  { name: 'the development default', env: { PORT: '4321' }, base: 'http://127.0.0.1:4321' },
];
const LINK = '/drive?space=1&node=2';

describe.each(setups)('notification links: $name', ({ env, base }) => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let jpush: PushReceiver;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    jpush = await startPushReceiver('key', 'secret');
    hooks = await receiver();
    t = await createTestApp({ env: { ...env, EGRESS_ALLOW_HOSTS: `${jpush.host},127.0.0.1:${hooks.port}` } });
    await saveConfig(t, t.demoAdminToken, smtp.port);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await jpush?.close();
    await hooks?.close();
  });

  it('email: the button, the text and the unsubscribe link', async () => {
    const reader = await createUserWithPermissions(t, []);
    await setContact(t, reader.userId, { email: 'reader@links.test' });
    await settle(
      t,
      await t.app.messaging.notify('wiki.doc.mentioned', {
        tenantId: t.demoTenantId,
        recipients: [{ type: 'user', id: reader.userId }],
        variables: { docTitle: 'Plan', actorName: 'Ann' },
        link: LINK,
      }),
    );
    const mail = smtp.received.find((r) => r.to.includes('reader@links.test'))?.mail;
    if (!mail) throw new Error('no mail arrived');
    expect(mail.html).toContain(`href="${base}/drive?space=1&amp;node=2"`);
    expect(mail.text).toContain(`View details: ${base}/drive?space=1&node=2`);
    const unsubscribe = headerOf(mail, 'List-Unsubscribe') as string;
    expect(unsubscribe).toMatch(new RegExp(`^<${base.replaceAll('.', '\\.')}/api/notification-unsubscribe/[^>/]+>$`));
    expect(mail.html).toContain(`href="${unsubscribe.slice(1, -1)}"`);
  });

  it('push: the link in the extras', async () => {
    const saved = await call(t.app, 'PUT', '/api/push-config', {
      token: t.demoAdminToken,
      body: { endpoint: jpush.url, appKey: 'key', masterSecret: 'secret' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const ada = await createUserWithPermissions(t, []);
    const bound = await call(t.app, 'POST', '/api/push-devices', {
      token: ada.token,
      body: { platform: 'android', registrationId: 'ada-phone' },
    });
    expect(bound.statusCode, bound.body).toBe(201);
    const push = t.app.messaging.channels.get('push') as ChannelAdapter;
    const [outcome] = await push.deliver([pushDelivery(t.demoTenantId, { id: ada.userId }, { link: LINK })]);
    expect(outcome?.status).toBe('sent');
    const body = jpush.accepted.at(-1)?.body as { notification: { android: { extras: Record<string, string> } } };
    expect(body.notification.android.extras.link).toBe(`${base}/drive?space=1&node=2`);
  });

  it("webhook and chat: the envelope's link and the card's button", async () => {
    const external = (channel: 'webhook' | 'chat'): Partial<Contact> => ({
      type: 'external',
      id: null,
      key: `e:${channel}:${hooks.url}`,
      address: hooks.url,
    });
    const variables = { host: 'db-1', metric: 'cpu', value: '97%', threshold: '90%', level: 'P1' };
    const d = (channel: 'webhook' | 'chat') =>
      deliveryOf('ops.monitor.alert', t.demoTenantId, { contact: external(channel), variables, link: LINK });
    const webhook = t.app.messaging.channels.get('webhook') as ChannelAdapter;
    expect(await webhook.deliver([d('webhook')])).toEqual([{ status: 'sent' }]);
    expect(JSON.parse(hooks.received.at(-1)?.body ?? '{}').link).toBe(`${base}/drive?space=1&node=2`);
    const chat = t.app.messaging.channels.get('chat') as ChannelAdapter;
    expect(await chat.deliver([d('chat')])).toEqual([{ status: 'sent' }]);
    const card = JSON.parse(hooks.received.at(-1)?.body ?? '{}') as {
      blocks: { type: string; elements?: { url?: string }[] }[];
    };
    expect(card.blocks.find((b) => b.type === 'actions')?.elements?.[0]?.url).toBe(`${base}/drive?space=1&node=2`);
  });
});
