import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { createListedConfigs } from '../../../platform/provider-configs/index.ts';
import { checkConfigFields, checkEndpointEgress, defaultsOf } from './config-checks.ts';
import { listFilter } from './config-repository.ts';
import { smsErrors } from './errors.ts';
import { SMS_SECRET, type SmsProviderName, smsConfigs } from './tables.ts';

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

/**
 * SMS configurations through the provider-configuration kit: several per tenant, at most one
 * default. The first active configuration of a scope becomes its default, and the default can only
 * go when it is the last one, so a scope with configurations always has exactly one default.
 * Disabling the default is allowed: the tenant then sends with the platform's default, as without
 * a configuration.
 */
export function createSmsConfigService(ctx: AppContext) {
  const { egress } = ctx;
  const configs = createListedConfigs(ctx, {
    table: smsConfigs,
    secret: SMS_SECRET,
    firstIsDefault: true,
    deleteDefault: 'when-last',
    errors: {
      notFound: smsErrors.configNotFound,
      nameExists: smsErrors.configNameExists,
      defaultConflict: smsErrors.defaultConflict,
      disabled: smsErrors.configDisabled,
      defaultNotDeletable: smsErrors.configIsDefault,
      inUse: smsErrors.configInUse,
    },
  });

  return {
    list: (scope: Scope, q: PageRequest & { provider?: SmsProviderName; status?: Status }) =>
      configs.page(scope, q, listFilter(q)),

    get: async (scope: Scope, id: number) => configs.mask(await configs.find(scope, id)),

    async create(scope: Scope, input: SmsConfigCreateInput) {
      checkConfigFields(input.provider, input);
      await checkEndpointEgress(egress, scope, input.endpoint);
      const defaults = defaultsOf(input.provider);
      const { isDefault, accessKeySecret, ...fields } = input;
      const row = await configs.create(
        scope,
        {
          ...fields,
          sdkAppId: input.sdkAppId ?? null,
          region: input.region ?? defaults.region,
          endpoint: input.endpoint ?? defaults.endpoint,
          status: input.status ?? 'active',
          remark: input.remark ?? '',
        },
        { isDefault, secret: accessKeySecret },
      );
      return configs.mask(row);
    },

    async update(scope: Scope, id: number, patch: SmsConfigUpdateInput) {
      const current = await configs.find(scope, id);
      checkConfigFields(current.provider, {
        sdkAppId: patch.sdkAppId ?? current.sdkAppId,
        endpoint: patch.endpoint,
      });
      await checkEndpointEgress(egress, scope, patch.endpoint);
      const { accessKeySecret, ...fields } = patch;
      return configs.mask(await configs.update(scope, id, fields, accessKeySecret));
    },

    remove: (scope: Scope, id: number) => configs.remove(scope, id),

    makeDefault: async (scope: Scope, id: number) => configs.mask(await configs.makeDefault(scope, id)),
  };
}

export type SmsConfigService = ReturnType<typeof createSmsConfigService>;
