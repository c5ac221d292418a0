import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { users } from './tables.ts';

/** Queries of the first-start seed. */

export async function platformSuperExists(db: Db): Promise<boolean> {
  const [existing] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(isNull(users.tenantId), eq(users.isSuper, true)))
    .limit(1);
  return existing !== undefined;
}

export async function insertPlatformSuper(db: Db, username: string, passwordHash: string) {
  await db
    .insert(users)
    .values({ tenantId: null, username, passwordHash, nickname: 'Platform administrator', isSuper: true });
}
