import type { ChannelCode } from '../channels/types.ts';
import { paymentErrors } from '../errors.ts';

/**
 * What each channel accepts as our order and refund numbers, on top of the API's own
 * `[A-Za-z0-9_-]{1,64}`: refused at creation (400 naming the field) instead of at the channel,
 * where the order would already exist in `paying`. channel_a: out_trade_no 6–32 characters,
 * out_refund_no up to 64; channel_b: letters, digits and "_" (out_trade_no, out_request_no), up
 * to 64; channel_c: orderId 8–32 letters and digits, for payments and refunds alike (its adapter
 * refuses the rest). Generated refund numbers (`R` + 16 letters and digits) satisfy every channel.
 */
const RULES: Partial<Record<ChannelCode, { order: RegExp; refund: RegExp; text: string }>> = {
  channel_a: { order: /^[A-Za-z0-9_-]{6,32}$/, refund: /^[A-Za-z0-9_-]{1,64}$/, text: '6-32 characters' },
  channel_b: { order: /^[A-Za-z0-9_]{1,64}$/, refund: /^[A-Za-z0-9_]{1,64}$/, text: 'letters, digits and _' },
  channel_c: { order: /^[A-Za-z0-9]{8,32}$/, refund: /^[A-Za-z0-9]{8,32}$/, text: '8-32 letters and digits' },
};

export function checkOrderNo(channel: ChannelCode, orderNo: string): void {
  const rule = RULES[channel];
  if (rule && !rule.order.test(orderNo))
    throw paymentErrors.invalidFields([{ field: 'orderNo', message: `${channel} takes ${rule.text}` }]);
}

export function checkRefundNo(channel: ChannelCode, refundNo: string): void {
  const rule = RULES[channel];
  if (rule && !rule.refund.test(refundNo))
    throw paymentErrors.invalidFields([{ field: 'refundNo', message: `${channel} takes ${rule.text}` }]);
}
