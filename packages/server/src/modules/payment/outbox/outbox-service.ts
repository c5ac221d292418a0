import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { paymentErrors } from '../errors.ts';
import type { EventStatus, PaymentEventType } from '../tables.ts';
import {
  claimDueEvents,
  claimEvent,
  findEvent,
  finishAttempt,
  insertEvent,
  type PaymentEventRow,
  pageEvents,
  resetFailedEvent,
} from './repository.ts';

/** Spec §8: the 5th failed attempt makes the event a dead letter. */
export const MAX_ATTEMPTS = 5;
/** How long a claim holds an event: a delivery still running after it may be claimed again. */
const LEASE_MS = 60_000;
const SWEEP_BATCH = 50;
const SWEEP_MAX = 1000;

/** What a subscriber receives; consumers de-duplicate on `eventId` (spec §6.1). */
export type PaymentEvent = {
  eventId: string;
  type: PaymentEventType;
  tenantId: number;
  aggregateType: 'order' | 'refund';
  aggregateId: number;
  payload: Record<string, unknown>;
  createdAt: Date;
};
export type PaymentEventHandler = (event: PaymentEvent) => Promise<void>;

export function toPaymentEventView(row: PaymentEventRow) {
  const { tenantId: _tenant, ...rest } = row;
  return rest;
}

/**
 * The payment event outbox (spec §3.1): events are recorded in the transaction of the status
 * move, delivered to in-process subscribers right after commit, and swept every minute
 * (dispatchPaymentEvents) when pending or when their lease ran out.
 */
export function createOutboxService(deps: { db: Db; clock: () => Date; log: Pick<Logger, 'warn' | 'error'> }) {
  const { db, clock } = deps;
  const handlers = new Map<PaymentEventType, PaymentEventHandler[]>();

  async function runHandlers(row: PaymentEventRow): Promise<void> {
    const event: PaymentEvent = {
      eventId: row.eventId,
      type: row.type,
      tenantId: row.tenantId,
      aggregateType: row.aggregateType,
      aggregateId: row.aggregateId,
      payload: row.payload,
      createdAt: row.createdAt,
    };
    for (const handler of handlers.get(row.type) ?? []) await handler(event);
  }

  /** One claimed attempt: all handlers succeed → done; a throw → pending again, or failed at the 5th. */
  async function attempt(claimed: PaymentEventRow): Promise<PaymentEventRow> {
    try {
      await runHandlers(claimed);
      const now = clock();
      return (await finishAttempt(db, claimed, { status: 'done', lastError: null, deliveredAt: now }, now)) ?? claimed;
    } catch (err) {
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
      const status: EventStatus = claimed.attempts >= MAX_ATTEMPTS ? 'failed' : 'pending';
      deps.log.warn(
        { eventId: claimed.eventId, attempts: claimed.attempts, status, err },
        'payment event handler failed',
      );
      return (await finishAttempt(db, claimed, { status, lastError: message, deliveredAt: null }, clock())) ?? claimed;
    }
  }

  async function deliver(id: number): Promise<PaymentEventRow | null> {
    const now = clock();
    const claimed = await claimEvent(db, id, now, new Date(now.getTime() + LEASE_MS));
    return claimed ? attempt(claimed) : null;
  }

  return {
    /** In-process subscribers of an event type; every handler must be idempotent on eventId. */
    subscribe(type: PaymentEventType, handler: PaymentEventHandler): void {
      handlers.set(type, [...(handlers.get(type) ?? []), handler]);
    },

    /** Inside the transaction of the status move: the event exists only if it commits. */
    record(
      tx: Db,
      input: Pick<PaymentEvent, 'type' | 'tenantId' | 'aggregateType' | 'aggregateId' | 'payload'>,
    ): Promise<PaymentEventRow> {
      const now = clock();
      return insertEvent(tx, { ...input, eventId: randomUUID(), createdAt: now, updatedAt: now });
    },

    /** Right after commit; a failure here is left to the sweeper (the event stays pending). */
    async deliverAfterCommit(ids: number[]): Promise<void> {
      for (const id of ids) {
        try {
          await deliver(id);
        } catch (err) {
          deps.log.error({ err, paymentEventId: id }, 'payment event delivery after commit failed');
        }
      }
    },

    /** dispatchPaymentEvents: pending or lease-expired events, claimed in batches. */
    async dispatchDue(): Promise<{ claimed: number; done: number; failed: number }> {
      const out = { claimed: 0, done: 0, failed: 0 };
      let afterId = 0;
      while (out.claimed < SWEEP_MAX) {
        const now = clock();
        const batch = await claimDueEvents(db, now, new Date(now.getTime() + LEASE_MS), SWEEP_BATCH, afterId);
        if (batch.length === 0) break;
        out.claimed += batch.length;
        afterId = Math.max(...batch.map((e) => e.id));
        for (const claimed of batch) {
          const row = await attempt(claimed);
          if (row.status === 'done') out.done++;
          if (row.status === 'failed') out.failed++;
        }
      }
      return out;
    },

    /** A dead letter reset to pending and delivered again at once (spec §3.1). */
    async redispatch(scope: Scope, id: number) {
      const row = await resetFailedEvent(db, scope, id, clock());
      if (!row) {
        const found = await findEvent(db, scope, id);
        if (!found) throw paymentErrors.eventNotFound();
        throw paymentErrors.eventNotFailed(found.status);
      }
      const delivered = await deliver(row.id);
      return toPaymentEventView(delivered ?? row);
    },

    async list(scope: Scope, q: PageRequest & { status?: EventStatus; type?: PaymentEventType }) {
      const page = await pageEvents(db, scope, q);
      return { ...page, list: page.list.map(toPaymentEventView) };
    },

    async get(scope: Scope, id: number) {
      const row = await findEvent(db, scope, id);
      if (!row) throw paymentErrors.eventNotFound();
      return toPaymentEventView(row);
    },
  };
}

export type OutboxService = ReturnType<typeof createOutboxService>;
