import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { onUniqueViolation, rowOrThrow } from '../../platform/db/sql.ts';
import * as repo from './config-repository.ts';
import { systemErrors } from './errors.ts';

export type SystemConfigInput = { key: string; value: string; name: string; remark?: string };

/** System configuration entries: key/value pairs per tenant, with platform values as the fallback. */
export function createConfigService(ctx: AppContext) {
  const { db, clock } = ctx;

  const configOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.configs.findById(db, scope, id), () => systemErrors.notFound('config'));

  const write = <T>(fn: () => Promise<T>) => onUniqueViolation(fn, () => systemErrors.conflict('config', 'key'));

  return {
    list: (scope: Scope, q: Parameters<typeof repo.pageConfigs>[2]) => repo.pageConfigs(db, scope, q),
    get: configOrThrow,
    create: (scope: Scope, input: SystemConfigInput) => write(() => repo.configs.insert(db, scope, input)),

    async update(scope: Scope, id: number, patch: Partial<SystemConfigInput>) {
      const current = await configOrThrow(scope, id);
      if (Object.keys(patch).length === 0) return current;
      // Code reads built-in entries by key: their key stays.
      if (current.builtin && patch.key !== undefined && patch.key !== current.key)
        throw systemErrors.configBuiltin('key');
      const row = await write(() => repo.configs.update(db, scope, id, { ...patch, updatedAt: clock() }));
      if (!row) throw systemErrors.notFound('config');
      return row;
    },

    async remove(scope: Scope, id: number) {
      if (await repo.deleteUnlessBuiltin(db, scope, id)) return;
      await configOrThrow(scope, id);
      throw systemErrors.configBuiltin();
    },

    /** The value of a key: the tenant's own entry wins, the platform's is the fallback. */
    async valueOf(scope: Scope, key: string) {
      if (scope.tenantId !== null) {
        const own = await repo.findByKey(db, scope, key);
        if (own) return { key, value: own.value, level: 'tenant' as const };
      }
      const platform = await repo.findByKey(db, { tenantId: null }, key);
      if (platform) return { key, value: platform.value, level: 'platform' as const };
      throw systemErrors.notFound('config');
    },
  };
}

export type ConfigService = ReturnType<typeof createConfigService>;
