import { and, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import type { Channel, RecipientType } from '../channels/types.ts';
import { type Decision, notificationDispatches, type ReasonCode } from '../dispatch/tables.ts';

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

/** A page of the scope's dispatch rows matching the filter, newest first. */
export function pageDispatches(db: Db, scope: Pick<Scope, 'tenantId'>, q: DispatchFilter) {
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
  return dispatches.page(db, scope, q, and(...conds), desc(d.id));
}
