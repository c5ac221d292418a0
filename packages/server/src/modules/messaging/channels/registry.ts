import type { Channel, ChannelAdapter } from './types.ts';

/** The registered channel adapters; a channel without one is `channel_unavailable` (spec §4.4 rule 5). */
export function createChannelRegistry() {
  const adapters = new Map<Channel, ChannelAdapter>();
  return {
    register(adapter: ChannelAdapter) {
      if (adapters.has(adapter.channel)) throw new Error(`channel ${adapter.channel} has two adapters`);
      adapters.set(adapter.channel, adapter);
    },
    get: (channel: Channel) => adapters.get(channel) ?? null,
  };
}

export type ChannelRegistry = ReturnType<typeof createChannelRegistry>;
