import type { Static } from 'typebox';
import { assertPlatformScope, type Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { type FieldError, httpErrors } from '../../platform/http/errors.ts';
import { identityErrors } from './errors.ts';
import { buildTree } from './menu-tree.ts';
import type { MenuRow } from './menus-repository.ts';
import * as repo from './menus-repository.ts';
import type { MenuCreateBody, MenuUpdateBody } from './schemas.ts';
import type { Sessions } from './sessions.ts';

/** `platform:*` codes are held only by platform roles (docs/decisions/0005). */
export function isPlatformCode(code: string | null | undefined): boolean {
  return typeof code === 'string' && code.startsWith('platform:');
}

/**
 * The nodes a tenant may hold: every node whose code is not platform-only, with its ancestors;
 * a directory holding only platform nodes (Platform) is left out.
 */
export function tenantMenus<M extends Pick<MenuRow, 'id' | 'parentId' | 'type' | 'permission'>>(all: M[]): M[] {
  const byId = new Map(all.map((m) => [m.id, m]));
  const parents = new Set(all.map((m) => m.parentId));
  const keep = new Set<number>();
  for (const m of all) {
    const leafLike = m.type !== 'directory' || !parents.has(m.id);
    if (!leafLike || isPlatformCode(m.permission)) continue;
    for (
      let n: M | undefined = m;
      n && !keep.has(n.id) && !isPlatformCode(n.permission);
      n = n.parentId === null ? undefined : byId.get(n.parentId)
    ) {
      keep.add(n.id);
    }
  }
  return all.filter((m) => keep.has(m.id));
}

export async function tenantMenuIds(db: Db): Promise<number[]> {
  return tenantMenus(await repo.allMenus(db)).map((m) => m.id);
}

/** The platform-wide menu tree; a tenant caller sees the part tenants may hold. */
export function createMenusService({ db, clock, sessions }: Pick<AppContext, 'db' | 'clock'> & { sessions: Sessions }) {
  async function visible(scope: Scope): Promise<MenuRow[]> {
    const all = await repo.allMenus(db);
    return scope.tenantId === null ? all : tenantMenus(all);
  }

  /** The rules of a node after the change: `id` is absent for a new node. */
  async function assertShape(
    m: { type: MenuRow['type']; permission: string | null; parentId: number | null },
    id?: number,
  ) {
    const details: FieldError[] = [];
    if (m.type === 'button' && !m.permission)
      details.push({ field: 'permission', message: 'a button needs a permission code' });
    if (id !== undefined && m.type === 'button' && (await repo.hasChildMenus(db, id)))
      details.push({ field: 'type', message: 'a node with children cannot be a button' });
    if (m.parentId !== null) {
      const parent = await repo.findMenu(db, m.parentId);
      if (!parent) details.push({ field: 'parentId', message: `menu ${m.parentId} does not exist` });
      else if (parent.type === 'button') details.push({ field: 'parentId', message: 'a button cannot have children' });
      else if (id !== undefined && (await isSelfOrDescendant(m.parentId, id))) {
        details.push({ field: 'parentId', message: 'cannot move a menu under itself or its descendants' });
      }
    }
    if (details.length) throw httpErrors.validation(details);
  }

  /** Walks up from `nodeId`; true when it meets `ancestorId` (bounded: a corrupt loop stops). */
  async function isSelfOrDescendant(nodeId: number, ancestorId: number): Promise<boolean> {
    const all = await repo.menuParents(db);
    const parentOf = new Map(all.map((m) => [m.id, m.parentId]));
    let cur: number | null | undefined = nodeId;
    for (let steps = 0; cur != null && steps <= all.length; steps++) {
      if (cur === ancestorId) return true;
      cur = parentOf.get(cur);
    }
    return false;
  }

  async function load(scope: Scope, id: number): Promise<MenuRow> {
    const m = (await visible(scope)).find((x) => x.id === id);
    if (!m) throw identityErrors.notFound('menu');
    return m;
  }

  return {
    async tree(scope: Scope) {
      return buildTree(await visible(scope));
    },

    get: load,

    async create(scope: Scope, input: Static<typeof MenuCreateBody>) {
      assertPlatformScope(scope);
      const values = { ...input, parentId: input.parentId ?? null, permission: input.permission ?? null };
      await assertShape(values);
      const row = await repo.insertMenu(db, values);
      await sessions.invalidatePermissions();
      return row;
    },

    async update(scope: Scope, id: number, input: Static<typeof MenuUpdateBody>) {
      assertPlatformScope(scope);
      const current = await load(scope, id);
      await assertShape({ ...current, ...input }, id);
      const row = await repo.updateMenu(db, id, { ...input, updatedAt: clock() });
      await sessions.invalidatePermissions();
      return row as MenuRow;
    },

    async remove(scope: Scope, id: number) {
      assertPlatformScope(scope);
      await load(scope, id);
      // role_menus rows cascade, so the codes the node carried leave every role at once.
      const affected = await repo.deleteLeafMenu(db, id);
      if (!affected.length) throw identityErrors.menuHasChildren();
      await sessions.invalidatePermissions();
      return { affected };
    },
  };
}

export type MenusService = ReturnType<typeof createMenusService>;
