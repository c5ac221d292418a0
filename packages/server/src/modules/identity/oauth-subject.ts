import type { findUserWithTenant } from './users-repository.ts';

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

type UserWithTenant = NonNullable<Awaited<ReturnType<typeof findUserWithTenant>>>;

export function toOAuthSubject(row: UserWithTenant, now: Date): OAuthSubject {
  const { status, tenantStatus, tenantExpiresAt, ...rest } = row;
  // a tenant's user is only as active as the tenant: disabled or expired tenants grant nothing
  const tenantLive =
    row.tenantId === null || (tenantStatus === 'active' && (tenantExpiresAt === null || tenantExpiresAt > now));
  return { ...rest, active: status === 'active' && tenantLive };
}
