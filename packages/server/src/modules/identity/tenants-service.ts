import { and, count, eq, or, type SQL } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains, onUniqueViolation } from '../../platform/db/sql.ts';
import { identityErrors } from './errors.ts';
import { assertPlatformScope, isPlatformCode, tenantMenuIds } from './menus-service.ts';
import { hashPassword } from './passwords.ts';
import { bindRoleMenus } from './roles-service.ts';
import type { TenantCreateBody, TenantUpdateBody } from './schemas.ts';
import type { SecuritySettings } from './security-settings.ts';
import type { Sessions } from './sessions.ts';
import { roles, tenants, userRoles } from './tables.ts';
import { usersTable } from './users-repository.ts';

type TenantRow = typeof tenants.$inferSelect;
type TenantStatus = TenantRow['status'];
const rolesTable = scoped(roles);

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
  await bindRoleMenus(tx, role.id, await tenantMenuIds(tx));
  const user = await usersTable.insert(tx, scope, {
    username: input.username,
    passwordHash: input.passwordHash,
    passwordChangedAt: input.now,
    nickname: 'Tenant administrator',
  });
  await tx.insert(userRoles).values({ userId: user.id, roleId: role.id });
  return { userId: user.id, roleId: role.id };
}

/** Tenants: platform scope only; disabled, never deleted (docs/decisions/0002). */
export function createTenantsService(ctx: AppContext, sessions: Sessions, permissionCodes: () => ReadonlySet<string>) {
  const { db, clock } = ctx;

  async function load(id: number): Promise<TenantRow> {
    const [t] = await db.select().from(tenants).where(eq(tenants.id, id)).limit(1);
    if (!t) throw identityErrors.notFound('tenant');
    return t;
  }

  return {
    async list(scope: Scope, page: PageRequest, f: { keyword?: string; status?: TenantStatus }) {
      assertPlatformScope(scope);
      const conds: (SQL | undefined)[] = [];
      if (f.keyword) conds.push(or(contains(tenants.code, f.keyword), contains(tenants.name, f.keyword)));
      if (f.status) conds.push(eq(tenants.status, f.status));
      const where = conds.length ? and(...conds) : undefined;
      const [list, totals] = await Promise.all([
        db
          .select()
          .from(tenants)
          .where(where)
          .orderBy(tenants.id)
          .limit(page.pageSize)
          .offset((page.page - 1) * page.pageSize),
        db.select({ n: count() }).from(tenants).where(where),
      ]);
      return { list, total: Number(totals[0]?.n ?? 0), ...page };
    },

    async get(scope: Scope, id: number) {
      assertPlatformScope(scope);
      return load(id);
    },

    /** The tenant, its `tenant-admin` role and its administrator, all or nothing. */
    async create(scope: Scope, input: Static<typeof TenantCreateBody>) {
      assertPlatformScope(scope);
      const { passwordMinLength } = await ctx.settings.effective<SecuritySettings>('security', null);
      if (input.adminPassword.length < passwordMinLength)
        throw identityErrors.weakPassword('adminPassword', passwordMinLength);
      const passwordHash = await hashPassword(input.adminPassword);
      return await onUniqueViolation(
        db.transaction(async (tx) => {
          const [tenant] = await tx
            .insert(tenants)
            .values({
              code: input.code,
              name: input.name,
              expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
              remark: input.remark ?? '',
            })
            .returning();
          if (!tenant) throw new Error('tenant insert returned nothing');
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
      const [after] = await db
        .update(tenants)
        .set({
          ...fields,
          ...(expiresAt !== undefined ? { expiresAt: expiresAt ? new Date(expiresAt) : null } : {}),
          updatedAt: clock(),
        })
        .where(eq(tenants.id, id))
        .returning();
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
