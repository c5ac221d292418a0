import type { Egress } from '../../../../platform/egress/client.ts';
import { EgressError } from '../../../../platform/egress/errors.ts';
import { ChannelCallError, unreachable } from '../types.ts';
import type { SignerCertCache } from './certificates.ts';
import { type ChannelCConfig, GATEWAY_PATHS, PRODUCTION_BASE_URL } from './config.ts';
import { encodeForm, type Fields, parseAnswer } from './fields.ts';
import { signedRequest } from './merchant.ts';
import { checkSignedMessage } from './message.ts';

export type GatewayDeps = { egress: Egress; clock: () => Date; cache: SignerCertCache };

export function gatewayUrl(config: ChannelCConfig, path: keyof typeof GATEWAY_PATHS): string {
  return `${(config.baseUrl || PRODUCTION_BASE_URL).replace(/\/+$/, '')}${GATEWAY_PATHS[path]}`;
}

/**
 * One back-end call (backTransReq.do, queryTrans.do): a signed form POST whose synchronous answer
 * is verified exactly like a callback. Anything short of a signed, readable answer is a
 * ChannelCallError: the caller records `unknown` and queries later.
 */
export async function callGateway(
  deps: GatewayDeps,
  config: ChannelCConfig,
  path: 'back' | 'query',
  fields: Fields,
): Promise<Fields> {
  const url = gatewayUrl(config, path);
  let status: number;
  let text: string;
  try {
    const res = await deps.egress.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: encodeForm(signedRequest(config, fields)),
      maxRedirects: 0,
      maxResponseBytes: 256 * 1024,
    });
    status = res.status;
    text = res.body.toString('utf8');
  } catch (err) {
    if (err instanceof EgressError) throw unreachable('channel_c', err);
    throw err;
  }
  if (status !== 200) throw new ChannelCallError(`channel_c answered HTTP ${status}`, { status });
  const answer = parseAnswer(text.trim());
  if (!answer?.respCode) throw new ChannelCallError('channel_c: the answer is not a UnionPay message', { status });
  const checked = checkSignedMessage(config, answer, deps.clock(), deps.cache);
  if (!checked.ok) {
    throw new ChannelCallError(`channel_c: the answer is not trusted (${checked.reason})`, {
      status,
      code: answer.respCode,
    });
  }
  return answer;
}
