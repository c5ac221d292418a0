import type { Db } from '../../platform/db/client.ts';
import { allMenus, type MenuRow } from './menus-repository.ts';
import { isPlatformCode, tenantMenus } from './menus-service.ts';
import type { SeedNode } from './seed-menus.ts';
import * as repo from './seed-repository.ts';
import { TENANT_ADMIN_ROLE } from './tenants-service.ts';

/**
 * Each start applies what the built-in catalogue (menu tree, declared codes) holds that this
 * install has never applied, and marks it; a marked item is never applied again, so what an
 * administrator removed stays removed (docs/decisions/0027). Runs in the seed's transaction.
 */
export type CatalogueReport = { menusAdded: number; codesAdded: number };

/** A node's stable key: its path (directory, menu), or its parent's key, `#`, its code (button). */
export function seedKey(node: SeedNode, parentKey: string | null): string {
  return node.type === 'button' ? `${parentKey ?? ''}#${node.permission ?? ''}` : (node.path ?? '');
}

type NewMenu = Pick<MenuRow, 'id' | 'parentId' | 'type' | 'name' | 'path' | 'component' | 'icon' | 'permission'> &
  Pick<MenuRow, 'sort' | 'hidden'>;

/**
 * Walks the tree against the existing rows. An unmarked node matching a row (same path; a button:
 * same code under the matched parent) is marked; one matching none is added (with a temporary
 * negative id) and marked. A marked node with no row was deleted: neither it nor its children return.
 */
export function planMenus(tree: SeedNode[], existing: MenuRow[], marked: ReadonlySet<string>) {
  const byPath = new Map<string, MenuRow>();
  const buttons = new Map<string, MenuRow>();
  for (const m of existing) {
    if (m.type === 'button') buttons.set(`${m.parentId}#${m.permission}`, m);
    else if (m.path && !byPath.has(m.path)) byPath.set(m.path, m);
  }
  const added: NewMenu[] = [];
  const marks: string[] = [];
  const walk = (nodes: SeedNode[], parentId: number | null, parentKey: string | null) => {
    for (const [i, n] of nodes.entries()) {
      const key = seedKey(n, parentKey);
      let id = (n.type === 'button' ? buttons.get(`${parentId}#${n.permission}`) : byPath.get(n.path ?? ''))?.id;
      if (marked.has(key)) {
        if (id === undefined) continue;
      } else {
        if (id === undefined) {
          id = -(added.length + 1);
          added.push({
            id,
            parentId,
            type: n.type,
            name: n.name,
            path: n.path ?? '',
            component: n.component ?? '',
            icon: n.icon ?? '',
            permission: n.permission ?? null,
            sort: (i + 1) * 10,
            hidden: n.hidden ?? false,
          });
        }
        marks.push(key);
      }
      if (n.children?.length) walk(n.children, id, key);
    }
  };
  walk(tree, null, null);
  return { added, marks };
}

/**
 * New menus (bound to every tenant's `tenant-admin` role when tenants may hold them) and new
 * tenant codes (added to every `tenant-admin` role). A fresh install marks everything; its demo
 * tenant is provisioned afterwards. About two queries when nothing is new, six at most.
 */
export async function applyCatalogue(
  tx: Db,
  tree: SeedNode[],
  permissionCodes: Iterable<string>,
  now: Date,
): Promise<CatalogueReport> {
  // one transaction, one query at a time
  const existing = await allMenus(tx);
  const marks = await repo.seedMarks(tx);
  const markedOf = (kind: repo.SeedMark['kind']) => new Set(marks.filter((m) => m.kind === kind).map((m) => m.key));

  const plan = planMenus(tree, existing, markedOf('menu'));
  const ids = await repo.reserveMenuIds(tx, plan.added.length);
  const realId = (id: number) => (id < 0 ? (ids[-id - 1] as number) : id);
  const added = plan.added.map((m) => ({
    ...m,
    id: realId(m.id),
    parentId: m.parentId === null ? null : realId(m.parentId),
  }));
  await repo.insertMenusWithIds(tx, added);
  const addedIds = new Set(added.map((m) => m.id));
  const forTenants = tenantMenus([...existing, ...added]).filter((m) => addedIds.has(m.id));
  await repo.bindMenusToTenantRoles(
    tx,
    TENANT_ADMIN_ROLE,
    forTenants.map((m) => m.id),
  );

  const markedCodes = markedOf('permission');
  const newCodes = [...new Set(permissionCodes)].filter((c) => !isPlatformCode(c) && !markedCodes.has(c)).sort();
  await repo.grantToTenantRoles(tx, TENANT_ADMIN_ROLE, newCodes, now);

  await repo.insertSeedMarks(tx, [
    ...plan.marks.map((key) => ({ kind: 'menu' as const, key })),
    ...newCodes.map((key) => ({ kind: 'permission' as const, key })),
  ]);
  return { menusAdded: added.length, codesAdded: newCodes.length };
}
