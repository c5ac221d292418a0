import { and, asc, eq, inArray, isNull, notExists } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../platform/db/client.ts';
import { menus } from './tables.ts';

/** Queries of the platform-wide menu tree (not tenant-owned: one tree, filtered per caller). */
export type MenuRow = typeof menus.$inferSelect;
export type MenuValues = typeof menus.$inferInsert;

/** Every node, in display order. */
export function allMenus(db: Db): Promise<MenuRow[]> {
  return db.select().from(menus).orderBy(asc(menus.sort), asc(menus.id));
}

export function activeMenus(db: Db): Promise<MenuRow[]> {
  return db.select().from(menus).where(eq(menus.status, 'active'));
}

export async function findMenu(db: Db, id: number): Promise<MenuRow | null> {
  const [m] = await db.select().from(menus).where(eq(menus.id, id)).limit(1);
  return m ?? null;
}

export function findMenusByIds(db: Db, ids: number[]) {
  return db.select({ id: menus.id, permission: menus.permission }).from(menus).where(inArray(menus.id, ids));
}

export async function hasChildMenus(db: Db, id: number): Promise<boolean> {
  const [child] = await db.select({ id: menus.id }).from(menus).where(eq(menus.parentId, id)).limit(1);
  return child !== undefined;
}

/** The parent of every node (for walking up the tree). */
export function menuParents(db: Db) {
  return db.select({ id: menus.id, parentId: menus.parentId }).from(menus);
}

/** Hidden nodes without a code: personal pages (profile, notification center). */
export async function personalMenuIds(db: Db): Promise<number[]> {
  const rows = await db
    .select({ id: menus.id })
    .from(menus)
    .where(and(eq(menus.hidden, true), isNull(menus.permission)));
  return rows.map((r) => r.id);
}

export async function anyMenu(db: Db): Promise<boolean> {
  const [any] = await db.select({ id: menus.id }).from(menus).limit(1);
  return any !== undefined;
}

export async function insertMenu(db: Db, values: MenuValues): Promise<MenuRow> {
  const [row] = await db.insert(menus).values(values).returning();
  if (!row) throw new Error('menu insert returned nothing');
  return row;
}

export async function updateMenu(db: Db, id: number, values: Partial<MenuValues>): Promise<MenuRow | null> {
  const [row] = await db.update(menus).set(values).where(eq(menus.id, id)).returning();
  return row ?? null;
}

/**
 * Deletes a node only if it has no children, in one conditional statement: a child added
 * meanwhile cannot be orphaned. Returns the ids deleted (none when it has children).
 */
export async function deleteLeafMenu(db: Db, id: number): Promise<number[]> {
  const child = alias(menus, 'child');
  const deleted = await db
    .delete(menus)
    .where(and(eq(menus.id, id), notExists(db.select({ id: child.id }).from(child).where(eq(child.parentId, id)))))
    .returning({ id: menus.id });
  return deleted.map((d) => d.id);
}
