import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { onUniqueViolation } from '../../platform/db/sql.ts';
import { identityErrors } from './errors.ts';
import type { Position, PositionQuery } from './positions-repository.ts';
import * as repo from './positions-repository.ts';

/** Positions (job titles) of a tenant; the code is unique per tenant. */
type TenantScope = Pick<Scope, 'tenantId'>;
type Status = 'active' | 'disabled';

export type PositionCreate = { code: string; name: string; sort?: number; status?: Status; remark?: string };
export type PositionUpdate = Partial<PositionCreate>;

/** The unique constraint decides (no check-then-insert race); its violation is a 409 naming `code`. */
const uniqueCode = <T>(write: () => Promise<T>) =>
  onUniqueViolation(write, () => identityErrors.conflict('position', 'code'));

export function createPositionsService({ db, clock }: Pick<AppContext, 'db' | 'clock'>) {
  return {
    list: (scope: TenantScope, q: PositionQuery) => repo.listPositions(db, scope, q),

    async get(scope: TenantScope, id: number): Promise<Position> {
      const row = await repo.positionsTable.findById(db, scope, id);
      if (!row) throw identityErrors.notFound('position');
      return row;
    },

    create: (scope: TenantScope, input: PositionCreate): Promise<Position> =>
      uniqueCode(() =>
        repo.positionsTable.insert(db, scope, {
          code: input.code,
          name: input.name,
          sort: input.sort ?? 0,
          status: input.status ?? 'active',
          remark: input.remark ?? '',
        }),
      ),

    async update(scope: TenantScope, id: number, input: PositionUpdate) {
      const row = await uniqueCode(() => repo.positionsTable.update(db, scope, id, { ...input, updatedAt: clock() }));
      if (!row) throw identityErrors.notFound('position');
      return row;
    },

    /** Deletes positions all or nothing: one id outside the caller's tenant and none is deleted. */
    async removeMany(scope: TenantScope, ids: number[]) {
      const affected = await db.transaction(async (tx) => {
        const deleted = await repo.positionsTable.deleteMany(tx, scope, ids);
        const missing = ids.filter((id) => !deleted.includes(id));
        if (missing.length) throw identityErrors.notFoundIds('position', missing);
        return ids;
      });
      return { affected };
    },

    async remove(scope: TenantScope, id: number): Promise<void> {
      const [deleted] = await repo.positionsTable.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw identityErrors.notFound('position');
    },
  };
}

export type PositionsService = ReturnType<typeof createPositionsService>;
