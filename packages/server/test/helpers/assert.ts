import { count, eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** Asserts the error contract: status, `error` key and, when given, a `details` entry for the field. */
export function expectError(res: LightMyRequestResponse, status: number, error: string, field?: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error).toBe(error);
  if (field) expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
}

/** Rows in a table: "nothing written" is the same count before and after. */
export async function rowCount(t: TestApp, table: PgTable): Promise<number> {
  const [r] = await t.database.db.select({ n: count() }).from(table);
  return Number(r?.n);
}

/** One row by id, straight from the database. */
export async function rowById<T extends PgTable & { id: PgColumn }>(t: TestApp, table: T, id: number) {
  const [r] = await t.database.db
    .select()
    .from(table as PgTable)
    .where(eq(table.id, id));
  return r as T['$inferSelect'] | undefined;
}

/** Creates a resource through the API, asserting 201; returns its id. */
export async function createVia(
  t: TestApp,
  url: string,
  token: string,
  body: object,
  tenantId?: number,
): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url,
    payload: body,
    headers: {
      authorization: `Bearer ${token}`,
      ...(tenantId !== undefined ? { 'x-tenant-id': String(tenantId) } : {}),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

/** The `field` of every entry in an error's `details`. */
export const fieldsOf = (res: { json(): { details?: { field: string }[] } }) =>
  (res.json().details ?? []).map((d) => d.field);

/** Polls until `check` holds; pub/sub reaches the other instance within milliseconds, not at once. */
export async function eventually(check: () => Promise<boolean>, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}
