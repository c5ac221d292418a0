import type { ChannelAck, InboundCallback, VerifyResult } from '../types.ts';
import type { SignerCertCache } from './certificates.ts';
import type { ChannelCConfig } from './config.ts';
import { parseForm } from './fields.ts';
import { checkSignedMessage, outcomeOf, toNotice } from './message.ts';

/**
 * The back-end notification (backUrl): a form POST signed by UnionPay. Every certificate in the
 * chain is UnionPay's, not the merchant's, so every configuration verifies every notice: the merId
 * check is what ties a notice to one configuration. There is no timestamp to hold a replay window
 * against (txnTime is the order's time); repeats are harmless by the module's conditional update.
 */
export function verifyNotice(
  config: ChannelCConfig,
  input: InboundCallback,
  now: Date,
  cache: SignerCertCache,
): VerifyResult {
  const fields = parseForm(input.rawBody.toString('utf8'));
  if (!fields) return { valid: false, reason: 'body: a field is repeated' };
  const checked = checkSignedMessage(config, fields, now, cache);
  if (!checked.ok) return { valid: false, reason: checked.reason };
  if (fields.merId !== config.merId)
    return { valid: false, reason: `merId ${fields.merId ?? '(none)'} is not this configuration's` };
  const parsed = toNotice(fields, { outcome: outcomeOf(fields.respCode) });
  return parsed.ok ? { valid: true, notice: parsed.notice } : { valid: false, reason: parsed.reason };
}

/**
 * UnionPay reads only the HTTP status of the answer: 200 is received, anything else is resent.
 * The body is ignored; `ok` is what its own demo answers. Failure is a 500 so it resends.
 */
export const CHANNEL_C_ACK: { success: ChannelAck; failure(message: string): ChannelAck } = {
  success: { status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok' },
  failure: () => ({ status: 500, contentType: 'text/plain; charset=utf-8', body: 'fail' }),
};
