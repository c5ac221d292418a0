import { ilike, type SQL } from 'drizzle-orm';
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

/** 23503 (a referenced row vanished meanwhile) or 23001 (ON DELETE RESTRICT: the row is still referenced). */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = pgCode(err);
  return code === '23503' || code === '23001';
}

/** `column ILIKE '%text%'` with the LIKE wildcards of `text` taken literally. */
export function contains(column: PgColumn, text: string): SQL {
  return ilike(column, `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
}
