import { eq, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { emailConfigs } from './tables.ts';

/** Queries of email configurations; every one goes through the tenant scope. */
export const configRows = scoped(emailConfigs);
export type EmailConfigRow = typeof emailConfigs.$inferSelect;

/** The configuration saved at exactly this scope (tenant or platform), if any. */
export async function ownConfig(db: Db, tenantId: number | null): Promise<EmailConfigRow | null> {
  const [row] = await configRows.findMany(db, { tenantId });
  return row ?? null;
}

/** The configuration that applies to a tenant: its own, else the platform's (one query). */
export async function effectiveConfig(db: Db, tenantId: number | null): Promise<EmailConfigRow | null> {
  const scope =
    tenantId === null
      ? isNull(emailConfigs.tenantId)
      : or(eq(emailConfigs.tenantId, tenantId), isNull(emailConfigs.tenantId));
  const [row] = await db
    .select()
    .from(emailConfigs)
    .where(scope)
    .orderBy(sql`${emailConfigs.tenantId} nulls last`)
    .limit(1);
  return row ?? null;
}

/** Encryption context of the SMTP password: bound to its row, so a copied value does not decrypt. */
export const passwordContext = (configId: number) => `email_configs.password:${configId}`;
