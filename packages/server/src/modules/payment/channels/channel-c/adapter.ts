import type { Egress } from '../../../../platform/egress/client.ts';
import {
  type ChannelAdapter,
  ChannelCallError,
  type ChannelNotice,
  type OrderForChannel,
  type RefundForChannel,
} from '../types.ts';
import { callGateway, type GatewayDeps, gatewayUrl } from './api.ts';
import { createSignerCertCache, type SignerCertCache } from './certificates.ts';
import { type ChannelCConfig, channelCConfigProblems } from './config.ts';
import type { Fields } from './fields.ts';
import { signedRequest } from './merchant.ts';
import { CNY_CODE, formatTxnTime, outcomeOf, TXN_CONSUME, TXN_REFUND, toNotice } from './message.ts';
import { CHANNEL_C_ACK, verifyNotice } from './notify.ts';

/**
 * channel_c: UnionPay full-channel 5.1.0, online gateway payment (bizType 000201), signMethod=01.
 * deps.cache holds the UnionPay signing certificates that passed (bounded; 64 by default).
 */
export type ChannelCDeps = { egress: Egress; clock: () => Date; cache?: SignerCertCache };

const GATEWAY_B2C = '000201';
const CHANNEL_INTERNET = '07';
/** queryTrans: respCode 34 = no such transaction. */
const NOT_FOUND = '34';
/** backTransReq: 12 = duplicate transaction — already accepted before; only a query tells its fate. */
const DUPLICATE = '12';

export function createChannelCAdapter(deps: ChannelCDeps): ChannelAdapter<ChannelCConfig> {
  const gateway: GatewayDeps = { egress: deps.egress, clock: deps.clock, cache: deps.cache ?? createSignerCertCache() };

  function assertCny(currency: string): void {
    if (currency !== 'CNY') throw new Error(`channel_c takes CNY only, not ${currency}`);
  }
  /** UnionPay's orderId: 8–32 letters and digits ("-" and "_" refused), for payments and refunds alike. */
  function assertOrderId(id: string): void {
    if (!/^[0-9A-Za-z]{8,32}$/.test(id)) throw new Error(`channel_c orderId must be 8-32 letters and digits: ${id}`);
  }

  /** queryTrans.do for one transaction; null when UnionPay has none with that orderId and txnTime. */
  async function query(config: ChannelCConfig, orderId: string, createdAt: Date | undefined): Promise<Fields | null> {
    if (!createdAt) throw new Error('channel_c queries need the creation time (UnionPay keys on orderId + txnTime)');
    const answer = await callGateway(gateway, config, 'query', {
      txnType: '00',
      txnSubType: '00',
      bizType: '000000',
      channelType: CHANNEL_INTERNET,
      orderId,
      txnTime: formatTxnTime(createdAt),
    });
    if (answer.respCode === NOT_FOUND) return null;
    if (answer.respCode !== '00') {
      throw new ChannelCallError(`channel_c query failed: ${answer.respCode} ${answer.respMsg ?? ''}`.trim(), {
        code: answer.respCode,
      });
    }
    if (answer.orderId !== orderId || answer.merId !== config.merId) {
      throw new ChannelCallError('channel_c query answered for another transaction');
    }
    return answer;
  }

  function noticeOf(
    answer: Fields,
    txnType: string,
    outcome: ChannelNotice['outcome'],
    orderNo?: string,
  ): ChannelNotice {
    const parsed = toNotice({ ...answer, txnType }, { outcome, orderNo });
    if (!parsed.ok) throw new ChannelCallError(`channel_c: ${parsed.reason}`, { code: answer.respCode });
    return parsed.notice;
  }

  return {
    code: 'channel_c',
    checkConfig: channelCConfigProblems,
    ack: CHANNEL_C_ACK,

    verifyCallback: async (config, input, now) => verifyNotice(config, input, now, gateway.cache),

    /**
     * The gateway payment is a browser form post to frontTransReq.do: nothing is sent from here;
     * the payer's client receives the signed fields and the action URL and posts them itself.
     */
    async createPayment(config, order: OrderForChannel) {
      assertCny(order.currency);
      assertOrderId(order.orderNo);
      const fields = signedRequest(config, {
        txnType: TXN_CONSUME,
        txnSubType: '01',
        bizType: GATEWAY_B2C,
        channelType: CHANNEL_INTERNET,
        orderId: order.orderNo,
        txnTime: formatTxnTime(order.createdAt ?? deps.clock()),
        payTimeout: formatTxnTime(order.expiresAt),
        txnAmt: String(order.amount),
        currencyCode: CNY_CODE,
        backUrl: order.notifyUrl,
      });
      return { payload: { method: 'POST', action: gatewayUrl(config, 'front'), fields }, channelTradeNo: null };
    },

    async queryOrder(config, orderNo, order) {
      const answer = await query(config, orderNo, order?.createdAt);
      return answer && noticeOf(answer, TXN_CONSUME, outcomeOf(answer.origRespCode));
    },

    /** An unpaid gateway order has nothing to close at UnionPay: it lapses at payTimeout. No call. */
    async closeOrder() {},

    async createRefund(config, refund: RefundForChannel) {
      assertCny(refund.currency);
      assertOrderId(refund.refundNo);
      if (!refund.channelTradeNo) throw new Error('channel_c refunds need the payment queryId (channelTradeNo)');
      const answer = await callGateway(gateway, config, 'back', {
        txnType: TXN_REFUND,
        txnSubType: '00',
        bizType: GATEWAY_B2C,
        channelType: CHANNEL_INTERNET,
        orderId: refund.refundNo,
        origQryId: refund.channelTradeNo,
        txnTime: formatTxnTime(refund.createdAt ?? deps.clock()),
        txnAmt: String(refund.amount),
        backUrl: refund.notifyUrl,
        // echoed in the refund's notice, which otherwise names only the refund and origQryId
        reqReserved: refund.orderNo,
      });
      // 00 = accepted; the result comes with the notice or a query. 03/04/05/12: not known yet.
      const accepted =
        answer.respCode === '00' || outcomeOf(answer.respCode) === 'pending' || answer.respCode === DUPLICATE;
      return noticeOf(
        { ...answer, orderId: refund.refundNo, txnAmt: String(refund.amount) },
        TXN_REFUND,
        accepted ? 'pending' : 'failed',
        refund.orderNo,
      );
    },

    async queryRefund(config, refund) {
      const answer = await query(config, refund.refundNo, refund.createdAt);
      return answer && noticeOf(answer, TXN_REFUND, outcomeOf(answer.origRespCode), refund.orderNo);
    },
  };
}
