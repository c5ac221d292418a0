import type { Db } from '../../platform/db/client.ts';
import { buildTree } from './menu-tree.ts';
import { activeMenus, type MenuRow } from './menus-repository.ts';
import { menuIdsOfRoles } from './roles-repository.ts';

/** The menu nodes of a user's roles; a bound node brings its ancestors along, so the tree never has holes. */
function withAncestors(all: MenuRow[], boundIds: number[]): MenuRow[] {
  const byId = new Map(all.map((m) => [m.id, m]));
  const keep = new Set<number>();
  for (const id of boundIds) {
    for (let m = byId.get(id); m && !keep.has(m.id); m = m.parentId === null ? undefined : byId.get(m.parentId))
      keep.add(m.id);
  }
  return all.filter((m) => keep.has(m.id));
}

/**
 * The navigation a user sees: every active node for a super administrator, otherwise the nodes
 * bound to their active roles. One rule for the signed-in person's own menus (/api/auth/me) and
 * for an administrator looking at someone (/api/users/{id}/permissions).
 */
export async function navigationOf(db: Db, who: { isSuper: boolean; activeRoleIds: number[] }) {
  let rows: MenuRow[] = [];
  if (who.isSuper) rows = await activeMenus(db);
  else if (who.activeRoleIds.length)
    rows = withAncestors(await activeMenus(db), await menuIdsOfRoles(db, who.activeRoleIds));
  return buildTree(
    rows.map((m) => ({
      id: m.id,
      parentId: m.parentId,
      type: m.type,
      name: m.name,
      path: m.path,
      component: m.component,
      icon: m.icon,
      permission: m.permission,
      sort: m.sort,
      hidden: m.hidden,
    })),
  );
}
