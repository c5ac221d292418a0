import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../../platform/db/sql.ts';
import { checkConfigFields, checkEndpointEgress, defaultsOf, secretContext } from './config-checks.ts';
import * as repo from './config-repository.ts';
import { smsErrors } from './errors.ts';
import type { SmsProviderName } from './tables.ts';

type Status = 'active' | 'disabled';
export type SmsConfigCreateInput = {
  name: string;
  provider: SmsProviderName;
  accessKeyId: string;
  accessKeySecret: string;
  signName: string;
  sdkAppId?: string;
  region?: string;
  endpoint?: string;
  isDefault?: boolean;
  status?: Status;
  remark?: string;
};
export type SmsConfigUpdateInput = Partial<Omit<SmsConfigCreateInput, 'provider' | 'isDefault'>>;

/** The answer shape: everything but the secret, and whether one is stored. */
export function toConfigDto(row: repo.SmsConfigRow) {
  const { accessKeySecretEncrypted, tenantId: _tenant, ...rest } = row;
  return { ...rest, accessKeySecretSet: accessKeySecretEncrypted !== null };
}

/** The violated constraint's name, or the error text that names it (drivers differ). */
function constraintOf(err: unknown): string {
  const e = err as { constraint?: string; message?: string; cause?: { constraint?: string; message?: string } };
  return e.cause?.constraint ?? e.constraint ?? e.cause?.message ?? e.message ?? '';
}

/**
 * SMS configurations: several per tenant, at most one default (a partial unique index). The first
 * active configuration of a scope becomes its default, and the default can only go when it is the
 * last one, so a scope with configurations always has exactly one default. Disabling the default
 * is allowed: the tenant then sends with the platform's default, as without a configuration.
 */
export function createSmsConfigService(ctx: AppContext) {
  const { db, clock, secrets, egress } = ctx;

  async function rowOrThrow(scope: Scope, id: number) {
    const row = await repo.configs.findById(db, scope, id);
    if (!row) throw smsErrors.configNotFound();
    return row;
  }

  async function write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw constraintOf(err).includes('one_default') ? smsErrors.defaultConflict() : smsErrors.configNameExists();
      }
      throw err;
    }
  }

  return {
    async list(scope: Scope, q: PageRequest & { provider?: SmsProviderName; status?: Status }) {
      const page = await repo.pageConfigs(db, scope, q);
      return { ...page, list: page.list.map(toConfigDto) };
    },

    get: async (scope: Scope, id: number) => toConfigDto(await rowOrThrow(scope, id)),

    async create(scope: Scope, input: SmsConfigCreateInput) {
      checkConfigFields(input.provider, input);
      await checkEndpointEgress(egress, scope, input.endpoint);
      const status = input.status ?? 'active';
      if (input.isDefault && status === 'disabled') throw smsErrors.configDisabled();
      const defaults = defaultsOf(input.provider);
      const row = await write(() =>
        db.transaction(async (tx) => {
          const now = clock();
          const isDefault = status === 'active' && (input.isDefault || !(await repo.hasDefault(tx, scope)));
          if (isDefault) await repo.unsetOtherDefaults(tx, scope, null, now);
          const created = await repo.configs.insert(tx, scope, {
            name: input.name,
            provider: input.provider,
            accessKeyId: input.accessKeyId,
            signName: input.signName,
            sdkAppId: input.sdkAppId ?? null,
            region: input.region ?? defaults.region,
            endpoint: input.endpoint ?? defaults.endpoint,
            isDefault,
            status,
            remark: input.remark ?? '',
            createdAt: now,
            updatedAt: now,
          });
          // the row id is part of the encryption context, so the secret is written once the id exists
          const accessKeySecretEncrypted = secrets.encrypt(input.accessKeySecret, secretContext(created.id));
          return (await repo.configs.update(tx, scope, created.id, { accessKeySecretEncrypted })) ?? created;
        }),
      );
      return toConfigDto(row);
    },

    async update(scope: Scope, id: number, patch: SmsConfigUpdateInput) {
      const current = await rowOrThrow(scope, id);
      checkConfigFields(current.provider, {
        sdkAppId: patch.sdkAppId ?? current.sdkAppId,
        endpoint: patch.endpoint,
      });
      await checkEndpointEgress(egress, scope, patch.endpoint);
      const { accessKeySecret, ...fields } = patch;
      const row = await write(() =>
        repo.configs.update(db, scope, id, {
          ...fields,
          ...(accessKeySecret !== undefined
            ? { accessKeySecretEncrypted: secrets.encrypt(accessKeySecret, secretContext(id)) }
            : {}),
          updatedAt: clock(),
        }),
      );
      if (!row) throw smsErrors.configNotFound();
      return toConfigDto(row);
    },

    async remove(scope: Scope, id: number) {
      try {
        await db.transaction(async (tx) => {
          const row = await repo.configs.findById(tx, scope, id);
          if (!row) throw smsErrors.configNotFound();
          if (row.isDefault && (await repo.countOthers(tx, scope, id)) > 0) throw smsErrors.configIsDefault();
          await repo.configs.deleteMany(tx, scope, [id]);
        });
      } catch (err) {
        // templates name the configuration they send with
        if (isForeignKeyViolation(err)) throw smsErrors.configInUse();
        throw err;
      }
    },

    /** Makes one configuration the default, unsetting the previous one in the same transaction. */
    async makeDefault(scope: Scope, id: number) {
      const row = await write(() =>
        db.transaction(async (tx) => {
          const target = await repo.configs.findById(tx, scope, id);
          if (!target) throw smsErrors.configNotFound();
          if (target.status !== 'active') throw smsErrors.configDisabled();
          const now = clock();
          await repo.unsetOtherDefaults(tx, scope, id, now);
          return repo.configs.update(tx, scope, id, { isDefault: true, updatedAt: now });
        }),
      );
      if (!row) throw smsErrors.configNotFound();
      return toConfigDto(row);
    },
  };
}

export type SmsConfigService = ReturnType<typeof createSmsConfigService>;
