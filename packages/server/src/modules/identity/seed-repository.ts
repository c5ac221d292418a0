import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { intArray } from '../../platform/db/sql.ts';
import { PLATFORM_TENANT_ID } from '../../platform/db/tenant-key.ts';
import type { MenuValues } from './menus-repository.ts';
import { identitySeedMarks, menus, roleMenus, roles, users } from './tables.ts';

/** Queries of the seed: the first start's rows, and what each start applies of the built-in catalogue. */
export type SeedMark = typeof identitySeedMarks.$inferInsert;

export async function platformSuperExists(db: Db): Promise<boolean> {
  const [existing] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.tenantId, PLATFORM_TENANT_ID), eq(users.isSuper, true)))
    .limit(1);
  return existing !== undefined;
}

/** The password hash of the platform administrator of that name, or null when there is none. */
export async function platformUserPasswordHash(db: Db, username: string): Promise<string | null> {
  const [row] = await db
    .select({ hash: users.passwordHash })
    .from(users)
    .where(and(eq(users.tenantId, PLATFORM_TENANT_ID), eq(users.username, username)))
    .limit(1);
  return row?.hash ?? null;
}

export async function insertPlatformSuper(db: Db, username: string, passwordHash: string) {
  await db.insert(users).values({
    tenantId: PLATFORM_TENANT_ID,
    username,
    passwordHash,
    nickname: 'Platform administrator',
    isSuper: true,
  });
}

export function seedMarks(db: Db): Promise<SeedMark[]> {
  return db.select({ kind: identitySeedMarks.kind, key: identitySeedMarks.key }).from(identitySeedMarks);
}

export async function insertSeedMarks(db: Db, marks: SeedMark[]): Promise<void> {
  if (marks.length) await db.insert(identitySeedMarks).values(marks).onConflictDoNothing();
}

/** `n` ids from the menus' sequence: a batch of new nodes can name its parents before one insert. */
export async function reserveMenuIds(db: Db, n: number): Promise<number[]> {
  if (n === 0) return [];
  const rows = await db
    .select({ id: sql<number>`nextval(pg_get_serial_sequence('menus', 'id'))::int` })
    .from(sql`generate_series(1, ${n})`);
  return rows.map((r) => r.id);
}

export async function insertMenusWithIds(db: Db, rows: (MenuValues & { id: number })[]): Promise<void> {
  if (rows.length) await db.insert(menus).values(rows);
}

/** Binds the menus to every tenant's role of that code, keeping the bindings it has. */
export async function bindMenusToTenantRoles(db: Db, roleCode: string, menuIds: number[]): Promise<void> {
  if (!menuIds.length) return;
  await db
    .insert(roleMenus)
    .select(
      db
        .select({ tenantId: roles.tenantId, roleId: roles.id, menuId: sql<number>`m.id`.as('menu_id') })
        .from(roles)
        .crossJoin(sql`unnest(${intArray(menuIds)}) as m(id)`)
        .where(and(eq(roles.code, roleCode), ne(roles.tenantId, PLATFORM_TENANT_ID))),
    )
    .onConflictDoNothing();
}

/**
 * Adds the codes to every tenant's role of that code in one statement: deduplicated and sorted
 * by code point, as a role is created (byte order, whatever the database's collation).
 */
export async function grantToTenantRoles(db: Db, roleCode: string, codes: string[], now: Date): Promise<void> {
  if (!codes.length) return;
  await db
    .update(roles)
    .set({
      permissions: sql`array(select distinct u.c collate "C" from unnest(${roles.permissions} || ${sql.param(codes)}::text[]) as u(c) order by 1)`,
      updatedAt: now,
    })
    .where(and(eq(roles.code, roleCode), ne(roles.tenantId, PLATFORM_TENANT_ID)));
}
