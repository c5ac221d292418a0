import type { OrderRow, RefundRow } from './repository.ts';

/** An order as answered: refundable is what refunds may still take (succeeded orders only). */
export function toOrderView(row: OrderRow) {
  // the compensation jobs' lease is internal bookkeeping
  const { tenantId: _tenant, queryLeaseUntil: _lease, ...rest } = row;
  return { ...rest, refundableAmount: row.status === 'succeeded' ? row.amount - row.refundedAmount : 0 };
}

export function toRefundView(row: RefundRow) {
  const { tenantId: _tenant, queryLeaseUntil: _lease, ...rest } = row;
  return rest;
}
