import { and, eq } from 'drizzle-orm';
import { Value } from 'typebox/value';
import type { Cache } from '../cache/cache.ts';
import { createLocalCache } from '../cache/local-cache.ts';
import type { Db } from '../db/client.ts';
import { platformKey, sameTenantKey } from '../db/tenant-key.ts';
import { AppError, type FieldError } from '../http/errors.ts';
import type { SettingsModule, SettingsRegistry, Visibility } from './registry.ts';
import { settingsValues } from './tables.ts';

export type SettingsStore = ReturnType<typeof createSettingsStore>;

const visibilityRank: Record<Visibility, number> = { public: 0, authenticated: 1, admin: 2 };

type StoredRow = { tenantId: number | null; module: string; values: Record<string, unknown> };

/**
 * Settings are read on every sign-in and many requests, and change rarely: the stored rows of each
 * scope (the platform, one tenant) are kept in the local cache, dropped on every instance when
 * that scope's settings change.
 */
export function createSettingsStore(deps: {
  db: Db;
  registry: SettingsRegistry;
  cache: Pick<Cache, 'publish' | 'subscribe' | 'watch'>;
  clock: () => Date;
}) {
  const { db, registry } = deps;
  const scopeRows = createLocalCache<StoredRow[]>({
    channel: 'settings:changed',
    cache: deps.cache,
    clock: deps.clock,
    load: (key) => rowsOfScope(key === 'platform' ? null : Number(key)),
  });
  const keyOf = (tenantId: number | null) => (tenantId === null ? 'platform' : String(tenantId));

  /** `exec` is the open transaction when called inside one: its rows, and no second connection. */
  function rowsOfScope(tenantId: number | null, exec: Db = db): Promise<StoredRow[]> {
    const scopeCond = sameTenantKey(settingsValues.tenantId, tenantId);
    return exec
      .select({ tenantId: settingsValues.tenantId, module: settingsValues.module, values: settingsValues.values })
      .from(settingsValues)
      .where(scopeCond);
  }

  /** the platform's rows, and the tenant's when there is one */
  async function storedRows(tenantId: number | null): Promise<StoredRow[]> {
    const platform = await scopeRows.get(keyOf(null));
    return tenantId === null ? platform : [...platform, ...(await scopeRows.get(keyOf(tenantId)))];
  }

  function moduleOrThrow(module: string): SettingsModule {
    const mod = registry.get(module);
    if (!mod) throw new AppError(404, 'settings.module_not_found', `No settings module "${module}"`);
    return mod;
  }

  function resolve(mod: SettingsModule, rows: StoredRow[]) {
    const platform = rows.find((r) => r.module === mod.module && r.tenantId === null)?.values ?? {};
    const tenant = rows.find((r) => r.module === mod.module && r.tenantId !== null)?.values ?? {};
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(mod.fields)) {
      if (!field.platformOnly && name in tenant) out[name] = tenant[name];
      else if (name in platform) out[name] = platform[name];
      else out[name] = field.default;
    }
    return out;
  }

  return {
    /** subscribes to other instances' changes; call once at start */
    listen: scopeRows.listen,

    /** Effective values of one module for a tenant (or the platform when tenantId is null). */
    async effective<T = Record<string, unknown>>(module: string, tenantId: number | null): Promise<T> {
      const mod = moduleOrThrow(module);
      return resolve(mod, await storedRows(tenantId)) as T;
    },

    /** Values of every module up to a visibility, for `GET /api/settings/me`. */
    async projected(tenantId: number | null, upTo: Visibility): Promise<Record<string, Record<string, unknown>>> {
      const mods = registry.all();
      const rows = await storedRows(tenantId);
      const out: Record<string, Record<string, unknown>> = {};
      for (const mod of mods) {
        const values = resolve(mod, rows);
        const visible: Record<string, unknown> = {};
        for (const [name, field] of Object.entries(mod.fields)) {
          if (visibilityRank[field.visibility] <= visibilityRank[upTo]) visible[name] = values[name];
        }
        if (Object.keys(visible).length) out[mod.module] = visible;
      }
      return out;
    },

    /**
     * Saves a partial update at the caller's scope. Every field is checked first; one bad field
     * rejects the whole update (nothing written). Values equal to the inherited value are kept
     * sparse: they are removed from the override row.
     */
    async update(module: string, tenantId: number | null, patch: Record<string, unknown>, userId: number | null) {
      const mod = moduleOrThrow(module);
      const details: FieldError[] = [];
      for (const [name, value] of Object.entries(patch)) {
        const field = mod.fields[name];
        if (!field) details.push({ field: name, message: `unknown setting of module ${module}` });
        else if (field.platformOnly && tenantId !== null)
          details.push({ field: name, message: 'can only be set at platform level' });
        else if (!Value.Check(field.schema, value)) {
          const first = Value.Errors(field.schema, value)[0];
          details.push({ field: name, message: first?.message ?? 'invalid value' });
        }
      }
      if (details.length)
        throw new AppError(400, 'request.validation_failed', 'The request has invalid fields', { details });

      await db.transaction(async (tx) => {
        const scopeCond = sameTenantKey(settingsValues.tenantId, tenantId);
        const [row] = await tx
          .select()
          .from(settingsValues)
          .where(and(eq(settingsValues.module, module), scopeCond))
          .for('update');
        const next = { ...(row?.values ?? {}), ...patch };
        if (tenantId !== null) {
          // Sparse tenant overrides: drop what equals the platform value it would inherit.
          const inherited = resolve(mod, await rowsOfScope(null, tx));
          for (const k of Object.keys(next))
            if (JSON.stringify(next[k]) === JSON.stringify(inherited[k])) delete next[k];
        }
        if (row) {
          await tx
            .update(settingsValues)
            .set({ values: next, updatedAt: new Date(), updatedBy: userId })
            .where(eq(settingsValues.id, row.id));
        } else {
          await tx
            .insert(settingsValues)
            .values({ module, tenantId: platformKey(tenantId), values: next, updatedBy: userId })
            .onConflictDoUpdate({
              target: [settingsValues.module, settingsValues.tenantId],
              set: { values: next, updatedAt: new Date(), updatedBy: userId },
            });
        }
      });
      await scopeRows.changed(keyOf(tenantId));
      return this.effective(module, tenantId);
    },
  };
}
