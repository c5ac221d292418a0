import { randomUUID } from 'node:crypto';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { rowOrThrow } from '../../../platform/db/sql.ts';
import { webhookErrors } from './errors.ts';
import { TEST_EVENT } from './events.ts';
import { LEASE_MS, RETENTION_MS } from './policy.ts';
import * as repo from './repository.ts';
import type { SenderService } from './sender-service.ts';
import type { SubscriptionService } from './subscriptions-service.ts';
import type { DeliveryRow, SubscriptionRow, WebhookPayload } from './tables.ts';

/** The list shape: no payload, no lease. */
export function toDeliveryView(row: DeliveryRow) {
  const { tenantId: _t, payload: _p, lockedUntil: _l, ...rest } = row;
  return rest;
}

/**
 * The delivery log, and the two operator sends: a test event, and a redelivery (a new delivery
 * of the same event, same event id, to the same subscription). Both go out at once whatever the
 * subscription's status — an operator checks a receiver before re-enabling it — and are retried
 * like any delivery if they fail.
 */
export function createDeliveryService(ctx: AppContext, deps: { sender: SenderService; subs: SubscriptionService }) {
  const { db, clock } = ctx;

  const findOrThrow = (scope: Scope, id: number): Promise<DeliveryRow> =>
    rowOrThrow(repo.deliveries.findById(db, scope, id), webhookErrors.deliveryNotFound);

  async function detail(row: DeliveryRow) {
    const attemptLog = (await repo.attemptsOf(db, row.id)).map(
      ({ id: _id, tenantId: _t, deliveryId: _d, ...rest }) => rest,
    );
    return { ...toDeliveryView(row), payload: row.payload, attemptLog };
  }

  /** Inserts a delivery already leased by this instance (attempt 1), sends it and answers the outcome. */
  async function sendNow(
    scope: Scope,
    sub: SubscriptionRow,
    event: { eventId: string; eventType: string; payload: WebhookPayload; redeliveryOf: number | null },
  ) {
    if (sub.appId !== null) {
      const app = await repo.appOf(db, scope, sub.appId);
      if (app?.status !== 'active') throw webhookErrors.appDisabled();
    }
    const now = clock();
    const row = await repo.deliveries.insert(db, scope, {
      subscriptionId: sub.id,
      appId: sub.appId,
      ...event,
      attempts: 1,
      // due now, so the sweeper retries it should this instance die before recording
      nextAttemptAt: now,
      lockedUntil: new Date(now.getTime() + LEASE_MS),
      createdAt: now,
    });
    const [recorded] = await deps.sender.deliverClaimed([row]);
    return detail(recorded ?? (await findOrThrow(scope, row.id)));
  }

  return {
    findOrThrow,

    async list(scope: Scope, q: repo.DeliveryFilter) {
      const page = await repo.pageDeliveries(db, scope, q);
      return { ...page, list: page.list.map(toDeliveryView) };
    },

    get: async (scope: Scope, id: number) => detail(await findOrThrow(scope, id)),

    async sendTest(scope: Scope, subscriptionId: number) {
      const sub = await deps.subs.findOrThrow(scope, subscriptionId);
      const eventId = randomUUID();
      const payload: WebhookPayload = {
        id: eventId,
        type: TEST_EVENT,
        createdAt: clock().toISOString(),
        tenantId: sub.tenantId,
        data: { message: 'A test event from Atrium: your endpoint is reachable.', subscriptionId: sub.id },
      };
      return sendNow(scope, sub, { eventId, eventType: TEST_EVENT, payload, redeliveryOf: null });
    },

    async redeliver(scope: Scope, id: number) {
      const original = await findOrThrow(scope, id);
      const sub = await deps.subs.findOrThrow(scope, original.subscriptionId);
      return sendNow(scope, sub, {
        eventId: original.eventId,
        eventType: original.eventType,
        payload: original.payload,
        redeliveryOf: original.id,
      });
    },

    /** The daily purge: finished deliveries (and their attempts) past the retention. */
    async purgeOld() {
      return { deleted: await repo.purgeFinished(db, new Date(clock().getTime() - RETENTION_MS)) };
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
