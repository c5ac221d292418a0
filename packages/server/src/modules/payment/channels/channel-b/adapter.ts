import type { Egress } from '../../../../platform/egress/client.ts';
import type { ChannelAck, ChannelAdapter } from '../types.ts';
import { type ChannelBConfig, channelBConfigProblems } from './config.ts';
import { type ChannelBKeys, loadKeys } from './keys.ts';
import { verifyNotify } from './notify.ts';
import { closeTrade, precreate, queryRefund, queryTrade, refundTrade } from './trade-api.ts';

export type ChannelBDeps = { egress: Egress; clock: () => Date };

/**
 * The notify answer Alipay reads: the body `success`, nothing else (no newline, no HTML);
 * anything else — `fail` here — makes it resend (about 8 times over 25 hours).
 */
const ACK: { success: ChannelAck; failure(message: string): ChannelAck } = {
  success: { status: 200, contentType: 'text/plain; charset=utf-8', body: 'success' },
  failure: () => ({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'fail' }),
};

/** channel_b (Alipay open platform, OpenAPI 2.0 gateway), public-key or certificate mode. */
export function createChannelBAdapter(deps: ChannelBDeps): ChannelAdapter<ChannelBConfig> {
  const ctx = (config: ChannelBConfig) => ({ deps, config, keys: loadKeys(config) });
  return {
    code: 'channel_b',
    checkConfig: channelBConfigProblems,
    ack: ACK,
    // Alipay notifies carry no freshness to check: it resends the same notify for 25 hours, so
    // `now` is unused and a repeat is the payment module's idempotent no-op.
    async verifyCallback(config, input) {
      let keys: ChannelBKeys;
      try {
        keys = loadKeys(config);
      } catch (err) {
        return { valid: false, reason: `configuration: keys unusable (${(err as Error).message})` };
      }
      return verifyNotify(config, keys, input.rawBody);
    },
    createPayment: (config, order) => precreate(ctx(config), order),
    queryOrder: (config, orderNo) => queryTrade(ctx(config), orderNo),
    closeOrder: (config, orderNo) => closeTrade(ctx(config), orderNo),
    createRefund: (config, refund) => refundTrade(ctx(config), refund),
    queryRefund: (config, q) => queryRefund(ctx(config), q),
  };
}
