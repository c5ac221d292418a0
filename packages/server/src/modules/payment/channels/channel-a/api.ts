import type { Egress, EgressMethod } from '../../../../platform/egress/client.ts';
import {
  ChannelCallError,
  type ChannelNotice,
  type OrderForChannel,
  type PaymentStart,
  type RefundForChannel,
} from '../types.ts';
import type { ChannelAConfig } from './config.ts';
import { refundNotice, transactionNotice } from './notice.ts';
import { type PlatformKey, signatureHeaders, signatureProblem } from './platform-keys.ts';
import { sendSigned } from './transport.ts';

type Deps = {
  egress: Egress;
  clock: () => Date;
  keyFor: (config: ChannelAConfig, serial: string | undefined) => Promise<PlatformKey>;
};

/**
 * channel_a's merchant APIs used by the adapter. Every answer's signature is checked before it is
 * read: an unsigned or wrongly signed answer is a ChannelCallError, never a result. A 404 of a
 * query (the channel does not know the number) is `null`.
 * (the channel's v3 documentation, Native payment: prepay, query, close, refund, refund query).
 */
export function createChannelAApi(deps: Deps) {
  /** 2xx → the parsed body ({} for 204); 404 → null; anything else → ChannelCallError. */
  async function call(
    config: ChannelAConfig,
    method: EgressMethod,
    pathAndQuery: string,
    body?: unknown,
  ): Promise<Record<string, unknown> | null> {
    const now = deps.clock();
    const answer = await sendSigned(deps.egress, config, { method, pathAndQuery, body, now });
    const h = signatureHeaders(answer.headers);
    // The channel signs its error answers too; an unsigned one (a proxy's page) is checked only for its status.
    if (answer.status < 300 || h.signature) {
      const platform = await deps.keyFor(config, h.serial);
      const problem = 'problem' in platform ? platform.problem : signatureProblem(h, answer.body, platform.key, now);
      if (problem) throw new ChannelCallError(`channel_a answer not trusted: ${problem}`, { status: answer.status });
    }
    if (answer.status === 404 && method === 'GET') return null;
    if (answer.status >= 300) {
      const code = errorCode(answer.body);
      throw new ChannelCallError(`channel_a answered ${answer.status}${code ? ` ${code}` : ''}`, {
        status: answer.status,
        code,
      });
    }
    if (answer.body === '') return {};
    try {
      const parsed = JSON.parse(answer.body) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      return parsed as Record<string, unknown>;
    } catch {
      throw new ChannelCallError('channel_a answer is not JSON', { status: answer.status });
    }
  }

  /** A mapping failure of a verified answer is still an answer we cannot use. */
  function read<T>(map: () => T): T {
    try {
      return map();
    } catch (err) {
      throw new ChannelCallError(`channel_a answer unreadable: ${(err as Error).message}`);
    }
  }

  const mchidQuery = (config: ChannelAConfig) => `mchid=${encodeURIComponent(config.mchId)}`;
  const tradePath = (orderNo: string) => `/v3/pay/transactions/out-trade-no/${encodeURIComponent(orderNo)}`;

  return {
    async createPayment(config: ChannelAConfig, order: OrderForChannel): Promise<PaymentStart> {
      const answer = await call(config, 'POST', '/v3/pay/transactions/native', {
        appid: config.appId,
        mchid: config.mchId,
        description: order.subject,
        out_trade_no: order.orderNo,
        time_expire: beijingTime(order.expiresAt),
        notify_url: order.notifyUrl,
        amount: { total: order.amount, currency: order.currency },
      });
      const codeUrl = answer?.code_url;
      if (typeof codeUrl !== 'string') throw new ChannelCallError('channel_a prepay answer has no code_url');
      return { payload: { codeUrl }, channelTradeNo: null };
    },

    async queryOrder(config: ChannelAConfig, orderNo: string): Promise<ChannelNotice | null> {
      const answer = await call(config, 'GET', `${tradePath(orderNo)}?${mchidQuery(config)}`);
      return answer && read(() => transactionNotice(answer));
    },

    async closeOrder(config: ChannelAConfig, orderNo: string): Promise<void> {
      await call(config, 'POST', `${tradePath(orderNo)}/close`, { mchid: config.mchId });
    },

    async createRefund(config: ChannelAConfig, refund: RefundForChannel): Promise<ChannelNotice> {
      const answer = await call(config, 'POST', '/v3/refund/domestic/refunds', {
        ...(refund.channelTradeNo ? { transaction_id: refund.channelTradeNo } : { out_trade_no: refund.orderNo }),
        out_refund_no: refund.refundNo,
        ...(refund.reason ? { reason: refund.reason } : {}),
        notify_url: refund.notifyUrl,
        amount: { refund: refund.amount, total: refund.orderAmount, currency: refund.currency },
      });
      return read(() => refundNotice(answer ?? {}));
    },

    async queryRefund(
      config: ChannelAConfig,
      refund: { orderNo: string; refundNo: string },
    ): Promise<ChannelNotice | null> {
      const answer = await call(config, 'GET', `/v3/refund/domestic/refunds/${encodeURIComponent(refund.refundNo)}`);
      return answer && read(() => refundNotice(answer));
    },
  };
}

function errorCode(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** time_expire is RFC 3339; the channel's examples and its console use Beijing time (+08:00). */
function beijingTime(at: Date): string {
  const shifted = new Date(at.getTime() + 8 * 60 * 60 * 1000);
  return `${shifted.toISOString().slice(0, 19)}+08:00`;
}
