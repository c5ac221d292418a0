import { and, asc, desc, eq, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import type { ChannelCode } from '../channels/types.ts';
import { paymentChannelConfigs } from '../tables.ts';

export type ChannelConfigRow = typeof paymentChannelConfigs.$inferSelect;

/** The list filter of GET /api/payment/channel-configs. */
export function configListFilter(q: { channel?: ChannelCode; status?: 'active' | 'disabled' }): SQL | undefined {
  const parts = [
    q.channel ? eq(paymentChannelConfigs.channel, q.channel) : undefined,
    q.status ? eq(paymentChannelConfigs.status, q.status) : undefined,
  ].filter((p): p is SQL => p !== undefined);
  return parts.length ? and(...parts) : undefined;
}

/** The configuration a new order of the channel uses when none is named: the default, else the oldest enabled one. */
export async function firstActiveOfChannel(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  channel: ChannelCode,
): Promise<ChannelConfigRow | null> {
  const rows = await db
    .select()
    .from(paymentChannelConfigs)
    .where(
      and(
        tenantFilter(paymentChannelConfigs, scope),
        eq(paymentChannelConfigs.channel, channel),
        eq(paymentChannelConfigs.status, 'active'),
      ),
    )
    .orderBy(desc(paymentChannelConfigs.isDefault), asc(paymentChannelConfigs.id))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Every enabled configuration of a channel, in every tenant, oldest first: a channel callback
 * names no tenant, so it is verified against all of them (spec §3.2) and the one that verifies
 * says whose it is. The one read of this table across tenants.
 */
export function activeConfigsOfChannelAcrossTenants(db: Db, channel: ChannelCode): Promise<ChannelConfigRow[]> {
  return db
    .select()
    .from(paymentChannelConfigs)
    .where(and(eq(paymentChannelConfigs.channel, channel), eq(paymentChannelConfigs.status, 'active')))
    .orderBy(asc(paymentChannelConfigs.id));
}
