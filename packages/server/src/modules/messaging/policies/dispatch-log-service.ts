import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { DispatchRow } from '../dispatch/tables.ts';
import { type DispatchFilter, pageDispatches } from './dispatch-log-repository.ts';

export type DispatchLogService = ReturnType<typeof createDispatchLogService>;

/** The dispatch log: one row per recipient × channel with its decision and reason code. */
export function createDispatchLogService(deps: { db: Db }) {
  return {
    async list(scope: Pick<Scope, 'tenantId'>, q: DispatchFilter) {
      const page = await pageDispatches(deps.db, scope, q);
      return { ...page, list: page.list.map(toDispatchView) };
    },
  };
}

function toDispatchView(r: DispatchRow) {
  return {
    id: r.id,
    outboxId: r.outboxId,
    eventKey: r.eventKey,
    channel: r.channel,
    recipientType: r.recipientType,
    recipientId: r.recipientId,
    recipientAddress:
      r.contact.address ?? (r.channel === 'sms' ? r.contact.phone : r.channel === 'email' ? r.contact.email : null),
    recipientName: r.contact.name,
    decision: r.decision,
    reasonCode: r.reasonCode,
    idempotencyKey: r.idempotencyKey,
    digestKey: r.digestKey,
    deliverAfter: r.deliverAfter?.toISOString() ?? null,
    attempts: r.attempts,
    error: r.error,
    createdAt: r.createdAt.toISOString(),
    deliveredAt: r.deliveredAt?.toISOString() ?? null,
  };
}
