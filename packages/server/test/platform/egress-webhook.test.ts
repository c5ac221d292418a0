import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretError } from '../../src/platform/crypto/secrets.ts';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { SIGNATURE_HEADER, verifySignature } from '../../src/platform/egress/signing.ts';
import { sendWebhook, type WebhookRequest } from '../../src/platform/egress/webhook.ts';
import { freeLoopbackPort } from '../../src/platform/net/free-port.ts';

/**
 * The kernel's webhook path against a real receiver on 127.0.0.1: what it sends (signed with every
 * secret given) and how it classifies each way an attempt can end. `/status/<n>` answers n
 * (3xx with a Location), `/hang` never answers.
 */
type Hit = { path: string; headers: IncomingHttpHeaders; body: string };
let server: Server;
let port: number;
let closedPort: number;
const hits: Hit[] = [];
const now = new Date('2026-11-21T04:13:00.000Z');
let ctx: Parameters<typeof sendWebhook>[0];

beforeAll(async () => {
  port = await freeLoopbackPort();
  closedPort = await freeLoopbackPort();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      hits.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (path === '/hang') return;
      const status = Number(/^\/status\/(\d{3})$/.exec(path)?.[1] ?? 200);
      res.writeHead(status, status >= 300 && status < 400 ? { location: '/redirected' } : {});
      res.end(status < 300 ? 'thanks' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const egress = createEgress({ allow: parseAllowList(`127.0.0.1:${port},127.0.0.1:${closedPort}`) });
  ctx = { egress, log: pino({ level: 'silent' }), clock: () => now };
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const request = (path: string, over: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url: `http://127.0.0.1:${port}${path}`,
  secrets: () => ['whsec_current'],
  eventType: 'sample.thing.happened',
  eventId: 'evt-1',
  body: '{"id":"evt-1","n":1}',
  ...over,
});

describe('sendWebhook', () => {
  it('POSTs the body as JSON with the event headers, signed with every secret given', async () => {
    const o = await sendWebhook(ctx, request('/hook', { secrets: () => ['whsec_new', 'whsec_old'], deliveryId: '42' }));
    expect(o).toMatchObject({ result: 'delivered', status: 200, reason: null, code: null });
    expect(o.response?.toString()).toBe('thanks');
    const hit = hits.find((h) => h.path === '/hook');
    if (!hit) throw new Error('the receiver got nothing');
    expect(hit.body).toBe('{"id":"evt-1","n":1}');
    expect(hit.headers).toMatchObject({
      'content-type': 'application/json',
      'x-atrium-event': 'sample.thing.happened',
      'x-atrium-event-id': 'evt-1',
      'x-atrium-delivery': '42',
    });
    expect(hit.headers['user-agent']).toMatch(/^Atrium-Webhooks\/\d+\.\d+\.\d+$/);
    const signature = hit.headers[SIGNATURE_HEADER] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature('whsec_new', signature, hit.body, now)).toBe(true);
    expect(verifySignature('whsec_old', signature, hit.body, now)).toBe(true);
    // another secret or a changed body fails verification
    expect(verifySignature('whsec_other', signature, hit.body, now)).toBe(false);
    expect(verifySignature('whsec_new', signature, '{"id":"evt-1","n":2}', now)).toBe(false);
  });

  it('sends no delivery header when the sender has no delivery id', async () => {
    await sendWebhook(ctx, request('/no-delivery'));
    expect(hits.find((h) => h.path === '/no-delivery')?.headers).not.toHaveProperty('x-atrium-delivery');
  });

  it.each([
    ['/status/503', 'retryable', 503],
    ['/status/500', 'retryable', 500],
    ['/status/429', 'retryable', 429],
    ['/status/408', 'retryable', 408],
    ['/status/404', 'permanent', 404],
    ['/status/400', 'permanent', 400],
    ['/status/301', 'permanent', 301],
  ])('classifies an answer %s as %s', async (path, result, status) => {
    const o = await sendWebhook(ctx, request(path));
    expect(o).toMatchObject({ result, status, reason: `HTTP ${status}`, code: null });
  });

  it('does not follow a redirect', async () => {
    await sendWebhook(ctx, request('/status/302'));
    expect(hits.filter((h) => h.path === '/redirected')).toEqual([]);
  });

  it('refuses a blocked destination as permanent, never calling it, and names no address', async () => {
    const o = await sendWebhook(ctx, request('', { url: 'http://10.1.2.3:9/hook' }));
    expect(o).toMatchObject({
      result: 'permanent',
      status: null,
      code: 'egress.blocked_address',
      reason: 'The destination address is not allowed',
      response: null,
    });
  });

  it('counts an unreachable receiver and a timeout as retryable', async () => {
    const closed = await sendWebhook(ctx, request('', { url: `http://127.0.0.1:${closedPort}/hook` }));
    expect(closed).toMatchObject({ result: 'retryable', status: null, code: 'egress.network_error' });
    const hung = await sendWebhook(ctx, request('/hang', { timeoutMs: 300 }));
    expect(hung).toMatchObject({ result: 'retryable', status: null, code: 'egress.timeout' });
  });

  it('fails permanently, sending nothing, when a secret no longer decrypts', async () => {
    const unreadable = () => {
      throw new SecretError('the value does not decrypt');
    };
    const o = await sendWebhook(ctx, request('/unsigned', { secrets: unreadable }));
    expect(o).toMatchObject({ result: 'permanent', status: null, code: null });
    expect(o.reason).toMatch(/^secret_unavailable: /);
    expect(hits.filter((h) => h.path === '/unsigned')).toEqual([]);
  });
});
