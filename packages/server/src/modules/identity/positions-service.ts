import { and, desc, eq, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains, onUniqueViolation } from '../../platform/db/sql.ts';
import { identityErrors } from './errors.ts';
import { positions } from './tables.ts';

/** Positions (job titles) of a tenant; the code is unique per tenant. */
type TenantScope = Pick<Scope, 'tenantId'>;
type Status = 'active' | 'disabled';

const tenantPositions = scoped(positions);

export type Position = typeof positions.$inferSelect;
export type PositionCreate = { code: string; name: string; sort?: number; status?: Status; remark?: string };
export type PositionUpdate = Partial<PositionCreate>;
export type PositionQuery = PageRequest & { keyword?: string; status?: Status };

export async function listPositions(db: Db, scope: TenantScope, q: PositionQuery) {
  const conds: SQL[] = [];
  if (q.keyword) conds.push(or(contains(positions.code, q.keyword), contains(positions.name, q.keyword)) as SQL);
  if (q.status) conds.push(eq(positions.status, q.status));
  return tenantPositions.page(db, scope, q, conds.length ? and(...conds) : undefined, desc(positions.id));
}

export async function getPosition(db: Db, scope: TenantScope, id: number): Promise<Position> {
  const row = await tenantPositions.findById(db, scope, id);
  if (!row) throw identityErrors.notFound('position');
  return row;
}

export async function createPosition(db: Db, scope: TenantScope, input: PositionCreate): Promise<Position> {
  return uniqueCode(() =>
    tenantPositions.insert(db, scope, {
      code: input.code,
      name: input.name,
      sort: input.sort ?? 0,
      status: input.status ?? 'active',
      remark: input.remark ?? '',
    }),
  );
}

export async function updatePosition(db: Db, scope: TenantScope, id: number, input: PositionUpdate, now: Date) {
  const row = await uniqueCode(() => tenantPositions.update(db, scope, id, { ...input, updatedAt: now }));
  if (!row) throw identityErrors.notFound('position');
  return row;
}

/** Deletes positions all or nothing: one id outside the caller's tenant and none is deleted. */
export async function deletePositions(db: Db, scope: TenantScope, ids: number[]): Promise<number[]> {
  return db.transaction(async (tx) => {
    const deleted = await tenantPositions.deleteMany(tx, scope, ids);
    const missing = ids.filter((id) => !deleted.includes(id));
    if (missing.length) throw identityErrors.notFoundIds('position', missing);
    return ids;
  });
}

export async function deletePosition(db: Db, scope: TenantScope, id: number): Promise<void> {
  const [deleted] = await tenantPositions.deleteMany(db, scope, [id]);
  if (deleted === undefined) throw identityErrors.notFound('position');
}

/** The unique constraint decides (no check-then-insert race); its violation is a 409 naming `code`. */
const uniqueCode = <T>(write: () => Promise<T>) =>
  onUniqueViolation(write, () => identityErrors.conflict('position', 'code'));
