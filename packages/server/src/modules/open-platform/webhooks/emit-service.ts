import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { Job } from '../../../platform/jobs/define.ts';
import { TEST_EVENT, type WebhookEventRegistry } from './events.ts';
import { insertDeliveries, subscribersOf } from './repository.ts';
import type { WebhookPayload } from './tables.ts';
import type { EmitInput, EmitResult } from './types.ts';

/**
 * Emission inside the caller's transaction (outbox, ARCHITECTURE §5): one delivery row per
 * receiving subscription and a wake job, all of which exist only if the transaction commits.
 * A lost wake job costs a minute: the sweeper sends due rows too.
 */
export function createEmitService(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  registry: WebhookEventRegistry,
  /** sends the emission's first attempts right after its transaction commits (jobs.ts) */
  wake: Job<{ deliveryIds: number[] }>,
) {
  async function emitWithin(tx: Db, input: EmitInput): Promise<EmitResult> {
    if (!registry.has(input.type)) throw new Error(`webhook event "${input.type}" is not registered`);
    if (input.type === TEST_EVENT) throw new Error(`webhook event "${TEST_EVENT}" is sent by the test route only`);
    const eventId = randomUUID();
    const subs = await subscribersOf(tx, input.tenantId, input.type, input.appIds);
    if (subs.length === 0) return { eventId, deliveryIds: [] };
    const now = ctx.clock();
    const payload: WebhookPayload = {
      id: eventId,
      type: input.type,
      createdAt: now.toISOString(),
      tenantId: input.tenantId,
      // stored as it will be sent (dates become strings now, not at each attempt)
      data: JSON.parse(JSON.stringify(input.data ?? null)),
    };
    const deliveryIds = await insertDeliveries(
      tx,
      subs.map((sub) => ({
        tenantId: input.tenantId,
        subscriptionId: sub.id,
        appId: sub.appId,
        eventId,
        eventType: input.type,
        payload,
        nextAttemptAt: now,
        createdAt: now,
      })),
    );
    await wake.send({ deliveryIds }, { tx });
    return { eventId, deliveryIds };
  }

  return {
    /** inside the caller's transaction: nothing is sent if it rolls back */
    emitWithin,
    /** in a transaction of its own */
    emit: (input: EmitInput) => ctx.db.transaction((tx) => emitWithin(tx, input)),
  };
}
