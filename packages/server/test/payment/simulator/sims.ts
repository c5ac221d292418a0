import { type ChannelAKeys, type ChannelASimulator, startChannelASimulator } from './channel-a.ts';
import { type ChannelBKeys, type ChannelBSimulator, startChannelBSimulator } from './channel-b.ts';
import { type ChannelCKeys, type ChannelCSimulator, startChannelCSimulator } from './channel-c.ts';

/**
 * The three channel simulators together, and the merchant configuration each one stands for in
 * the stored shape of the payment module (configs/fields.ts): used by the callback tests, the
 * payment bench and the developer's `npm run simulator` (scripts/payment-simulator.ts).
 */
export type Sims = { a: ChannelASimulator; b: ChannelBSimulator; c: ChannelCSimulator };
export type Channel = 'channel_a' | 'channel_b' | 'channel_c';
export type SimsKeys = { a: ChannelAKeys; b: ChannelBKeys; c: ChannelCKeys };
export type SimsOptions = { ports?: Partial<Record<keyof Sims, number>>; keys?: SimsKeys };

export async function startSims(opts: SimsOptions = {}): Promise<Sims> {
  const { ports = {}, keys } = opts;
  const started = await Promise.allSettled([
    startChannelASimulator({ port: ports.a, keys: keys?.a }),
    startChannelBSimulator({ port: ports.b, keys: keys?.b }),
    startChannelCSimulator({ port: ports.c, keys: keys?.c }),
  ]);
  const [a, b, c] = started;
  if (a.status === 'fulfilled' && b.status === 'fulfilled' && c.status === 'fulfilled') {
    return { a: a.value, b: b.value, c: c.value };
  }
  // one could not start (a port in use): stop the others before failing
  await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
  throw (started.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason;
}

export const closeSims = async (s: Sims | undefined) => {
  await Promise.all([s?.a.close(), s?.b.close(), s?.c.close()]);
};

/** Each simulator's key material, to start the set again with the same merchants (`opts.keys`). */
export const simsKeys = (s: Sims): SimsKeys => ({ a: s.a.keys(), b: s.b.keys(), c: s.c.keys() });

/** The simulator of a channel, by the payment module's channel code. */
export const simOf = (s: Sims, channel: Channel) =>
  channel === 'channel_a' ? s.a : channel === 'channel_b' ? s.b : s.c;

/** The stored shape (configs/fields.ts) of each simulator's merchant configuration. */
export function configBodies(s: Sims) {
  const a = s.a.config();
  const b = s.b.config();
  const c = s.c.config();
  return {
    channel_a: {
      fields: { mchId: a.mchId, appId: a.appId, merchantSerialNo: a.merchantSerialNo, baseUrl: a.baseUrl ?? '' },
      secrets: { merchantPrivateKey: a.merchantPrivateKey, apiV3Key: a.apiV3Key },
    },
    channel_b: {
      fields: {
        appId: b.appId,
        baseUrl: b.baseUrl ?? '',
        walletPublicKey: b.mode === 'publicKey' ? b.walletPublicKey : '',
      },
      secrets: { appPrivateKey: b.appPrivateKey },
    },
    channel_c: {
      fields: {
        merId: c.merId,
        signCertPem: c.signCertPem,
        rootCertPem: c.rootCertPem,
        middleCertPem: c.middleCertPem,
        signerCn: c.signerCn,
        baseUrl: c.baseUrl,
      },
      secrets: { signKeyPem: c.signKeyPem },
    },
  };
}

/** The simulators' loopback addresses, for EGRESS_ALLOW_HOSTS (egress refuses loopback unless named). */
export const simulatorHosts = (s: Sims) =>
  [s.a.baseUrl, s.b.baseUrl, s.c.baseUrl].map((u) => `127.0.0.1:${new URL(u).port}`).join(',');
