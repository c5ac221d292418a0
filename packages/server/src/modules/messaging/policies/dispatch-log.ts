import { and, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import type { Channel, RecipientType } from '../channels/types.ts';
import { type Decision, type DispatchRow, notificationDispatches, type ReasonCode } from '../dispatch/tables.ts';

export type DispatchFilter = PageRequest & {
  eventKey?: string;
  channel?: Channel;
  decision?: Decision;
  reasonCode?: ReasonCode;
  recipientType?: RecipientType;
  recipientId?: number;
  outboxId?: number;
  from?: string;
  to?: string;
};

const dispatches = scoped(notificationDispatches);

export async function listDispatches(db: Db, scope: Pick<Scope, 'tenantId'>, q: DispatchFilter) {
  const d = notificationDispatches;
  const conds: (SQL | undefined)[] = [
    q.eventKey ? eq(d.eventKey, q.eventKey) : undefined,
    q.channel ? eq(d.channel, q.channel) : undefined,
    q.decision ? eq(d.decision, q.decision) : undefined,
    q.reasonCode ? eq(d.reasonCode, q.reasonCode) : undefined,
    q.recipientType ? eq(d.recipientType, q.recipientType) : undefined,
    q.recipientId ? eq(d.recipientId, q.recipientId) : undefined,
    q.outboxId ? eq(d.outboxId, q.outboxId) : undefined,
    q.from ? gte(d.createdAt, new Date(q.from)) : undefined,
    q.to ? lte(d.createdAt, new Date(q.to)) : undefined,
  ];
  const page = await dispatches.page(db, scope, q, and(...conds), desc(d.id));
  return { ...page, list: page.list.map(view) };
}

function view(r: DispatchRow) {
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
