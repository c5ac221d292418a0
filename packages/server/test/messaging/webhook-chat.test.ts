import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatAdapter } from '../../src/modules/messaging/channels/chat.ts';
import type { ChannelAdapter, Contact, Delivery } from '../../src/modules/messaging/channels/types.ts';
import { createWebhookAdapter, webhookSigningSecret } from '../../src/modules/messaging/channels/webhook.ts';
import { SIGNATURE_HEADER, verifySignature } from '../../src/platform/egress/signing.ts';
import type { EventDef } from '../../src/platform/events/types.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { catalog } from '../helpers/catalog.ts';
import { createTenant } from '../helpers/fixtures.ts';

/**
 * The webhook and chat channel adapters against real HTTP receivers on 127.0.0.1. `allowed` is in
 * EGRESS_ALLOW_HOSTS; `refused` (another port) is not, so calls to it must be stopped by the guard.
 */
type Hit = { path: string; headers: IncomingHttpHeaders; body: string };
type Receiver = { origin: string; port: number; hits: Hit[]; maxInFlight: number; close(): Promise<void> };

/**
 * Answers 200 "ok", or the status a path ending in `/status/<code>` names (3xx: redirecting to
 * /redirected); `/slow…` paths answer after 100 ms, and `maxInFlight` counts overlapping requests.
 */
async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = [];
  let inFlight = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    inFlight++;
    receiver.maxInFlight = Math.max(receiver.maxInFlight, inFlight);
    res.on('finish', () => inFlight--);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = req.url ?? '/';
      hits.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (path.startsWith('/slow')) await new Promise((r) => setTimeout(r, 100));
      const status = Number(/\/status\/(\d{3})$/.exec(path)?.[1] ?? 200);
      res.writeHead(status, {
        'content-type': 'text/plain',
        ...(status >= 300 && status < 400 ? { location: '/redirected' } : {}),
      });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    maxInFlight: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

const alert = catalog.get('ops.monitor.alert') as EventDef;
const variables = { host: 'db-1', metric: 'cpu', value: '97% <high>', threshold: '90%', level: 'P1' };
const TITLE = '[P1] cpu on db-1';
const CONTENT = 'cpu on db-1 is 97% <high> (threshold 90%).';

let t: TestApp;
let allowed: Receiver;
let refused: Receiver;
let webhook: ChannelAdapter;
let chat: ChannelAdapter;
let tenantId: number;
let dispatchIds = 100;

const user = (id = 7, name = 'Alice Chen'): Contact => ({
  type: 'user',
  id,
  key: `u:${id}`,
  tenantId,
  name,
  email: null,
  phone: null,
  address: null,
});
const external = (channel: 'webhook' | 'chat', address: string): Contact => ({
  type: 'external',
  id: null,
  key: `e:${channel}:${address}`,
  tenantId,
  name: address,
  email: null,
  phone: null,
  address,
});

function delivery(over: Partial<Delivery> = {}): Delivery {
  return {
    dispatchId: ++dispatchIds,
    tenantId,
    event: alert,
    variables,
    contact: user(),
    link: '/ops/monitor/alerts/3',
    channelOptions: {},
    unsubscribeUrl: null,
    ...over,
  };
}

const hitsAt = (path: string) => allowed.hits.filter((h) => h.path === path);
const setMessaging = (tenant: number, patch: Record<string, unknown>) =>
  t.app.ctx.settings.update('messaging', tenant, patch, null);

