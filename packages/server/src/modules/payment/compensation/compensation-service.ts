import type { Db } from '../../../platform/db/client.ts';
import type { ApplyOutcome, ApplyResult } from '../orders/apply-service.ts';
import {
  applyAnswer,
  channelOf,
  closeAtChannel,
  closeHere,
  queryOrderAt,
  queryRefundAt,
} from '../orders/channel-calls.ts';
import type { OrdersDeps } from '../orders/orders-service.ts';
import { findOrder, type OrderRow, type RefundRow } from '../orders/repository.ts';
import { type Claim, claimExpiredOrders, claimStaleOrders, claimStaleRefunds } from './repository.ts';

/** Spec §4.5, §9: orders (and refunds) without a final answer this long are queried at their channel. */
export const STALE_AFTER_MS = 2 * 60_000;
/**
 * How long a claimed row is held: past a batch's channel calls (each bounded by the egress
 * deadline), short of the next run of either job (5 and 10 minutes), so a row a dead instance
 * claimed is queried again by the next run.
 */
const LEASE_MS = 4 * 60_000;
const BATCH = 20;
/** A run queries at most this many rows of each kind; the rest wait for the next run. */
const RUN_MAX = 200;

/**
 * What a run did: `claimed` rows, each counted once, under the applyNotice outcome of the
 * channel's answer (`not_found`: the channel does not know it) or under `errors` (the channel
 * could not be reached or answered nothing usable: the row is left as it was).
 */
export type RunCounts = {
  claimed: number;
  errors: number;
  outcomes: Partial<Record<ApplyOutcome, number>>;
  /** of the `applied` ones: the status each moved to */
  movedTo: Record<string, number>;
};

const emptyCounts = (): RunCounts => ({ claimed: 0, errors: 0, outcomes: {}, movedTo: {} });
const bump = <K extends string>(m: Partial<Record<K, number>>, k: K) => {
  m[k] = (m[k] ?? 0) + 1;
};
const tally = (c: RunCounts, result: Pick<ApplyResult, 'outcome' | 'status'>) => {
  bump(c.outcomes, result.outcome);
  if (result.outcome === 'applied' && result.status) bump(c.movedTo, result.status);
};

/**
 * The compensation jobs (issue 16 item 5; spec §4.5): a callback can be lost, so what the
 * channels know is asked for and applied by applyNotice, the callback's own path. Rows are
 * claimed with a lease (compensation/repository.ts), so instances running a job at once never
 * query one row twice; a failed call leaves the row as it was for the next run.
 */
export function createCompensationService(deps: OrdersDeps) {
  const { db, clock, configs, apply } = deps;

  /** Claims batches until none is left or the run's bound is reached; `handle` never throws. */
  async function sweep<T extends { id: number }>(
    claim: (db: Db, c: Claim) => Promise<T[]>,
    handle: (row: T, counts: RunCounts) => Promise<void>,
  ): Promise<RunCounts> {
    const counts = emptyCounts();
    let afterId = 0;
    while (counts.claimed < RUN_MAX) {
      const now = clock();
      const limit = Math.min(BATCH, RUN_MAX - counts.claimed);
      const batch = await claim(db, { now, leaseUntil: new Date(now.getTime() + LEASE_MS), limit, afterId });
      if (batch.length === 0) break;
      counts.claimed += batch.length;
      afterId = batch[batch.length - 1]?.id ?? afterId;
      for (const row of batch) await handle(row, counts);
    }
    return counts;
  }

  /** A failed call or a throw while applying: counted, logged, the row left for the next run. */
  async function guarded(what: Record<string, unknown>, counts: RunCounts, work: () => Promise<void>) {
    try {
      await work();
    } catch (err) {
      counts.errors++;
      deps.log.warn({ ...what, err }, 'payment compensation: the channel call or its application failed');
    }
  }

  const channelFor = async (order: OrderRow) =>
    channelOf(deps, await configs.byId({ tenantId: order.tenantId }, order.configId));

  async function reconcileOrder(order: OrderRow, counts: RunCounts) {
    await guarded({ orderId: order.id }, counts, async () => {
      const notice = await queryOrderAt(await channelFor(order), order);
      tally(counts, await applyAnswer(apply, { tenantId: order.tenantId }, notice, { ...order, kind: 'order' }));
    });
  }

  async function reconcileRefund(refund: RefundRow, counts: RunCounts) {
    await guarded({ refundId: refund.id }, counts, async () => {
      const scope = { tenantId: refund.tenantId };
      const order = await findOrder(db, scope, refund.orderId);
      if (!order) throw new Error(`refund ${refund.id} has no order`);
      const notice = await queryRefundAt(await channelFor(order), order, refund);
      tally(counts, await applyAnswer(apply, scope, notice, { ...refund, kind: 'refund' }));
    });
  }

  async function closeExpired(order: OrderRow, counts: RunCounts) {
    await guarded({ orderId: order.id }, counts, async () => {
      const closedBy = { closedBy: 'closeExpiredPaymentOrders', expiresAt: order.expiresAt.toISOString() };
      // unsent: never reached its channel, so closed here without a query
      const result =
        order.status === 'unsent'
          ? await closeHere(deps, order, closedBy)
          : await closeAtChannel(deps, await channelFor(order), order, closedBy);
      tally(counts, result);
    });
  }

  return {
    /** paymentReconciliation (every 10 minutes): stale paying/unknown orders, then stale refunds. */
    async reconcile(): Promise<{ orders: RunCounts; refunds: RunCounts }> {
      const createdBefore = () => new Date(clock().getTime() - STALE_AFTER_MS);
      const orders = await sweep((tx, c) => claimStaleOrders(tx, c, createdBefore()), reconcileOrder);
      const refunds = await sweep((tx, c) => claimStaleRefunds(tx, c, createdBefore()), reconcileRefund);
      return { orders, refunds };
    },

    /** closeExpiredPaymentOrders (every 5 minutes). */
    closeExpired: (): Promise<RunCounts> => sweep(claimExpiredOrders, closeExpired),
  };
}

export type CompensationService = ReturnType<typeof createCompensationService>;
