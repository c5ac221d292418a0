import type { ChannelAdapter, ChannelCode } from './channels/types.ts';

/**
 * What the payment module hands an adapter: one configuration with its secrets in clear. An
 * adapter that wants its own shape declares `toConfig` (channel-wiring.ts registers channel_a/b/c;
 * a channel without an entry answers payment.channel_unavailable).
 */
export type AdapterConfig = {
  configId: number;
  tenantId: number | null;
  fields: Record<string, string>;
  secrets: Record<string, string>;
  notifyUrl: string;
};

/**
 * What the callback route needs to know of a channel besides its adapter.
 * - `merchantOf`: the merchant id a callback names in clear (channel_b app_id, channel_c merId),
 *   read before any verification, and `configMerchant` the same id in a stored configuration: the
 *   configurations naming it are tried first (channel_a encrypts it: no hint).
 * - `refundByQuery`: the channel's refund notice does not carry the refund's own amount
 *   (channel_b's refund_fee is the trade's total refunded), so it only triggers a refund query.
 */
export type ChannelTraits = {
  merchantOf?: (rawBody: Buffer) => string | null;
  configMerchant?: (fields: Record<string, string>) => string | null;
  refundByQuery?: boolean;
};

type Entry<C> = { adapter: ChannelAdapter<C>; toConfig: (config: AdapterConfig) => C; traits: ChannelTraits };
// biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own configuration type
type AnyEntry = Entry<any>;

export function createAdapterRegistry() {
  const entries = new Map<ChannelCode, AnyEntry>();
  return {
    add<C>(adapter: ChannelAdapter<C>, toConfig: (config: AdapterConfig) => C, traits: ChannelTraits = {}): void {
      entries.set(adapter.code, { adapter, toConfig, traits });
    },
    get: (code: ChannelCode): AnyEntry | null => entries.get(code) ?? null,
  };
}

export type AdapterRegistry = ReturnType<typeof createAdapterRegistry>;
