import { AppError } from '../http/errors.ts';
/** Who is calling. Built once per request by the auth hook; services receive it inside a Scope. */
export type UserPrincipal = {
  kind: 'user';
  userId: number;
  /** null for platform users (super administrators live at platform level). */
  tenantId: number | null;
  username: string;
  isSuper: boolean;
  permissions: ReadonlySet<string>;
  sessionId: number;
};

export type MemberPrincipal = { kind: 'member'; memberId: number; tenantId: number };

/**
 * An open-platform application calling with an OAuth 2 access token (route `auth: 'app'`).
 * `userId` is the user who authorized it (authorization code), null for client credentials.
 */
export type AppPrincipal = {
  kind: 'app';
  appId: number;
  clientId: string;
  tenantId: number | null;
  userId: number | null;
  scopes: ReadonlySet<string>;
};

export type Principal = UserPrincipal | MemberPrincipal | AppPrincipal;

/**
 * What every service call carries: the tenant the work happens in and who asks.
 * `tenantId` null means platform scope (rows whose tenant_id is 0, the platform tenant: platform/db/tenant-key.ts).
 */
export type Scope = {
  tenantId: number | null;
  principal: Principal | null;
  requestId: string;
  ip: string;
};

export function userOf(scope: Scope): UserPrincipal | null {
  return scope.principal?.kind === 'user' ? scope.principal : null;
}

export function hasPermission(principal: Principal | null, code: string): boolean {
  if (principal?.kind !== 'user') return false;
  return principal.isSuper || principal.permissions.has(code);
}

/** A scope for work the system does itself (seed, jobs). */
export function systemScope(tenantId: number | null): Scope {
  return { tenantId, principal: null, requestId: 'system', ip: '127.0.0.1' };
}

/** Platform administration (tenants, menus, cron) belongs to platform users acting at platform scope (docs/decisions/0002). */
export function assertPlatformScope(scope: Scope): void {
  if (scope.principal?.kind !== 'user' || scope.principal.tenantId !== null || scope.tenantId !== null) {
    throw new AppError(
      403,
      'auth.platform_scope_required',
      'This operation is only available to platform users at platform scope',
    );
  }
}
