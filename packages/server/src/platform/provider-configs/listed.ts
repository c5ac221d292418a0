import type { SQL } from 'drizzle-orm';
import type { Scope } from '../auth/principal.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import type { PageRequest } from '../db/scoped.ts';
import { isForeignKeyViolation, onUniqueViolation, rowOrThrow } from '../db/sql.ts';
import { type ListedConfigTable, listedConfigRepository } from './repository.ts';
import { configSecret, redacted } from './secret.ts';

/** The domain errors a listed configuration raises (each module keeps its own keys). */
export type ListedConfigErrors = {
  notFound: () => Error;
  nameExists: () => Error;
  /** another default was set at the same time (the partial unique index refused the second) */
  defaultConflict: () => Error;
  /** a disabled configuration cannot be the default */
  disabled: () => Error;
  /** the default cannot be deleted (while others exist, with `deleteDefault: 'when-last'`) */
  defaultNotDeletable: () => Error;
  /** rows of the module still reference it (ON DELETE RESTRICT) */
  inUse: () => Error;
};

export type ListedConfigSpec<
  T extends ListedConfigTable,
  K extends keyof T['$inferSelect'] & string,
  F extends string,
> = {
  table: T;
  secret: { table: string; column: string; key: K; flag: F };
  errors: ListedConfigErrors;
  /** the first active configuration of a scope becomes its default */
  firstIsDefault: boolean;
  /** 'never': a default is never deleted; 'when-last': only when it is the scope's last configuration */
  deleteDefault: 'never' | 'when-last';
};

type Insert<T extends ListedConfigTable, K extends string> = Omit<
  T['$inferInsert'],
  'id' | 'tenantId' | 'isDefault' | 'createdAt' | 'updatedAt' | K
>;

/**
 * Several configurations per scope with exactly one default, in a module's own table (see index.ts).
 * Writes map the table's unique indexes to the module's 409s; the secret is written once the row
 * id exists, since the id is part of its encryption context.
 */
export function createListedConfigs<
  T extends ListedConfigTable,
  K extends keyof T['$inferSelect'] & string,
  F extends string,
>(ctx: Pick<AppContext, 'db' | 'clock' | 'secrets'>, spec: ListedConfigSpec<T, K, F>) {
  type Row = T['$inferSelect'] & { id: number; isDefault: boolean; status: 'active' | 'disabled' };
  const { db, clock } = ctx;
  const { errors } = spec;
  const repo = listedConfigRepository(spec.table);
  const secret = configSecret<Row, K, F>(ctx.secrets, spec.secret);
  const conflict = (constraint: string) =>
    constraint.includes('one_default') ? errors.defaultConflict() : errors.nameExists();
  const find = (tx: Db, scope: Pick<Scope, 'tenantId'>, id: number) =>
    rowOrThrow(repo.findById(tx, scope, id) as Promise<Row | null>, errors.notFound);

  return {
    repo,
    find: (scope: Pick<Scope, 'tenantId'>, id: number) => find(db, scope, id),
    mask: secret.mask,
    openSecret: secret.open,

    async page(scope: Scope, q: PageRequest, filter?: SQL) {
      const page = await repo.page(db, scope, q, filter);
      return { ...page, list: (page.list as Row[]).map(secret.mask) };
    },

    async create(scope: Scope, values: Insert<T, K>, opts: { isDefault?: boolean; secret?: string }): Promise<Row> {
      const active = (values as { status?: string }).status !== 'disabled';
      if (opts.isDefault && !active) throw errors.disabled();
      return onUniqueViolation(
        db.transaction(async (tx) => {
          const now = clock();
          const isDefault =
            active && (opts.isDefault === true || (spec.firstIsDefault && !(await repo.hasDefault(tx, scope))));
          if (isDefault) await repo.unsetOtherDefaults(tx, scope, null, now);
          const created = (await repo.insert(tx, scope, {
            ...values,
            isDefault,
            createdAt: now,
            updatedAt: now,
          } as never)) as Row;
          if (opts.secret === undefined) return created;
          const sealed = { [spec.secret.key]: secret.seal(created.id, opts.secret) };
          return ((await repo.update(tx, scope, created.id, sealed as never)) as Row | null) ?? created;
        }),
        conflict,
      );
    },

    /** Omitted fields are kept; an omitted secret is kept. */
    async update(scope: Scope, id: number, values: Partial<Insert<T, K>>, newSecret?: string): Promise<Row> {
      const sealed = newSecret === undefined ? {} : { [spec.secret.key]: secret.seal(id, newSecret) };
      const row = await onUniqueViolation(
        repo.update(db, scope, id, { ...values, ...sealed, updatedAt: clock() } as never) as Promise<Row | null>,
        conflict,
      );
      if (!row) throw errors.notFound();
      return row;
    },

    async remove(scope: Scope, id: number): Promise<void> {
      try {
        await db.transaction(async (tx) => {
          const row = await find(tx, scope, id);
          const lastOne = spec.deleteDefault === 'when-last' && (await repo.countOthers(tx, scope, id)) === 0;
          if (row.isDefault && !lastOne) throw errors.defaultNotDeletable();
          await repo.deleteMany(tx, scope, [id]);
        });
      } catch (err) {
        if (isForeignKeyViolation(err)) throw errors.inUse();
        throw err;
      }
    },

    /**
     * Makes one configuration the default: the old default is cleared and the new one set in one
     * transaction; two at once cannot both win, the partial unique index refuses the second.
     */
    async makeDefault(scope: Scope, id: number): Promise<Row> {
      const row = await onUniqueViolation(
        db.transaction(async (tx) => {
          const target = await find(tx, scope, id);
          if (target.status !== 'active') throw errors.disabled();
          const now = clock();
          await repo.unsetOtherDefaults(tx, scope, id, now);
          return repo.update(tx, scope, id, { isDefault: true, updatedAt: now } as never) as Promise<Row | null>;
        }),
        conflict,
      );
      if (!row) throw errors.notFound();
      return row;
    },

    /**
     * The connection-test hook: `connect` tries the configuration with its secret in clear and
     * answers a note (or null); whatever it throws is answered as the failure, the secret blanked out.
     */
    async test(
      scope: Scope,
      id: number,
      connect: (row: Row, secret: string | null) => Promise<string | null>,
      describe: (err: unknown) => string = (err) => (err instanceof Error ? err.message : String(err)),
    ): Promise<{ ok: boolean; message: string | null }> {
      const row = await find(db, scope, id);
      let clear: string | null;
      try {
        clear = secret.open(row);
      } catch {
        return { ok: false, message: 'The stored secret cannot be decrypted (was its key removed?); save a new one' };
      }
      try {
        return { ok: true, message: await connect(row, clear) };
      } catch (err) {
        return { ok: false, message: redacted(describe(err), clear) };
      }
    },
  };
}
