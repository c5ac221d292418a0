import type { Egress } from '../../../../platform/egress/client.ts';
import type { ChannelAck, ChannelAdapter } from '../types.ts';
import { createChannelAApi } from './api.ts';
import { type CertificateCache, memoryCertificateCache } from './certificate-cache.ts';
import { type ChannelAConfig, channelAConfigProblems } from './config.ts';
import { verifyChannelACallback } from './notify.ts';
import { createPlatformKeys } from './platform-keys.ts';

/**
 * channel_a's acknowledgements (https://pay.weixin.qq.com/wiki/doc/apiv3/apis/chapter3_3_5.shtml,
 * 通知应答). Success is 204 without a body: the channel accepts 200 or 204 and wants no body, and
 * 204 says exactly that. Failure is a 500 (the channel resends on any 4xx/5xx; 5xx says the fault
 * is ours) with `{"code":"FAIL","message":…}`, the message 1 to 64 characters.
 */
export const CHANNEL_A_ACK: ChannelAdapter<ChannelAConfig>['ack'] = {
  success: { status: 204, contentType: null, body: '' },
  failure: (message: string): ChannelAck => ({
    status: 500,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify({ code: 'FAIL', message: message.slice(0, 64) || '失败' }),
  }),
};

/** `cache` holds the platform certificates and the refresh throttle; the shared cache in the app, memory otherwise. */
export function createChannelAAdapter(deps: {
  egress: Egress;
  clock: () => Date;
  cache?: CertificateCache;
}): ChannelAdapter<ChannelAConfig> {
  const keys = createPlatformKeys({
    egress: deps.egress,
    clock: deps.clock,
    cache: deps.cache ?? memoryCertificateCache(deps.clock),
  });
  const api = createChannelAApi({ egress: deps.egress, clock: deps.clock, keyFor: keys.keyFor });
  return {
    code: 'channel_a',
    checkConfig: channelAConfigProblems,
    ack: CHANNEL_A_ACK,
    verifyCallback: (config, input, now) => verifyChannelACallback(keys.keyFor, config, input, now),
    ...api,
  };
}
