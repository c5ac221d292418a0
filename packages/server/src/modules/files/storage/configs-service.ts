import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../../platform/db/sql.ts';
import { AppError, httpErrors } from '../../../platform/http/errors.ts';
import type { StorageProvider } from '../../../platform/storage/provider.ts';
import { type StorageResolver, secretContext } from '../storage-resolver.ts';
import { checkSettings, constraintOf, describe, probe, type StorageSettingsInput } from './config-checks.ts';
import * as repo from './configs-repository.ts';
import { storageErrors } from './errors.ts';
import type { LocalStorageSettings, S3StorageSettings } from './tables.ts';

type Kind = 'local' | 's3';
type Status = 'active' | 'disabled';
export type StorageConfigCreateInput = {
  name: string;
  kind: Kind;
  settings?: StorageSettingsInput;
  secret?: string;
  isDefault?: boolean;
  status?: Status;
  remark?: string;
};
export type StorageConfigUpdateInput = Partial<
  Pick<StorageConfigCreateInput, 'name' | 'settings' | 'secret' | 'status' | 'remark'>
>;

/** The answer shape: settings without the secret, and whether one is stored. */
export function toDto(row: repo.StorageConfigRow) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    settings: row.settings as StorageSettingsInput,
    hasSecret: row.secretEncrypted !== null,
    isDefault: row.isDefault,
    status: row.status,
    remark: row.remark,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Storage configurations: several per tenant (the platform's serve as fallback), at most one
 * default. Settings are checked per kind; the S3 secret is encrypted with its row id as context
 * and never answered.
 */
export function createStorageConfigService(ctx: AppContext, resolver: StorageResolver) {
  const { db, clock, secrets, egress } = ctx;

  async function rowOrThrow(scope: Scope, id: number) {
    const row = await repo.configs.findById(db, scope, id);
    if (!row) throw storageErrors.notFound();
    return row;
  }

  /**
   * A tenant's S3 endpoint is checked by the egress rules when saved (the connections are
   * checked again when made, see storage-resolver). The platform's endpoints are the operator's.
   */
  async function checkEndpoint(scope: Scope, settings: LocalStorageSettings | S3StorageSettings) {
    const endpoint = (settings as Partial<S3StorageSettings>).endpoint;
    if (scope.tenantId === null || !endpoint) return;
    try {
      await egress.check(endpoint);
    } catch (err) {
      if (err instanceof AppError && err.status === 400)
        throw httpErrors.invalidField('settings.endpoint', err.message);
      // an endpoint that does not resolve now may later; the connectivity test will tell
    }
  }

  async function write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw constraintOf(err)?.includes('one_default') ? storageErrors.defaultConflict() : storageErrors.nameExists();
      }
      throw err;
    }
  }

  return {
    async list(scope: Scope, q: PageRequest & { kind?: Kind; status?: Status }) {
      const page = await repo.pageConfigs(db, scope, q);
      return { ...page, list: page.list.map(toDto) };
    },

    get: async (scope: Scope, id: number) => toDto(await rowOrThrow(scope, id)),

    async create(scope: Scope, input: StorageConfigCreateInput) {
      const settings = checkSettings(input.kind, input.settings ?? {}, input.secret !== undefined);
      await checkEndpoint(scope, settings);
      if (input.isDefault && input.status === 'disabled') throw storageErrors.disabled();
      const row = await write(() =>
        db.transaction(async (tx) => {
          const now = clock();
          if (input.isDefault) await repo.unsetOtherDefaults(tx, scope, null, now);
          const created = await repo.configs.insert(tx, scope, {
            name: input.name,
            kind: input.kind,
            settings,
            isDefault: input.isDefault ?? false,
            status: input.status ?? 'active',
            remark: input.remark ?? '',
            createdAt: now,
            updatedAt: now,
          });
          if (input.secret === undefined) return created;
          // The row id is part of the encryption context, so the secret is written once the id exists.
          const secretEncrypted = secrets.encrypt(input.secret, secretContext(created.id));
          return (await repo.configs.update(tx, scope, created.id, { secretEncrypted })) ?? created;
        }),
      );
      return toDto(row);
    },

    async update(scope: Scope, id: number, patch: StorageConfigUpdateInput) {
      const current = await rowOrThrow(scope, id);
      const merged = { ...(current.settings as StorageSettingsInput), ...(patch.settings ?? {}) };
      const settings = checkSettings(
        current.kind,
        merged,
        patch.secret !== undefined || current.secretEncrypted !== null,
      );
      if (patch.settings?.endpoint !== undefined) await checkEndpoint(scope, settings);
      if (patch.status === 'disabled' && current.isDefault) throw storageErrors.isDefault('disabled');
      const row = await write(() =>
        repo.configs.update(db, scope, id, {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.status !== undefined ? { status: patch.status } : {}),
          ...(patch.remark !== undefined ? { remark: patch.remark } : {}),
          ...(patch.secret !== undefined ? { secretEncrypted: secrets.encrypt(patch.secret, secretContext(id)) } : {}),
          settings,
          updatedAt: clock(),
        }),
      );
      if (!row) throw storageErrors.notFound();
      resolver.invalidate(id);
      return toDto(row);
    },

    async remove(scope: Scope, id: number) {
      let deleted: boolean;
      try {
        deleted = await repo.deleteUnlessDefault(db, scope, id);
      } catch (err) {
        // managed files reference the configuration that holds their bytes
        if (isForeignKeyViolation(err)) throw storageErrors.inUse();
        throw err;
      }
      if (!deleted) {
        await rowOrThrow(scope, id);
        throw storageErrors.isDefault('deleted');
      }
      resolver.invalidate(id);
    },

    /** Makes one configuration the default, unsetting the previous one in the same transaction. */
    async makeDefault(scope: Scope, id: number) {
      const row = await write(() =>
        db.transaction(async (tx) => {
          const target = await repo.configs.findById(tx, scope, id);
          if (!target) throw storageErrors.notFound();
          if (target.status !== 'active') throw storageErrors.disabled();
          const now = clock();
          await repo.unsetOtherDefaults(tx, scope, id, now);
          return repo.configs.update(tx, scope, id, { isDefault: true, updatedAt: now });
        }),
      );
      if (!row) throw storageErrors.notFound();
      return toDto(row);
    },

    /** A real round trip: put, head, read back and delete a small probe object. */
    async test(scope: Scope, id: number): Promise<{ ok: boolean; message: string | null }> {
      const row = await rowOrThrow(scope, id);
      let secret: string | null;
      try {
        secret = row.secretEncrypted ? secrets.decrypt(row.secretEncrypted, secretContext(row.id)) : null;
      } catch {
        return { ok: false, message: 'The stored secret cannot be decrypted (was its key removed?); save a new one' };
      }
      let provider: StorageProvider | null = null;
      try {
        provider = resolver.build(row, { probe: true });
        return { ok: true, message: await probe(provider) };
      } catch (err) {
        return { ok: false, message: describe(err, secret) };
      } finally {
        (provider as { close?: () => void } | null)?.close?.();
      }
    },
  };
}

export type StorageConfigService = ReturnType<typeof createStorageConfigService>;
