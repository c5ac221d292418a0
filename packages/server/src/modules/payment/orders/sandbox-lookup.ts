import type { Db } from '../../../platform/db/client.ts';
import type { SandboxLookup } from '../channels/sandbox/adapter.ts';
import { findOrderByNo, findRefundByNo } from './repository.ts';

/** The sandbox channel's view of its orders and refunds: the local rows (it has no state of its own). */
export function createSandboxLookup(db: Db): SandboxLookup {
  return {
    order: (tenantId, orderNo) => findOrderByNo(db, { tenantId }, orderNo),
    refund: (tenantId, refundNo) => findRefundByNo(db, { tenantId }, refundNo),
  };
}
