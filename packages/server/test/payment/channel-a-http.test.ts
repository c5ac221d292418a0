import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelAHarness, order } from './channel-a-harness.ts';

/**
 * The simulator POSTs callbacks over HTTP as the channel does; a bare receiver (standing in for
 * the payment module's route, which does not exist yet) hands the raw bytes to the adapter and
 * answers its acknowledgement. Proves the bytes signed are the bytes received and the ack is sent
 * as specified.
 */
describe('channel_a callbacks over HTTP', () => {
  let h: Awaited<ReturnType<typeof channelAHarness>>;
  let receiver: Server;
  let url: string;

  beforeAll(async () => {
    h = await channelAHarness();
    await h.adapter.createPayment(h.sim.config(), order('H1'));
    h.sim.pay('H1');
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
        );
        const result = await h.adapter.verifyCallback(
          h.sim.config(),
          { rawBody: Buffer.concat(chunks), headers },
          h.clock(),
        );
        const ack = result.valid ? h.adapter.ack.success : { ...h.adapter.ack.failure(result.reason), status: 401 };
        res.writeHead(ack.status, ack.contentType ? { 'content-type': ack.contentType } : {}).end(ack.body);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/public/payment/notify/channel_a`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await h.sim.close();
  });

  it('a channel callback is acknowledged with 204 and no body', async () => {
    expect(await h.sim.fireCallback(url, h.sim.paymentCallback('H1'))).toEqual({ status: 204, body: '' });
  });

  it('a tampered callback gets a 4xx with the FAIL body, so the channel resends', async () => {
    const cb = h.sim.paymentCallback('H1');
    const tampered = {
      ...cb,
      rawBody: Buffer.from(cb.rawBody.toString().replace('encrypt-resource', 'encrypt-resourcE')),
    };
    expect(await h.sim.fireCallback(url, tampered)).toEqual({
      status: 401,
      body: '{"code":"FAIL","message":"signature does not verify"}',
    });
  });
});
