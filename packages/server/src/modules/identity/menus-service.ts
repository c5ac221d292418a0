import { and, asc, eq, isNull, notExists } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Static } from 'typebox';
import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { type FieldError, httpErrors } from '../../platform/http/errors.ts';
import { identityErrors } from './errors.ts';
import { buildTree } from './menu-tree.ts';
import type { MenuCreateBody, MenuUpdateBody } from './schemas.ts';
import type { Sessions } from './sessions.ts';
import { menus } from './tables.ts';

type MenuRow = typeof menus.$inferSelect;

/** `platform:*` codes are held only by platform roles (docs/decisions/0005). */
export function isPlatformCode(code: string | null | undefined): boolean {
  return typeof code === 'string' && code.startsWith('platform:');
}

/** Tenants and menu writes belong to platform users acting at platform scope (docs/decisions/0002). */
export function assertPlatformScope(scope: Scope): void {
  if (scope.principal?.kind !== 'user' || scope.principal.tenantId !== null || scope.tenantId !== null) {
    throw identityErrors.platformScopeRequired();
  }
}

/** Hidden nodes without a code are personal pages (profile, notification center): every role shows them. */
export async function personalMenuIds(db: Db): Promise<number[]> {
  const rows = await db
    .select({ id: menus.id })
    .from(menus)
    .where(and(eq(menus.hidden, true), isNull(menus.permission)));
  return rows.map((r) => r.id);
}

/**
 * The nodes a tenant may hold: every node whose code is not platform-only, with its ancestors;
 * a directory holding only platform nodes (Platform) is left out.
 */
export function tenantMenus(all: MenuRow[]): MenuRow[] {
  const byId = new Map(all.map((m) => [m.id, m]));
  const parents = new Set(all.map((m) => m.parentId));
  const keep = new Set<number>();
  for (const m of all) {
    const leafLike = m.type !== 'directory' || !parents.has(m.id);
    if (!leafLike || isPlatformCode(m.permission)) continue;
    for (
      let n: MenuRow | undefined = m;
      n && !keep.has(n.id) && !isPlatformCode(n.permission);
      n = n.parentId === null ? undefined : byId.get(n.parentId)
    ) {
      keep.add(n.id);
    }
  }
  return all.filter((m) => keep.has(m.id));
}

export async function tenantMenuIds(db: Db): Promise<number[]> {
  return tenantMenus(await db.select().from(menus)).map((m) => m.id);
}

/** The platform-wide menu tree; a tenant caller sees the part tenants may hold. */
export function createMenusService(ctx: AppContext, sessions: Sessions) {
  const { db, clock } = ctx;

  async function visible(scope: Scope): Promise<MenuRow[]> {
    const all = await db.select().from(menus).orderBy(asc(menus.sort), asc(menus.id));
    return scope.tenantId === null ? all : tenantMenus(all);
  }

  async function find(id: number): Promise<MenuRow | null> {
    const [m] = await db.select().from(menus).where(eq(menus.id, id)).limit(1);
    return m ?? null;
  }

  /** The rules of a node after the change: `id` is absent for a new node. */
  async function assertShape(
    m: { type: MenuRow['type']; permission: string | null; parentId: number | null },
    id?: number,
  ) {
    const details: FieldError[] = [];
    if (m.type === 'button' && !m.permission)
      details.push({ field: 'permission', message: 'a button needs a permission code' });
    if (id !== undefined && m.type === 'button') {
      const [child] = await db.select({ id: menus.id }).from(menus).where(eq(menus.parentId, id)).limit(1);
      if (child) details.push({ field: 'type', message: 'a node with children cannot be a button' });
    }
    if (m.parentId !== null) {
      const parent = await find(m.parentId);
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
    const all = await db.select({ id: menus.id, parentId: menus.parentId }).from(menus);
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
      const [row] = await db.insert(menus).values(values).returning();
      await sessions.invalidatePermissions();
      return row as MenuRow;
    },

    async update(scope: Scope, id: number, input: Static<typeof MenuUpdateBody>) {
      assertPlatformScope(scope);
      const current = await load(scope, id);
      await assertShape({ ...current, ...input }, id);
      const [row] = await db
        .update(menus)
        .set({ ...input, updatedAt: clock() })
        .where(eq(menus.id, id))
        .returning();
      await sessions.invalidatePermissions();
      return row as MenuRow;
    },

    async remove(scope: Scope, id: number) {
      assertPlatformScope(scope);
      await load(scope, id);
      // One conditional statement: a child added meanwhile cannot be orphaned. role_menus rows
      // cascade, so the codes the node carried leave every role at once.
      const child = alias(menus, 'child');
      const deleted = await db
        .delete(menus)
        .where(and(eq(menus.id, id), notExists(db.select({ id: child.id }).from(child).where(eq(child.parentId, id)))))
        .returning({ id: menus.id });
      if (!deleted.length) throw identityErrors.menuHasChildren();
      await sessions.invalidatePermissions();
      return { affected: deleted.map((d) => d.id) };
    },
  };
}

export type MenusService = ReturnType<typeof createMenusService>;
