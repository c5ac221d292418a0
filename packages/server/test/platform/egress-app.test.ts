import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { type Receiver, startReceiver } from './egress-receiver.ts';

/** The service's own client (ctx.egress) is built from EGRESS_ALLOW_HOSTS and nothing else. */
describe('ctx.egress', () => {
  let receiver: Receiver;
  let t: TestApp;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({ env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` } });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('reaches the receiver the configuration allows', async () => {
    const res = await t.app.ctx.egress.request(`${receiver.origin}/ok`, { method: 'POST', body: 'ping' });
    expect(res.status).toBe(200);
    expect(receiver.hits.at(-1)).toMatchObject({ method: 'POST', body: 'ping' });
  });

  it('refuses every other local destination', async () => {
    const before = receiver.hits.length;
    // (an IP entry opens that address:port whatever name leads there, so localhost is tried on another port)
    for (const url of [
      'http://localhost:1/',
      `http://[::1]:${receiver.port}/`,
      'http://127.0.0.1:1/',
      'http://169.254.169.254/',
    ]) {
      await expect(t.app.ctx.egress.request(url, { timeoutMs: 2000 }), url).rejects.toMatchObject({
        code: 'egress.blocked_address',
      });
    }
    expect(receiver.hits.length).toBe(before);
  });
});
