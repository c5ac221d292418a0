import { ilike, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/** PostgreSQL error code of a failed statement, whether raised directly or wrapped by Drizzle. */
function pgCode(err: unknown): unknown {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.cause?.code ?? e?.code;
}

/** 23505: a unique constraint refused the row (map it to 409, never check-then-insert). */
export function isUniqueViolation(err: unknown): boolean {
  return pgCode(err) === '23505';
}

/** The name of the constraint a statement violated (drivers put it on the error or its cause). */
export function constraintOf(err: unknown): string {
  const e = err as { constraint?: string; message?: string; cause?: { constraint?: string; message?: string } } | null;
  return e?.cause?.constraint ?? e?.constraint ?? e?.cause?.message ?? e?.message ?? '';
}

/**
 * Runs a write and turns a unique violation into the domain's 409: `conflict` gets the violated
 * constraint's name, for tables with more than one unique index (name, one default).
 */
export async function onUniqueViolation<T>(
  work: Promise<T> | (() => Promise<T>),
  conflict: (constraint: string) => Error,
): Promise<T> {
  try {
    return await (typeof work === 'function' ? work() : work);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(constraintOf(err));
    throw err;
  }
}

/** The row a lookup found, or the domain's not-found error (a row of another tenant is not found either). */
export async function rowOrThrow<T>(lookup: Promise<T | null | undefined>, notFound: () => Error): Promise<T> {
  const row = await lookup;
  if (row === null || row === undefined) throw notFound();
  return row;
}

/** 23503 (a referenced row vanished meanwhile) or 23001 (ON DELETE RESTRICT: the row is still referenced). */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = pgCode(err);
  return code === '23503' || code === '23001';
}

/** `column ILIKE '%text%'` with the LIKE wildcards of `text` taken literally. */
export function contains(column: PgColumn, text: string): SQL {
  return ilike(column, `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
}

/** A list of integers as one `int[]` parameter (`col = any(${intArray(ids)})`, `${intArray(ids)} || col`). */
export function intArray(ids: readonly number[]): SQL {
  return sql`${`{${ids.join(',')}}`}::int[]`;
}

/**
 * The UTC calendar day of a timestamptz column as `YYYY-MM-DD`, whatever the session's time zone.
 * No parameters in it, so the same expression can be selected and grouped by.
 */
export function utcDay(column: PgColumn): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`;
}
