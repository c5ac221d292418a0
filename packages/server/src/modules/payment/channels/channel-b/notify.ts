import type { ChannelNotice, VerifyResult } from '../types.ts';
import { yuanToFen } from './amount.ts';
import type { ChannelBConfig } from './config.ts';
import { parseNotifyForm } from './form.ts';
import type { ChannelBKeys } from './keys.ts';
import { parseChinaTime, signContent, verifyText } from './signature.ts';
import { tradeOutcome } from './trade-status.ts';

/**
 * Verifies one asynchronous notify (https://opendocs.alipay.com/open/270/105902): the signature
 * over every field but `sign` and `sign_type`, sorted, with decoded values. The official SDKs
 * also accept the same string with `sign_type` kept (rsaCheckV2, used by the service-window
 * notifies); we accept it too — it covers one more field, never fewer, so it proves the same
 * wallet key signed every business field. The algorithm is the configuration's, and a message
 * naming another one is refused, so a notify cannot choose SHA-1 for an RSA2 app.
 */
export function verifyNotify(config: ChannelBConfig, keys: ChannelBKeys, rawBody: Buffer): VerifyResult {
  const form = parseNotifyForm(rawBody);
  if (!form.ok) return { valid: false, reason: form.reason };
  const fields = form.fields;
  const signType = config.signType ?? 'RSA2';
  const sign = fields.sign;
  if (!sign) return { valid: false, reason: 'signature: no sign field' };
  if (fields.sign_type !== undefined && fields.sign_type !== signType) {
    return { valid: false, reason: `signature: sign_type ${fields.sign_type}, configured ${signType}` };
  }
  const signed =
    verifyText(signContent(fields, ['sign', 'sign_type']), sign, keys.walletKey, signType) ||
    verifyText(signContent(fields, ['sign']), sign, keys.walletKey, signType);
  if (!signed) return { valid: false, reason: 'signature: does not verify with the wallet key' };
  if (fields.app_id !== config.appId)
    return { valid: false, reason: `app_id ${fields.app_id} is not this configuration's` };
  return toNotice(fields);
}

/**
 * Alipay reports refunds through the same trade notify: a notify carrying `refund_fee` or
 * `gmt_refund` was caused by a refund, and `out_biz_no` is that refund's out_request_no. Its
 * `refund_fee` is the trade's refunded total so far, not this refund's amount.
 */
function toNotice(f: Record<string, string>): VerifyResult {
  const orderNo = f.out_trade_no;
  if (!orderNo) return { valid: false, reason: 'fields: no out_trade_no' };
  const isRefund = f.refund_fee !== undefined || f.gmt_refund !== undefined;
  const amountText = isRefund ? f.refund_fee : f.total_amount;
  const amount = yuanToFen(amountText);
  if (amount === null) return { valid: false, reason: `fields: amount ${amountText ?? '(missing)'} is not yuan` };
  const outcome = tradeOutcome(f.trade_status);
  if (!outcome) return { valid: false, reason: `fields: unknown trade_status ${f.trade_status ?? '(missing)'}` };
  const payload = { ...f };
  delete payload.sign;
  const notice: ChannelNotice = isRefund
    ? {
        scene: 'refund',
        orderNo,
        refundNo: f.out_biz_no || null,
        channelTradeNo: f.trade_no || null,
        amount,
        currency: 'CNY',
        // a refund notify is sent once the money went back; the trade may still be TRADE_SUCCESS
        outcome: 'succeeded',
        occurredAt: parseChinaTime(f.gmt_refund),
        merchantId: f.app_id ?? null,
        payload,
      }
    : {
        scene: 'payment',
        orderNo,
        refundNo: null,
        channelTradeNo: f.trade_no || null,
        amount,
        currency: 'CNY',
        outcome,
        occurredAt: parseChinaTime(f.gmt_payment ?? f.gmt_close),
        merchantId: f.app_id ?? null,
        payload,
      };
  return { valid: true, notice };
}
