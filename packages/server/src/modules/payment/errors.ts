import { AppError, httpErrors } from '../../platform/http/errors.ts';

/** The payment module's errors: `payment.<reason>`. */
export const paymentErrors = {
  configNotFound: () => httpErrors.notFound('payment.channel_config_not_found', 'Channel configuration'),
  configNameExists: () =>
    httpErrors.conflict('payment.channel_config_name_exists', 'A channel configuration with this name exists', 'name'),
  configDefaultConflict: () =>
    httpErrors.conflict('payment.channel_config_default_conflict', 'Another default was set at the same time; retry'),
  configDisabled: () =>
    new AppError(409, 'payment.channel_config_disabled', 'The channel configuration is disabled', {
      details: [{ field: 'configId', message: 'is disabled' }],
    }),
  configDefaultNotDeletable: () =>
    new AppError(409, 'payment.channel_config_is_default', 'The default configuration cannot be deleted'),
  configInUse: () =>
    new AppError(409, 'payment.channel_config_in_use', 'Orders were made with this configuration: disable it instead'),
  configChannelMismatch: () =>
    new AppError(400, 'payment.channel_config_mismatch', 'The configuration belongs to another channel', {
      details: [{ field: 'configId', message: 'is not a configuration of this channel' }],
    }),
  channelNotConfigured: (channel: string) =>
    new AppError(400, 'payment.channel_not_configured', `No enabled configuration of channel ${channel}`, {
      details: [{ field: 'channel', message: 'has no enabled configuration' }],
    }),
  channelUnavailable: (channel: string) =>
    new AppError(400, 'payment.channel_unavailable', `The channel ${channel} has no adapter in this build`, {
      details: [{ field: 'channel', message: 'has no adapter yet' }],
    }),
  orderNotFound: () => httpErrors.notFound('payment.order_not_found', 'Payment order'),
  refundNotFound: () => httpErrors.notFound('payment.refund_not_found', 'Refund'),
  eventNotFound: () => httpErrors.notFound('payment.event_not_found', 'Payment event'),
  notifyLogNotFound: () => httpErrors.notFound('payment.notify_log_not_found', 'Callback log'),
  /** the same order number with a different body (idempotent create, issue 16 item 2) */
  orderNoConflict: () =>
    httpErrors.conflict(
      'payment.order_no_conflict',
      'An order with this number exists with a different amount, currency, channel, configuration or subject',
      'orderNo',
    ),
  refundNoTaken: () => httpErrors.conflict('payment.refund_no_taken', 'A refund with this number exists', 'refundNo'),
  orderNotRefundable: (status: string) =>
    new AppError(409, 'payment.order_not_refundable', `Only a succeeded order can be refunded; this one is ${status}`),
  refundExceedsAmount: (refundable: number) =>
    new AppError(409, 'payment.refund_exceeds_amount', `At most ${refundable} (minor units) can still be refunded`, {
      details: [{ field: 'amount', message: `exceeds the refundable ${refundable}` }],
    }),
  notSandbox: () =>
    new AppError(400, 'payment.not_sandbox', 'Only orders of the sandbox channel can be paid locally', {
      details: [{ field: 'id', message: 'is not a sandbox order' }],
    }),
  orderNotPaying: (status: string) =>
    new AppError(409, 'payment.order_not_paying', `The order is ${status}: it cannot be paid`),
  orderNotOpen: (status: string) =>
    new AppError(409, 'payment.order_not_open', `The order is ${status}: only an unpaid order can be closed`),
  orderExpired: () => new AppError(409, 'payment.order_expired', 'The order has expired: it cannot be paid'),
  /**
   * The creation never reached the channel (issue 24): nothing exists there. The answer carries
   * the order as stored (`order`, status `unsent`, `lastError`); the same POST again retries.
   */
  orderChannelUnreachable: (order: { orderNo: string; lastError: string | null }, view: unknown) =>
    new AppError(
      502,
      'payment.channel_unreachable',
      `Order ${order.orderNo} never reached its channel: ${order.lastError}. Nothing was created at the channel; post the same order again to retry.`,
      { extra: { order: view } },
    ),
  /** A refund that never reached the channel: failed here, its amount refundable again (`refund` in the answer). */
  refundChannelUnreachable: (refund: { refundNo: string; lastError: string | null }, view: unknown) =>
    new AppError(
      502,
      'payment.channel_unreachable',
      `Refund ${refund.refundNo} never reached its channel: ${refund.lastError}. It is failed and its amount can be refunded again; post a new refund to retry.`,
      { extra: { refund: view } },
    ),
  /** Querying an order the channel never received: nothing to ask; the creation is retried instead. */
  orderNotSent: (lastError: string | null) =>
    new AppError(
      409,
      'payment.order_not_sent',
      `The order never reached its channel${lastError ? ` (${lastError})` : ''}: there is nothing to query; post the same order again to retry the creation`,
    ),
  eventNotFailed: (status: string) =>
    new AppError(
      409,
      'payment.event_not_failed',
      `Only a failed (dead-letter) event is redispatched; this one is ${status}`,
    ),
  invalidFields: (details: { field: string; message: string }[]) =>
    new AppError(400, 'request.validation_failed', 'The request has invalid fields', { details }),
};
