import { createChannelAAdapter } from '../../src/modules/payment/channels/channel-a/adapter.ts';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { startChannelASimulator } from './simulator/channel-a.ts';

/**
 * A simulator and an adapter sharing one movable clock (the certificate cache and the refresh
 * throttle are timed by it), the egress client allowed to reach the simulator on loopback only.
 */
export async function channelAHarness(opts: { merchantKeyFormat?: 'pkcs8' | 'pkcs1' } = {}) {
  let nowMs = Date.now();
  const clock = () => new Date(nowMs);
  const sim = await startChannelASimulator({ ...opts, now: clock });
  const port = new URL(sim.baseUrl).port;
  const egress = createEgress({ allow: parseAllowList(`127.0.0.1:${port}`) });
  const adapter = createChannelAAdapter({ egress, clock });
  return {
    sim,
    adapter,
    egress,
    clock,
    advance(ms: number) {
      nowMs += ms;
    },
    /** how many times the adapter downloaded the platform certificates */
    downloads: () => sim.requests.filter((r) => r.path === '/v3/certificates').length,
  };
}

export const order = (orderNo: string, amount = 1999) => ({
  orderNo,
  amount,
  currency: 'CNY',
  subject: 'Atrium test order',
  expiresAt: new Date(Date.now() + 30 * 60_000),
  notifyUrl: 'https://atrium.example/api/public/payment/notify/channel_a',
});
