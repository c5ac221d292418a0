import type { Static } from 'typebox';
import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../platform/http/errors.ts';
import { identityErrors } from './errors.ts';
import { findMenusByIds, personalMenuIds } from './menus-repository.ts';
import { isPlatformCode } from './menus-service.ts';
import type { RoleRow, RoleStatus } from './roles-repository.ts';
import * as repo from './roles-repository.ts';
import type { RoleCreateBody, RoleUpdateBody } from './schemas.ts';
import type { Sessions } from './sessions.ts';

/** The role's menu nodes: the chosen ones plus the personal pages every role shows. */
export async function bindRoleMenus(tx: Db, scope: Pick<Scope, 'tenantId'>, roleId: number, menuIds: number[]) {
  await repo.replaceRoleMenus(tx, scope, roleId, [...new Set([...menuIds, ...(await personalMenuIds(tx))])]);
}

/** The group a code is listed under: its family, the first segment (`system` of `system:user:list`). */
export const permissionFamily = (code: string) => code.split(':')[0] ?? code;

/** The declared codes a role of this scope may hold: a tenant never holds the platform-only ones. */
export const codesForScope = (codes: Iterable<string>, scope: Pick<Scope, 'tenantId'>) =>
  [...codes].filter((code) => scope.tenantId === null || !isPlatformCode(code));

/** The declared codes grouped by family; a tenant caller never sees the platform-only ones. */
function permissionGroups(codes: Iterable<string>, scope: Pick<Scope, 'tenantId'>) {
  const groups = new Map<string, string[]>();
  for (const code of codesForScope(codes, scope).sort()) {
    const group = permissionFamily(code);
    groups.set(group, [...(groups.get(group) ?? []), code]);
  }
  return [...groups].map(([group, list]) => ({ group, codes: list }));
}

/**
 * Roles of the caller's tenant. `permissions` must be declared codes (docs/decisions/0005);
 * `platform:*` codes and menus carrying them are for platform roles only.
 * `permissionCodes` is read per call: the registry is complete only once every route is declared.
 */
export function createRolesService({
  db,
  clock,
  sessions,
  permissionCodes,
}: Pick<AppContext, 'db' | 'clock'> & { sessions: Sessions; permissionCodes: () => ReadonlySet<string> }) {
  async function load(scope: Scope, id: number): Promise<RoleRow> {
    const r = await repo.rolesTable.findById(db, scope, id);
    if (!r) throw identityErrors.notFound('role');
    return r;
  }

  async function assertGrants(scope: Scope, input: { permissions?: string[]; menuIds?: number[] }) {
    const details: FieldError[] = [];
    const tenant = scope.tenantId !== null;
    const declared = permissionCodes();
    (input.permissions ?? []).forEach((code, i) => {
      if (!declared.has(code)) details.push({ field: `permissions.${i}`, message: `unknown permission code ${code}` });
      else if (tenant && isPlatformCode(code))
        details.push({ field: `permissions.${i}`, message: `${code} is for platform roles only` });
    });
    const menuIds = input.menuIds ?? [];
    if (menuIds.length) {
      const found = new Map((await findMenusByIds(db, menuIds)).map((m) => [m.id, m]));
      menuIds.forEach((id, i) => {
        const m = found.get(id);
        if (!m) details.push({ field: `menuIds.${i}`, message: `menu ${id} does not exist` });
        else if (tenant && isPlatformCode(m.permission))
          details.push({ field: `menuIds.${i}`, message: `menu ${id} is for platform roles only` });
      });
    }
    if (details.length) throw httpErrors.validation(details);
  }

  async function detail(scope: Scope, id: number) {
    const r = await load(scope, id);
    return { ...r, menuIds: await repo.menuIdsOfRole(db, r.id) };
  }

  return {
    list: (scope: Scope, page: PageRequest, f: { keyword?: string; status?: RoleStatus }) =>
      repo.listRoles(db, scope, page, f),

    get: detail,

    async create(scope: Scope, input: Static<typeof RoleCreateBody>) {
      await assertGrants(scope, input);
      const id = await onUniqueViolation(
        db.transaction(async (tx) => {
          const r = await repo.rolesTable.insert(tx, scope, {
            code: input.code,
            name: input.name,
            permissions: input.permissions ?? [],
            status: input.status ?? 'active',
            sort: input.sort ?? 0,
            remark: input.remark ?? '',
          });
          await bindRoleMenus(tx, scope, r.id, input.menuIds ?? []);
          return r.id;
        }),
        () => identityErrors.conflict('role', 'code'),
      );
      return detail(scope, id);
    },

    async update(scope: Scope, id: number, input: Static<typeof RoleUpdateBody>) {
      await load(scope, id);
      await assertGrants(scope, input);
      const { menuIds, ...fields } = input;
      await onUniqueViolation(
        db.transaction(async (tx) => {
          await repo.rolesTable.update(tx, scope, id, { ...fields, updatedAt: clock() });
          if (menuIds) await bindRoleMenus(tx, scope, id, menuIds);
        }),
        () => identityErrors.conflict('role', 'code'),
      );
      // Signed-in holders of the role get the new permissions on their next request.
      await sessions.invalidatePermissions();
      return detail(scope, id);
    },

    /** Holders simply lose the role (user_roles and role_menus cascade). */
    async remove(scope: Scope, id: number) {
      await load(scope, id);
      const affected = await repo.rolesTable.deleteMany(db, scope, [id]);
      if (!affected.length) throw identityErrors.notFound('role');
      await sessions.invalidatePermissions();
      return { affected };
    },

    /** Every declared code a role may hold, grouped (platform-only codes at platform scope only). */
    permissionGroups: (scope: Pick<Scope, 'tenantId'>) => permissionGroups(permissionCodes(), scope),
  };
}

export type RolesService = ReturnType<typeof createRolesService>;
