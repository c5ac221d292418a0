import type { InboundCallback, VerifyResult } from '../types.ts';
import { decryptResource, type EncryptedResource } from './aead.ts';
import { apiV3KeyBytes, type ChannelAConfig } from './config.ts';
import { refundNotice, transactionNotice } from './notice.ts';
import { type PlatformKey, type SignatureHeaders, signatureHeaders, signatureProblem } from './platform-keys.ts';

/** The callback envelope; `resource` holds the encrypted transaction or refund. */
type Envelope = { id?: string; event_type?: string; resource_type?: string; resource?: EncryptedResource };

type KeyLookup = (config: ChannelAConfig, serial: string | undefined) => Promise<PlatformKey>;

/**
 * A channel_a callback: signature (key chosen by `Wechatpay-Serial`) and replay window over the
 * raw body, then the AEAD resource, then the notice, checked to be for this merchant.
 * Native payment notice: https://pay.weixin.qq.com/wiki/doc/apiv3/apis/chapter3_3_5.shtml
 */
export async function verifyChannelACallback(
  keyFor: KeyLookup,
  config: ChannelAConfig,
  input: InboundCallback,
  now: Date,
): Promise<VerifyResult> {
  const h: SignatureHeaders = signatureHeaders(input.headers);
  if (!h.signature || !h.timestamp || !h.nonce || !h.serial)
    return { valid: false, reason: 'signature headers missing' };
  const platform = await keyFor(config, h.serial);
  if ('problem' in platform) return { valid: false, reason: `${platform.problem} (${h.serial})` };
  const problem = signatureProblem(h, input.rawBody, platform.key, now);
  if (problem) return { valid: false, reason: problem };

  let envelope: Envelope;
  let plain: Record<string, unknown>;
  try {
    envelope = JSON.parse(input.rawBody.toString('utf8')) as Envelope;
    if (!envelope.resource) return { valid: false, reason: 'resource missing' };
    plain = JSON.parse(decryptResource(envelope.resource, apiV3KeyBytes(config))) as Record<string, unknown>;
  } catch (err) {
    return { valid: false, reason: `resource does not decrypt: ${(err as Error).message}` };
  }
  const eventType = envelope.event_type ?? '';
  try {
    const notice = eventType.startsWith('TRANSACTION.')
      ? transactionNotice(plain)
      : eventType.startsWith('REFUND.')
        ? refundNotice(plain)
        : null;
    if (!notice) return { valid: false, reason: `unknown event_type ${eventType}` };
    if (notice.merchantId !== config.mchId)
      return { valid: false, reason: `mchid ${String(notice.merchantId)} is not this configuration's` };
    const appId = plain.appid;
    if (typeof appId === 'string' && appId !== config.appId)
      return { valid: false, reason: `appid ${appId} is not this configuration's` };
    return { valid: true, notice: { ...notice, payload: { id: envelope.id, event_type: eventType, resource: plain } } };
  } catch (err) {
    return { valid: false, reason: `resource unreadable: ${(err as Error).message}` };
  }
}
