import type { Static } from 'typebox';
import { assertPlatformScope, type Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { hashPassword } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../platform/db/sql.ts';
import { findTenantById } from './auth-repository.ts';
import { identityErrors } from './errors.ts';
import { isPlatformCode, tenantMenuIds } from './menus-service.ts';
import { rolesTable } from './roles-repository.ts';
import { bindRoleMenus } from './roles-service.ts';
import type { TenantCreateBody, TenantUpdateBody } from './schemas.ts';
import type { SecuritySettings } from './security-settings.ts';
import type { Sessions } from './sessions.ts';
import type { TenantRow, TenantStatus } from './tenants-repository.ts';
import * as repo from './tenants-repository.ts';
import { replaceUserRoles, usersTable } from './users-repository.ts';

export const TENANT_ADMIN_ROLE = 'tenant-admin';

/**
 * A tenant's first administrator: the `tenant-admin` role with every declared code a tenant may
 * hold and every menu a tenant may see, and a user holding it. Used by tenant creation and the
 * first-start seed; runs inside the caller's transaction.
 */
export async function provisionTenantAdmin(
  tx: Db,
  input: { tenantId: number; username: string; passwordHash: string; permissionCodes: Iterable<string>; now: Date },
) {
  const scope = { tenantId: input.tenantId };
  const role = await rolesTable.insert(tx, scope, {
    code: TENANT_ADMIN_ROLE,
    name: 'Tenant administrator',
    permissions: [...new Set(input.permissionCodes)].filter((c) => !isPlatformCode(c)).sort(),
    remark: 'Every permission of the tenant',
  });
  await bindRoleMenus(tx, scope, role.id, await tenantMenuIds(tx));
  const user = await usersTable.insert(tx, scope, {
    username: input.username,
    passwordHash: input.passwordHash,
    passwordChangedAt: input.now,
    nickname: 'Tenant administrator',
  });
  await replaceUserRoles(tx, scope, user.id, [role.id]);
  return { userId: user.id, roleId: role.id };
}

/** Tenants: platform scope only; disabled, never deleted (docs/decisions/0002). */
export function createTenantsService({
  db,
  clock,
  settings,
  sessions,
  permissionCodes,
}: Pick<AppContext, 'db' | 'clock' | 'settings'> & { sessions: Sessions; permissionCodes: () => ReadonlySet<string> }) {
  async function load(id: number): Promise<TenantRow> {
    const t = await findTenantById(db, id);
    if (!t) throw identityErrors.notFound('tenant');
    return t;
  }

  return {
    async list(scope: Scope, page: PageRequest, f: { keyword?: string; status?: TenantStatus }) {
      assertPlatformScope(scope);
      return repo.listTenants(db, page, f);
    },

    async get(scope: Scope, id: number) {
      assertPlatformScope(scope);
      return load(id);
    },

    /** The tenant, its `tenant-admin` role and its administrator, all or nothing. */
    async create(scope: Scope, input: Static<typeof TenantCreateBody>) {
      assertPlatformScope(scope);
      const { passwordMinLength } = await settings.effective<SecuritySettings>('security', null);
      if (input.adminPassword.length < passwordMinLength)
        throw identityErrors.weakPassword('adminPassword', passwordMinLength);
      const passwordHash = await hashPassword(input.adminPassword);
      return onUniqueViolation(
        db.transaction(async (tx) => {
          const tenant = await repo.insertTenant(tx, {
            code: input.code,
            name: input.name,
            expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
            remark: input.remark ?? '',
          });
          const admin = await provisionTenantAdmin(tx, {
            tenantId: tenant.id,
            username: input.adminUsername,
            passwordHash,
            permissionCodes: permissionCodes(),
            now: clock(),
          });
          return { ...tenant, admin: { id: admin.userId, username: input.adminUsername, roleId: admin.roleId } };
        }),
        () => identityErrors.conflict('tenant', 'code'),
      );
    },

    /** Disabling ends every session of the tenant; a new expiry applies at the next request. */
    async update(scope: Scope, id: number, input: Static<typeof TenantUpdateBody>) {
      assertPlatformScope(scope);
      const before = await load(id);
      const { expiresAt, ...fields } = input;
      const after = await repo.updateTenant(db, id, {
        ...fields,
        ...(expiresAt !== undefined ? { expiresAt: expiresAt ? new Date(expiresAt) : null } : {}),
        updatedAt: clock(),
      });
      if (!after) throw identityErrors.notFound('tenant');
      if (after.status === 'disabled' && before.status !== 'disabled') {
        const members = await usersTable.findMany(db, { tenantId: id });
        if (members.length) await sessions.revoke({ userIds: members.map((u) => u.id) }, 'tenant_disabled');
      }
      if (input.status !== undefined || expiresAt !== undefined) await sessions.invalidatePermissions();
      return after;
    },
  };
}

export type TenantsService = ReturnType<typeof createTenantsService>;
