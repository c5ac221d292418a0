import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { identityErrors } from './errors.ts';
import { navigationOf } from './navigation.ts';
import { menuCodesOfRoles, rolesOfUser } from './roles-repository.ts';
import { codesForScope, permissionFamily } from './roles-service.ts';
import { usersTable } from './users-repository.ts';

type Via = 'code' | 'menu';
type Grant = { id: number; code: string; name: string; status: 'active' | 'disabled'; granting: boolean; via: Via[] };
type CodeEntry = { code: string; granted: boolean; bySuper: boolean; declared: boolean; grants: Grant[] };

/**
 * "What can this person do" (docs/decisions/0035): each permission code a user of the caller's
 * tenant holds, with the roles that give it. It follows the rule sign-in applies
 * (auth-repository.ts loadPermissions): an active role grants its listed codes and the codes of its
 * active menu nodes; a disabled role grants nothing but is still shown, as not granting; a super
 * administrator passes every check.
 */
export function createUserPermissionsService({
  db,
  permissionCodes,
}: Pick<AppContext, 'db'> & { permissionCodes: () => ReadonlySet<string> }) {
  return {
    async of(scope: Scope, id: number) {
      // the same tenant-scoped lookup as GET /api/users/{id}: another tenant's user is not found
      const user = await usersTable.findById(db, scope, id);
      if (!user) throw identityErrors.notFound('user');
      const held = await rolesOfUser(db, user.id);
      const fromMenus = await menuCodesOfRoles(
        db,
        held.map((r) => r.id),
      );

      const byCode = new Map<string, Map<number, Set<Via>>>();
      const add = (code: string, roleId: number, via: Via) => {
        const roles = byCode.get(code) ?? new Map<number, Set<Via>>();
        roles.set(roleId, (roles.get(roleId) ?? new Set<Via>()).add(via));
        byCode.set(code, roles);
      };
      for (const r of held) for (const code of r.permissions) add(code, r.id, 'code');
      for (const m of fromMenus) if (m.code) add(m.code, m.roleId, 'menu');
      const declared = permissionCodes();
      if (user.isSuper)
        for (const code of codesForScope(declared, scope)) if (!byCode.has(code)) byCode.set(code, new Map());

      const groups = new Map<string, CodeEntry[]>();
      for (const code of [...byCode.keys()].sort()) {
        const holders = byCode.get(code) ?? new Map<number, Set<Via>>();
        // in the roles' display order
        const grants: Grant[] = held
          .filter((r) => holders.has(r.id))
          .map((r) => ({
            id: r.id,
            code: r.code,
            name: r.name,
            status: r.status,
            granting: r.status === 'active',
            via: (['code', 'menu'] as const).filter((v) => holders.get(r.id)?.has(v)),
          }));
        const entry = {
          code,
          granted: user.isSuper || grants.some((g) => g.granting),
          bySuper: user.isSuper,
          declared: declared.has(code),
          grants,
        };
        const family = permissionFamily(code);
        groups.set(family, [...(groups.get(family) ?? []), entry]);
      }

      return {
        userId: user.id,
        isSuper: user.isSuper,
        roles: held.map((r) => ({ id: r.id, code: r.code, name: r.name, status: r.status })),
        groups: [...groups].map(([group, codes]) => ({ group, codes })),
        menus: await navigationOf(db, {
          isSuper: user.isSuper,
          activeRoleIds: held.filter((r) => r.status === 'active').map((r) => r.id),
        }),
      };
    },
  };
}

export type UserPermissionsService = ReturnType<typeof createUserPermissionsService>;
