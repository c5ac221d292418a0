import { eq } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { openApps } from './tables.ts';

export type ClientRecord = typeof openApps.$inferSelect;

/** The application behind a client_id (any status: callers decide what a disabled one means). */
export async function findClient(db: Db, clientId: string): Promise<ClientRecord | null> {
  const [row] = await db.select().from(openApps).where(eq(openApps.clientId, clientId)).limit(1);
  return row ?? null;
}

export async function findApp(db: Db, id: number): Promise<ClientRecord | null> {
  const [row] = await db.select().from(openApps).where(eq(openApps.id, id)).limit(1);
  return row ?? null;
}
