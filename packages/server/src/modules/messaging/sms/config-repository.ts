import { and, eq, type SQL } from 'drizzle-orm';
import { listedConfigRepository } from '../../../platform/provider-configs/index.ts';
import { type SmsProviderName, smsConfigs } from './tables.ts';

/** Queries of SMS configurations (the provider-configuration kit's, all through the tenant scope). */
export const configs = listedConfigRepository(smsConfigs);
export type SmsConfigRow = typeof smsConfigs.$inferSelect;

/** The listing's filters. */
export function listFilter(q: { provider?: SmsProviderName; status?: 'active' | 'disabled' }): SQL | undefined {
  const conds: SQL[] = [];
  if (q.provider) conds.push(eq(smsConfigs.provider, q.provider));
  if (q.status) conds.push(eq(smsConfigs.status, q.status));
  return conds.length ? and(...conds) : undefined;
}