beforeAll(async () => {
  allowed = await startReceiver();
  refused = await startReceiver();
  t = await createTestApp({
    env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${allowed.port}`, PUBLIC_BASE_URL: 'https://console.example' },
  });
  tenantId = t.demoTenantId;
  webhook = createWebhookAdapter(t.app.ctx);
  chat = createChatAdapter(t.app.ctx);
});
afterAll(async () => {
  await t?.close();
  await allowed?.close();
  await refused?.close();
});

describe('webhook channel', () => {
  it('posts the documented envelope, signed with the tenant secret, to channelOptions.webhook.url', async () => {
    const d = delivery({ channelOptions: { webhook: { url: `${allowed.origin}/hook` } } });
    expect(await webhook.deliver([d])).toEqual([{ status: 'sent' }]);

    const [hit] = hitsAt('/hook');
    if (!hit) throw new Error('the receiver got nothing');
    expect(JSON.parse(hit.body)).toEqual({
      id: `ntf_${d.dispatchId}`,
      event: 'ops.monitor.alert',
      severity: 'critical',
      title: TITLE,
      content: CONTENT,
      link: 'https://console.example/ops/monitor/alerts/3',
      variables,
      recipient: { type: 'user', id: 7 },
      tenantId,
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['x-atrium-event']).toBe('ops.monitor.alert');
    expect(hit.headers['x-atrium-delivery']).toBe(String(d.dispatchId));
    expect(hit.headers['x-atrium-event-id']).toBe(`ntf_${d.dispatchId}`);
    expect(hit.headers['user-agent']).toMatch(/^Atrium-Webhooks\//);

    const signature = hit.headers[SIGNATURE_HEADER] as string;
    const now = new Date();
    expect(verifySignature(webhookSigningSecret(t.app.ctx, tenantId), signature, hit.body, now)).toBe(true);
    // another tenant's secret, or a tampered body, does not verify
    expect(verifySignature(webhookSigningSecret(t.app.ctx, tenantId + 1), signature, hit.body, now)).toBe(false);
    expect(verifySignature(webhookSigningSecret(t.app.ctx, tenantId), signature, `${hit.body} `, now)).toBe(false);
  });

  it('sends a custom body as given, signed too', async () => {
    const body = { text: 'disk almost full', tags: ['ops', 'disk'], n: 1 };
    const d = delivery({ channelOptions: { webhook: { url: `${allowed.origin}/custom`, body } } });
    expect(await webhook.deliver([d])).toEqual([{ status: 'sent' }]);
    const [hit] = hitsAt('/custom');
    expect(hit?.body).toBe(JSON.stringify(body));
    const secret = webhookSigningSecret(t.app.ctx, tenantId);
    expect(verifySignature(secret, hit?.headers[SIGNATURE_HEADER] as string, hit?.body ?? '', new Date())).toBe(true);
  });

  it("posts to an external recipient's address, naming no recipient id", async () => {
    const d = delivery({ contact: external('webhook', `${allowed.origin}/external`), link: null });
    expect(await webhook.deliver([d])).toEqual([{ status: 'sent' }]);
    const body = JSON.parse(hitsAt('/external')[0]?.body ?? '{}');
    expect(body.recipient).toEqual({ type: 'external', id: null });
    expect(body.link).toBeNull();
  });

  it('fails the items whose receiver answers non-2xx or is refused, and sends the others', async () => {
    const to = (url: string) => delivery({ channelOptions: { webhook: { url } } });
    const outcomes = await webhook.deliver([
      to(`${allowed.origin}/batch-1`),
      to(`${allowed.origin}/status/500`),
      to(`${refused.origin}/batch-refused`),
      to(`${allowed.origin}/redirect-is-not-followed/status/301`),
      to('not a url'),
      to(`${allowed.origin}/batch-2`),
    ]);
    expect(outcomes).toEqual([
      { status: 'sent' },
      { status: 'failed', error: 'HTTP 500' },
      { status: 'failed', error: 'The destination address is not allowed' },
      { status: 'failed', error: 'HTTP 301' },
      { status: 'failed', error: 'The URL is not valid' },
      { status: 'sent' },
    ]);
    expect(hitsAt('/batch-1')).toHaveLength(1);
    expect(hitsAt('/batch-2')).toHaveLength(1);
    expect(hitsAt('/status/500')).toHaveLength(1);
    expect(refused.hits).toEqual([]);
    expect(hitsAt('/redirected')).toEqual([]);
  });

  it('posts a batch in parallel, at most 8 at a time, keeping the order of outcomes', async () => {
    allowed.maxInFlight = 0;
    const batch = Array.from({ length: 20 }, (_, i) =>
      delivery({ channelOptions: { webhook: { url: `${allowed.origin}/slow/${i}${i === 13 ? '/status/502' : ''}` } } }),
    );
    const outcomes = await webhook.deliver(batch);
    expect(outcomes.map((o) => o.status)).toEqual(batch.map((_, i) => (i === 13 ? 'failed' : 'sent')));
    expect(hitsAt('/slow/13/status/502')).toHaveLength(1);
    expect(allowed.maxInFlight).toBeGreaterThan(1);
    expect(allowed.maxInFlight).toBeLessThanOrEqual(8);
  });

  it('turns an item that cannot be built into its own failure', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const outcomes = await webhook.deliver([
      delivery({ channelOptions: { webhook: { url: `${allowed.origin}/circular`, body: circular } } }),
      delivery({ channelOptions: { webhook: { url: `${allowed.origin}/after-circular` } } }),
    ]);
    expect(outcomes[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/circular/i) });
    expect(outcomes[1]).toEqual({ status: 'sent' });
  });

  it('is unreachable for a user without a webhook URL', async () => {
    expect(await webhook.deliver([delivery()])).toEqual([{ status: 'unreachable', detail: 'no webhook URL' }]);
  });

  it("is available until the tenant's webhookEnabled switch is off", async () => {
    const other = await createTenant(t);
    expect(await webhook.available(other.tenantId)).toBe(true);
    await setMessaging(other.tenantId, { webhookEnabled: false });
    expect(await webhook.available(other.tenantId)).toBe(false);
    expect(await webhook.available(tenantId)).toBe(true);
  });

  it('derives a stable secret per tenant', () => {
    const secret = webhookSigningSecret(t.app.ctx, tenantId);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(webhookSigningSecret(t.app.ctx, tenantId)).toBe(secret);
    expect(webhookSigningSecret(t.app.ctx, null)).not.toBe(secret);
  });
});

describe('chat channel', () => {
  it('is unreachable for a user while the tenant has no bot URL, and reaches an external bot', async () => {
    const bare = await createTenant(t);
    const outcomes = await chat.deliver([
      delivery({ tenantId: bare.tenantId }),
      delivery({ tenantId: bare.tenantId, contact: external('chat', `${allowed.origin}/external-bot`) }),
    ]);
    expect(outcomes).toEqual([{ status: 'unreachable', detail: 'no chat bot URL configured' }, { status: 'sent' }]);
    const card = JSON.parse(hitsAt('/external-bot')[0]?.body ?? '{}');
    expect(card.blocks[0].text.text).toBe(TITLE);
    // an external bot is the recipient itself: nobody is named
    expect(JSON.stringify(card)).not.toContain(' for *');
  });

  it("posts one Block Kit card per user to the tenant's bot, naming each", async () => {
    await setMessaging(tenantId, { chatWebhookUrl: `${allowed.origin}/bot` });
    const outcomes = await chat.deliver([delivery(), delivery({ contact: user(8, 'Bo <Admin>') })]);
    expect(outcomes).toEqual([{ status: 'sent' }, { status: 'sent' }]);

    const cards = hitsAt('/bot').map((h) => JSON.parse(h.body));
    expect(cards).toHaveLength(2);
    const alice = cards.find((c) => JSON.stringify(c).includes('Alice Chen'));
    expect(alice).toEqual({
      text: `Critical: ${TITLE}`,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: TITLE } },
        { type: 'section', text: { type: 'mrkdwn', text: 'cpu on db-1 is 97% &lt;high&gt; (threshold 90%).' } },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: '*Critical* · Server monitor alert · for *Alice Chen*' }],
        },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'Open' },
              url: 'https://console.example/ops/monitor/alerts/3',
              style: 'danger',
            },
          ],
        },
      ],
    });
    expect(JSON.stringify(cards)).toContain('for *Bo &lt;Admin&gt;*');
  });

  it('leaves the button out without a link, and fails on a non-2xx answer', async () => {
    await setMessaging(tenantId, { chatWebhookUrl: `${allowed.origin}/status/404` });
    expect(await chat.deliver([delivery({ link: null })])).toEqual([{ status: 'failed', error: 'HTTP 404' }]);
    const card = JSON.parse(hitsAt('/status/404')[0]?.body ?? '{}');
    expect(card.blocks.map((b: { type: string }) => b.type)).toEqual(['header', 'section', 'context']);
  });

  it("is available until the tenant's chatEnabled switch is off", async () => {
    expect(await chat.available(tenantId)).toBe(true);
    await setMessaging(tenantId, { chatEnabled: false });
    expect(await chat.available(tenantId)).toBe(false);
  });
});
