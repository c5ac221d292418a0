import type { ChannelAdapter, ChannelCode } from './channels/types.ts';

/**
 * What the payment module hands an adapter: one configuration with its secrets in clear. An
 * adapter that wants its own shape declares `toConfig` (channel_a/b/c are registered here as
 * their adapters land; until then their orders answer payment.channel_unavailable).
 */
export type AdapterConfig = {
  configId: number;
  tenantId: number | null;
  fields: Record<string, string>;
  secrets: Record<string, string>;
  notifyUrl: string;
};

type Entry<C> = { adapter: ChannelAdapter<C>; toConfig: (config: AdapterConfig) => C };
// biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own configuration type
type AnyEntry = Entry<any>;

export function createAdapterRegistry() {
  const entries = new Map<ChannelCode, AnyEntry>();
  return {
    add<C>(adapter: ChannelAdapter<C>, toConfig: (config: AdapterConfig) => C): void {
      entries.set(adapter.code, { adapter, toConfig });
    },
    get: (code: ChannelCode): AnyEntry | null => entries.get(code) ?? null,
  };
}

export type AdapterRegistry = ReturnType<typeof createAdapterRegistry>;
