import type { Scope } from '../auth/principal.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { isUniqueViolation } from '../db/sql.ts';
import { type ConfigTable, singleConfigRepository } from './repository.ts';
import { configSecret } from './secret.ts';

type Insert<T extends ConfigTable, K extends string> = Omit<
  T['$inferInsert'],
  'id' | 'tenantId' | 'createdAt' | 'updatedAt' | K
>;

/** What a save writes: the fields, and the secret (a string to store, null to clear, omitted to keep). */
export type SingleConfigWrite<T extends ConfigTable, K extends string> = {
  values: Insert<T, K>;
  secret?: string | null;
};

/**
 * One configuration per scope, in a module's own table (see index.ts); the platform's row serves
 * tenants without their own. `save` hands the current row to `decide` (which checks the input
 * against it) and writes what it answers, in one transaction.
 */
export function createSingleConfigs<
  T extends ConfigTable,
  K extends keyof T['$inferSelect'] & string,
  F extends string,
>(
  ctx: Pick<AppContext, 'db' | 'clock' | 'secrets'>,
  spec: { table: T; secret: { table: string; column: string; key: K; flag: F } },
) {
  type Row = T['$inferSelect'] & { id: number };
  const { db, clock } = ctx;
  const repo = singleConfigRepository(spec.table);
  const secret = configSecret<Row, K, F>(ctx.secrets, spec.secret);

  const saveOnce = (scope: Scope, decide: (current: Row | null) => SingleConfigWrite<T, K>) =>
    db.transaction(async (tx: Db) => {
      const current = (await repo.own(tx, scope.tenantId)) as Row | null;
      const { values, secret: plain } = decide(current);
      const now = clock();
      const fields = { ...values, ...(plain === null ? { [spec.secret.key]: null } : {}), updatedAt: now };
      // (a row deleted meanwhile is created again)
      const row = ((current && (await repo.update(tx, scope, current.id, fields as never))) ??
        (await repo.insert(tx, scope, { ...fields, createdAt: now } as never))) as Row;
      if (typeof plain !== 'string') return row;
      const sealed = { [spec.secret.key]: secret.seal(row.id, plain) };
      return ((await repo.update(tx, scope, row.id, sealed as never)) as Row | null) ?? row;
    });

  return {
    repo,
    mask: secret.mask,
    openSecret: secret.open,
    own: (tenantId: number | null) => repo.own(db, tenantId) as Promise<Row | null>,
    effective: (tenantId: number | null) => repo.effective(db, tenantId) as Promise<Row | null>,

    async save(scope: Scope, decide: (current: Row | null) => SingleConfigWrite<T, K>): Promise<Row> {
      try {
        return await saveOnce(scope, decide);
      } catch (err) {
        // two first saves at once: the other one created the row, so this one updates it
        if (isUniqueViolation(err)) return saveOnce(scope, decide);
        throw err;
      }
    },
  };
}
