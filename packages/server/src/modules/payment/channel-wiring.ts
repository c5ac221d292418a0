import type { Cache } from '../../platform/cache/cache.ts';
import type { Egress } from '../../platform/egress/client.ts';
import type { AdapterConfig, AdapterRegistry } from './adapters.ts';
import { createChannelAAdapter } from './channels/channel-a/adapter.ts';
import type { ChannelAConfig } from './channels/channel-a/config.ts';
import { createChannelBAdapter } from './channels/channel-b/adapter.ts';
import type { ChannelBConfig } from './channels/channel-b/config.ts';
import { createChannelCAdapter } from './channels/channel-c/adapter.ts';
import { type ChannelCConfig, PRODUCTION_SIGNER_CN } from './channels/channel-c/config.ts';

/**
 * channel_a/b/c registered with the payment module (issue 16): each adapter gets the platform
 * egress client (the operator's EGRESS_ALLOW_HOSTS is its allow-list), the clock, and — for
 * channel_a — the shared cache, so every instance sees the same platform certificates and the
 * same download throttle. `toConfig` maps the stored fields and secrets (configs/fields.ts) onto
 * each adapter's configuration type; an empty optional field is absent.
 */
export function registerChannelAdapters(
  registry: AdapterRegistry,
  deps: { egress: Egress; clock: () => Date; cache: Cache },
): void {
  const { egress, clock, cache } = deps;
  registry.add(createChannelAAdapter({ egress, clock, cache }), channelAConfig);
  registry.add(createChannelBAdapter({ egress, clock }), channelBConfig, {
    merchantOf: (raw) => formField(raw, 'app_id'),
    configMerchant: (fields) => fields.appId ?? null,
    refundByQuery: true,
  });
  registry.add(createChannelCAdapter({ egress, clock }), channelCConfig, {
    merchantOf: (raw) => formField(raw, 'merId'),
    configMerchant: (fields) => fields.merId ?? null,
  });
}

const given = (value: string | undefined) => (value ? value : undefined);

export function channelAConfig({ fields: f, secrets: s }: AdapterConfig): ChannelAConfig {
  return {
    mchId: f.mchId ?? '',
    appId: f.appId ?? '',
    merchantSerialNo: f.merchantSerialNo ?? '',
    merchantPrivateKey: s.merchantPrivateKey ?? '',
    apiV3Key: s.apiV3Key ?? '',
    platformPublicKeyId: given(f.platformPublicKeyId) ?? null,
    platformPublicKey: given(f.platformPublicKey) ?? null,
    baseUrl: given(f.baseUrl),
  };
}

export function channelBConfig({ fields: f, secrets: s }: AdapterConfig): ChannelBConfig {
  const common = {
    appId: f.appId ?? '',
    appPrivateKey: s.appPrivateKey ?? '',
    signType: f.signType === 'RSA' ? ('RSA' as const) : ('RSA2' as const),
    baseUrl: given(f.baseUrl),
  };
  return f.walletPublicKey
    ? { ...common, mode: 'publicKey', walletPublicKey: f.walletPublicKey }
    : {
        ...common,
        mode: 'cert',
        appPublicCert: f.appPublicCert ?? '',
        walletPublicCert: f.walletPublicCert ?? '',
        walletRootCert: f.walletRootCert ?? '',
      };
}

export function channelCConfig({ fields: f, secrets: s }: AdapterConfig): ChannelCConfig {
  return {
    merId: f.merId ?? '',
    signCertPem: f.signCertPem ?? '',
    signKeyPem: s.signKeyPem ?? '',
    rootCertPem: f.rootCertPem ?? '',
    middleCertPem: f.middleCertPem ?? '',
    signerCn: given(f.signerCn) ?? PRODUCTION_SIGNER_CN,
    // empty: the adapter's production gateway
    baseUrl: f.baseUrl ?? '',
  };
}

/** One field of a form body, read before verification only to order the configurations tried. */
function formField(raw: Buffer, name: string): string | null {
  if (raw.length === 0 || raw[0] === 0x7b) return null; // empty or JSON: not a form
  try {
    return new URLSearchParams(raw.toString('latin1')).get(name);
  } catch {
    return null;
  }
}
