import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { AppError, httpErrors } from '../../../platform/http/errors.ts';
import { createListedConfigs } from '../../../platform/provider-configs/index.ts';
import type { StorageProvider } from '../../../platform/storage/provider.ts';
import type { StorageResolver } from '../storage-resolver.ts';
import { checkSettings, describe, probe, type StorageSettingsInput } from './config-checks.ts';
import { listFilter } from './configs-repository.ts';
import { storageErrors } from './errors.ts';
import { type LocalStorageSettings, type S3StorageSettings, STORAGE_SECRET, storageConfigs } from './tables.ts';

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

/**
 * Storage configurations: several per tenant (the platform's serve as fallback), at most one
 * default, through the provider-configuration kit. Settings are checked per kind; the S3 secret
 * is stored encrypted and never answered (`hasSecret`).
 */
export function createStorageConfigService(ctx: AppContext, resolver: StorageResolver) {
  const { egress } = ctx;
  const configs = createListedConfigs(ctx, {
    table: storageConfigs,
    secret: STORAGE_SECRET,
    firstIsDefault: false,
    deleteDefault: 'never',
    errors: {
      notFound: storageErrors.notFound,
      nameExists: storageErrors.nameExists,
      defaultConflict: storageErrors.defaultConflict,
      disabled: storageErrors.disabled,
      defaultNotDeletable: () => storageErrors.isDefault('deleted'),
      inUse: storageErrors.inUse,
    },
  });

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

  return {
    list: (scope: Scope, q: PageRequest & { kind?: Kind; status?: Status }) => configs.page(scope, q, listFilter(q)),

    get: async (scope: Scope, id: number) => configs.mask(await configs.find(scope, id)),

    async create(scope: Scope, input: StorageConfigCreateInput) {
      const settings = checkSettings(input.kind, input.settings ?? {}, input.secret !== undefined);
      await checkEndpoint(scope, settings);
      const { isDefault, secret, ...fields } = input;
      const row = await configs.create(
        scope,
        { ...fields, settings, status: input.status ?? 'active', remark: input.remark ?? '' },
        { isDefault, secret },
      );
      return configs.mask(row);
    },

    async update(scope: Scope, id: number, patch: StorageConfigUpdateInput) {
      const current = await configs.find(scope, id);
      const merged = { ...(current.settings as StorageSettingsInput), ...(patch.settings ?? {}) };
      const settings = checkSettings(
        current.kind,
        merged,
        patch.secret !== undefined || current.secretEncrypted !== null,
      );
      if (patch.settings?.endpoint !== undefined) await checkEndpoint(scope, settings);
      if (patch.status === 'disabled' && current.isDefault) throw storageErrors.isDefault('disabled');
      const { secret, ...fields } = patch;
      const row = await configs.update(scope, id, { ...fields, settings }, secret);
      resolver.invalidate(id);
      return configs.mask(row);
    },

    async remove(scope: Scope, id: number) {
      await configs.remove(scope, id);
      resolver.invalidate(id);
    },

    makeDefault: async (scope: Scope, id: number) => configs.mask(await configs.makeDefault(scope, id)),

    /** A real round trip: put, head, read back and delete a small probe object. */
    test: (scope: Scope, id: number) =>
      configs.test(
        scope,
        id,
        async (row) => {
          let provider: StorageProvider | null = null;
          try {
            provider = resolver.build(row, { probe: true });
            return await probe(provider);
          } finally {
            (provider as { close?: () => void } | null)?.close?.();
          }
        },
        describe,
      ),
  };
}

export type StorageConfigService = ReturnType<typeof createStorageConfigService>;
