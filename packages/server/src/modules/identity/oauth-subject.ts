import type { OAuthUser } from '../open-platform/index.ts';
import type { findUserWithTenant } from './users-repository.ts';

type UserWithTenant = NonNullable<Awaited<ReturnType<typeof findUserWithTenant>>>;

/** A user as the OAuth server declares it needs them: who signed, whether still active (tenant included), the OIDC claims. */
export function toOAuthSubject(row: UserWithTenant, now: Date): OAuthUser {
  const { status, tenantStatus, tenantExpiresAt, ...rest } = row;
  // a tenant's user is only as active as the tenant: disabled or expired tenants grant nothing
  const tenantLive =
    row.tenantId === null || (tenantStatus === 'active' && (tenantExpiresAt === null || tenantExpiresAt > now));
  return { ...rest, active: status === 'active' && tenantLive };
}
