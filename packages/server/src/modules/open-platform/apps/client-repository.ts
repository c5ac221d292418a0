import { and, eq, gt, or, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../../platform/db/client.ts';
import { openApps } from './tables.ts';

export type ClientRecord = typeof openApps.$inferSelect;

type AppColumns = Record<'status' | 'secretHash' | 'previousSecretHash' | 'previousSecretExpiresAt', PgColumn>;

/**
 * SQL: the application (open_apps or an alias of it) is active and still accepts `proof`, the
 * SHA-256 of a client's secret, as its current secret or its previous one within grace. For the
 * statements that re-check a client authenticated from a cached record; `proof` was compared in
 * constant time already, this only asks whether the row still holds it.
 */
export function acceptsProof(app: AppColumns, proof: SQLWrapper, now: SQLWrapper): SQL {
  return and(
    eq(app.status, 'active'),
    or(eq(app.secretHash, proof), and(eq(app.previousSecretHash, proof), gt(app.previousSecretExpiresAt, now))),
  ) as SQL;
}

/** The application behind a client_id (any status: callers decide what a disabled one means). */
export async function findClient(db: Db, clientId: string): Promise<ClientRecord | null> {
  const [row] = await db.select().from(openApps).where(eq(openApps.clientId, clientId)).limit(1);
  return row ?? null;
}
