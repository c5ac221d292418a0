import { Type } from 'typebox';
import { ErrorBody, Id, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import { ChannelCodeSchema } from '../configs/schemas.ts';

/** Amounts are integer minor units (fen for CNY); int4 bounds them. */
const Amount = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'integer minor units (> 0)' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code; default CNY' });
const BizNo = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description });

export const OrderStatusSchema = Type.Union(
  ['unsent', 'paying', 'succeeded', 'closed', 'failed', 'unknown'].map((s) => Type.Literal(s)),
  {
    description:
      'unsent: the creation never reached the channel (nothing exists there; `lastError` says why) — posting the same order again retries it, and it is closed at its expiry without a query; ' +
      'paying: open at the channel; unknown: the creation call got no definite answer (the channel may hold it) until a query says; ' +
      'succeeded, closed, failed: final',
  },
);
export const RefundStatusSchema = Type.Union(
  ['processing', 'succeeded', 'failed', 'unknown'].map((s) => Type.Literal(s)),
  {
    description:
      'processing: sent, not final; unknown: the refund call got no definite answer until a query says; succeeded, failed: final (a refund that never reached the channel is failed, its amount released)',
  },
);
const LastError = (of: string) =>
  Type.Union([Type.String(), Type.Null()], {
    description: `why the ${of} call at the channel gave no result — for one that never reached it, the host and the EGRESS_ALLOW_HOSTS entry that allows it; null when the call succeeded. No secrets.`,
  });

export const OrderCreate = Type.Object(
  {
    orderNo: BizNo('unique per tenant; the same number with the same body answers the same order'),
    amount: Amount,
    currency: Type.Optional(Currency),
    channel: ChannelCodeSchema,
    configId: Type.Optional(Id),
    subject: Type.String({ minLength: 1, maxLength: 128 }),
    expiresInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10080, description: 'default 30' })),
  },
  { additionalProperties: false },
);

export const OrderQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(OrderStatusSchema),
  channel: Type.Optional(ChannelCodeSchema),
  orderNo: Type.Optional(Type.String({ maxLength: 64 })),
});

export const Order = Type.Object({
  id: Id,
  orderNo: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  channel: ChannelCodeSchema,
  configId: Id,
  subject: Type.String(),
  status: OrderStatusSchema,
  channelTradeNo: Type.Union([Type.String(), Type.Null()]),
  payPayload: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  paidAt: NullableTimestamp,
  closedAt: NullableTimestamp,
  expiresAt: Timestamp,
  refundedAmount: Type.Integer({ description: 'refunds reserved or done' }),
  refundableAmount: Type.Integer(),
  lastError: LastError('creation'),
  version: Type.Integer(),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const RefundCreate = Type.Object(
  {
    refundNo: Type.Optional(BizNo('unique per tenant; generated when omitted')),
    amount: Amount,
    reason: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

export const RefundQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(RefundStatusSchema),
  orderId: Type.Optional(Id),
  refundNo: Type.Optional(Type.String({ maxLength: 64 })),
});

export const Refund = Type.Object({
  id: Id,
  refundNo: Type.String(),
  orderId: Id,
  amount: Type.Integer(),
  currency: Type.String(),
  status: RefundStatusSchema,
  reason: Type.String(),
  channelRefundNo: Type.Union([Type.String(), Type.Null()]),
  refundedAt: NullableTimestamp,
  lastError: LastError('refund'),
  version: Type.Integer(),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ApplyResultSchema = Type.Object({
  outcome: Type.Union(
    ['applied', 'pending', 'duplicate', 'conflict', 'amount_mismatch', 'not_found'].map((s) => Type.Literal(s)),
  ),
  status: Type.Union([Type.String(), Type.Null()]),
  eventId: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
});

export const SandboxPayQuery = Type.Object({
  lostNotice: Type.Optional(
    Type.Boolean({ description: 'pay at the sandbox channel only, as if its callback were lost' }),
  ),
});

export const OrderApplied = Type.Object({ order: Order, result: ApplyResultSchema });
export const RefundApplied = Type.Object({ refund: Refund, result: ApplyResultSchema });

/** 502 payment.channel_call_failed (a query or close): the error envelope (a copy: `$id` is the kernel's). */
export const ChannelCallFailed = Type.Object({ ...ErrorBody.properties });
/** 502 payment.channel_unreachable: the error envelope with the order (refund) as stored. */
export const OrderUnreachable = Type.Object({
  ...ErrorBody.properties,
  order: Type.Optional(Order),
});
export const RefundUnreachable = Type.Object({
  ...ErrorBody.properties,
  refund: Type.Optional(Refund),
});
