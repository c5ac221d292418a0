import { type ChannelASimulator, startChannelASimulator } from './channel-a.ts';
import { type ChannelBSimulator, startChannelBSimulator } from './channel-b.ts';
import { type ChannelCSimulator, createChannelCSimulator } from './channel-c.ts';

/**
 * The three channel simulators together, and the merchant configuration each one stands for in
 * the stored shape of the payment module (configs/fields.ts): used by the callback tests and the
 * payment bench alike.
 */
export type Sims = { a: ChannelASimulator; b: ChannelBSimulator; c: ChannelCSimulator };

export async function startSims(): Promise<Sims> {
  const [a, b, c] = await Promise.all([startChannelASimulator(), startChannelBSimulator(), createChannelCSimulator()]);
  return { a, b, c };
}

export const closeSims = async (s: Sims | undefined) => {
  await Promise.all([s?.a.close(), s?.b.close(), s?.c.close()]);
};

/** The stored shape (configs/fields.ts) of each simulator's merchant configuration. */
export function configBodies(s: Sims) {
  const a = s.a.config();
  const b = s.b.config;
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
  [s.a.baseUrl, s.b.config.baseUrl ?? '', s.c.baseUrl].map((u) => `127.0.0.1:${new URL(u).port}`).join(',');
