import { eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { tenants, users } from './tables.ts';

/** A user as the OAuth server needs them: who signed, whether still active (tenant included), the OIDC claims. */
export type OAuthSubject = {
  id: number;
  tenantId: number | null;
  username: string;
  name: string;
  email: string | null;
  active: boolean;
  updatedAt: Date;
};

export async function oauthSubject(db: Db, userId: number, now: Date): Promise<OAuthSubject | null> {
  const [row] = await db
    .select({
      id: users.id,
      tenantId: users.tenantId,
      username: users.username,
      name: users.nickname,
      email: users.email,
      status: users.status,
      tenantStatus: tenants.status,
      tenantExpiresAt: tenants.expiresAt,
      updatedAt: users.updatedAt,
    })
    .from(users)
    .leftJoin(tenants, eq(tenants.id, users.tenantId))
    .where(eq(users.id, userId))
    .limit(1);
  if (!row) return null;
  const { status, tenantStatus, tenantExpiresAt, ...rest } = row;
  // a tenant's user is only as active as the tenant: disabled or expired tenants grant nothing
  const tenantLive =
    row.tenantId === null || (tenantStatus === 'active' && (tenantExpiresAt === null || tenantExpiresAt > now));
  return { ...rest, active: status === 'active' && tenantLive };
}
