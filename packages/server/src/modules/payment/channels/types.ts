/**
 * The channel adapter contract (issue 16): what the payment module asks of channel_a (WeChat Pay
 * API v3), channel_b (Alipay) and channel_c (UnionPay full-channel 5.1.0), and of the local
 * sandbox channel. An adapter is pure channel knowledge — signatures, encryption, field names,
 * amounts, acknowledgements, the channel's HTTP APIs — and holds no state of its own: the payment
 * module owns orders, refunds, logs and the outbox, and applies what an adapter reports through
 * one code path whether it came from a callback or from a query.
 */

import { describeEgressFailure, type EgressError } from '../../../platform/egress/errors.ts';
import type { ConfigProblem } from './config-checks.ts';

export type { ConfigProblem };

export type ChannelCode = 'channel_a' | 'channel_b' | 'channel_c' | 'sandbox';
export type Scene = 'payment' | 'refund';

/** Amounts are integer minor units (fen for CNY) everywhere outside an adapter. */
export type Money = { amount: number; currency: string };

/**
 * What the channel says about one payment or refund, channel-neutral. `outcome`:
 * succeeded / closed / failed are final; pending (still paying, refund processing) is not.
 */
export type ChannelOutcome = 'pending' | 'succeeded' | 'closed' | 'failed';

export type ChannelNotice = {
  scene: Scene;
  /** our order number (channel_a out_trade_no, channel_b out_trade_no, channel_c orderId) */
  orderNo: string;
  /** our refund number for the refund scene (out_refund_no / out_request_no / the refund's orderId) */
  refundNo: string | null;
  /** the channel's own transaction (or refund) id */
  channelTradeNo: string | null;
  /** the amount the channel reports for this payment or refund, in minor units */
  amount: number;
  currency: string;
  outcome: ChannelOutcome;
  /** when the channel says it happened */
  occurredAt: Date | null;
  /** the merchant / app the message is for (checked against the configuration that verified it) */
  merchantId: string | null;
  /** the decrypted or parsed message, for the callback log (no secrets) */
  payload: Record<string, unknown>;
};

/** A callback exactly as received: the raw body byte for byte, header names lower-cased. */
export type InboundCallback = { rawBody: Buffer; headers: Record<string, string | undefined> };

export type VerifyResult =
  | { valid: true; notice: ChannelNotice }
  /** `reason` is for the log: which check failed (signature, serial unknown, stale timestamp, certificate chain…) */
  | { valid: false; reason: string };

/** The answer a channel expects: status, content type and body, exactly. */
export type ChannelAck = { status: number; contentType: string | null; body: string };

/** What creating a payment at the channel gives the payer's client (a QR code URL, a form, an app payload…). */
export type PaymentStart = { payload: Record<string, unknown>; channelTradeNo: string | null };

export type OrderForChannel = {
  orderNo: string;
  amount: number;
  currency: string;
  subject: string;
  expiresAt: Date;
  notifyUrl: string;
  /**
   * When the order was created. channel_c identifies a transaction by orderId AND the time it was
   * sent (txnTime, to the second), so it sends this and needs the same value again to query.
   */
  createdAt?: Date;
};

export type RefundForChannel = {
  orderNo: string;
  refundNo: string;
  channelTradeNo: string | null;
  amount: number;
  orderAmount: number;
  currency: string;
  reason: string | null;
  notifyUrl: string;
  /** When the refund was created (see OrderForChannel.createdAt). */
  createdAt?: Date;
};

/**
 * One channel. `C` is the channel's configuration with its secrets decrypted (the payment module
 * stores them encrypted with the provider-configuration kit). Every call that reaches the channel
 * goes to `baseUrl` of the configuration (the channel's gateway, or a simulator) through the
 * platform's egress client, and throws `ChannelCallError` when the channel cannot be reached or
 * answers something unusable (the caller then records `unknown`, never a guess).
 */
export interface ChannelAdapter<C> {
  readonly code: ChannelCode;
  /**
   * What would make the configuration fail at the channel — a key that does not parse, a
   * certificate that does not match its key or is out of date — checked when it is saved.
   */
  checkConfig(config: C, now: Date): ConfigProblem[];
  /** Verifies and parses a callback with one configuration; never throws for a bad message. */
  verifyCallback(config: C, input: InboundCallback, now: Date): Promise<VerifyResult>;
  /** The channel's own success and failure acknowledgements. */
  readonly ack: { success: ChannelAck; failure(message: string): ChannelAck };
  createPayment(config: C, order: OrderForChannel): Promise<PaymentStart>;
  /** `order.createdAt`: the creation time given to createPayment (channel_c needs it to query). */
  queryOrder(config: C, orderNo: string, order?: { createdAt: Date }): Promise<ChannelNotice | null>;
  closeOrder(config: C, orderNo: string): Promise<void>;
  createRefund(config: C, refund: RefundForChannel): Promise<ChannelNotice>;
  queryRefund(
    config: C,
    refund: { orderNo: string; refundNo: string; createdAt?: Date },
  ): Promise<ChannelNotice | null>;
}

/**
 * The channel could not be reached, or answered something that cannot be trusted or read.
 * `neverSent`: the request of this operation certainly did not reach the channel (egress
 * `neverSent`), so the channel holds nothing of it. An adapter whose operation makes several
 * calls sets it only when the first one failed that way (channel_a's certificate download after
 * an answer never throws one: its failures are "answer not trusted").
 */
export class ChannelCallError extends Error {
  readonly detail: { status?: number; code?: string };
  readonly neverSent: boolean;
  constructor(message: string, detail: { status?: number; code?: string } = {}, opts: { neverSent?: boolean } = {}) {
    super(message);
    this.name = 'ChannelCallError';
    this.detail = detail;
    this.neverSent = opts.neverSent ?? false;
  }
}

/** An egress failure as the call's error: what failed, where, and for a refusal how to allow it. */
export function unreachable(what: string, err: EgressError): ChannelCallError {
  return new ChannelCallError(
    `${what}: ${describeEgressFailure(err)}`,
    { code: err.code },
    { neverSent: err.neverSent },
  );
}
