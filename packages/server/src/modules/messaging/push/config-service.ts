import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { createSingleConfigs } from '../../../platform/provider-configs/index.ts';
import { checkEndpointEgress, endpointProblem } from '../sms/config-checks.ts';
import type { JPushAccount } from './jpush.ts';
import { PUSH_SECRET, pushConfigs } from './tables.ts';

export const DEFAULT_PUSH_ENDPOINT = 'https://api.jpush.cn';

export type PushConfigInput = {
  endpoint?: string;
  appKey?: string;
  masterSecret?: string;
  apnsProduction?: boolean;
  enabled?: boolean;
};

function check(input: PushConfigInput, creating: boolean) {
  const details: FieldError[] = [];
  if (creating && !input.appKey) details.push({ field: 'appKey', message: 'is required on the first save' });
  if (creating && !input.masterSecret)
    details.push({ field: 'masterSecret', message: 'is required on the first save' });
  const problem = input.endpoint === undefined ? null : endpointProblem(input.endpoint);
  if (problem) details.push({ field: 'endpoint', message: problem });
  if (details.length) throw httpErrors.validation(details);
}

/**
 * The push provider configuration through the provider-configuration kit: one per tenant, the
 * platform's serving tenants without their own. A tenant's own row wins even when disabled: that
 * is how a tenant switches push off.
 */
export function createPushConfigService(ctx: AppContext) {
  const configs = createSingleConfigs(ctx, {
    table: pushConfigs,
    secret: PUSH_SECRET,
  });

  async function get(scope: Scope) {
    const own = await configs.own(scope.tenantId);
    const effective = own ? 'own' : scope.tenantId !== null && (await configs.own(null)) ? 'platform' : 'none';
    const masked = own ? configs.mask(own) : null;
    return {
      configured: masked !== null,
      effective: effective as 'own' | 'platform' | 'none',
      endpoint: masked?.endpoint ?? DEFAULT_PUSH_ENDPOINT,
      appKey: masked?.appKey ?? '',
      masterSecretSet: masked?.masterSecretSet ?? false,
      apnsProduction: masked?.apnsProduction ?? false,
      enabled: masked?.enabled ?? false,
      updatedAt: masked?.updatedAt ?? null,
    };
  }

  return {
    get,

    async save(scope: Scope, input: PushConfigInput) {
      await checkEndpointEgress(ctx.egress, scope, input.endpoint);
      const { masterSecret, ...fields } = input;
      await configs.save(scope, (current) => {
        check(input, current === null);
        return {
          values: {
            endpoint: fields.endpoint ?? current?.endpoint ?? DEFAULT_PUSH_ENDPOINT,
            appKey: fields.appKey ?? (current?.appKey as string),
            apnsProduction: fields.apnsProduction ?? current?.apnsProduction ?? false,
            enabled: fields.enabled ?? current?.enabled ?? true,
          },
          secret: masterSecret,
        };
      });
      return get(scope);
    },

    async available(tenantId: number | null): Promise<boolean> {
      const row = await configs.effective(tenantId);
      return Boolean(row?.enabled && row.masterSecretEncrypted);
    },

    /** What the push channel sends with for a tenant: null when nothing enabled applies. */
    async accountFor(tenantId: number | null): Promise<JPushAccount | null> {
      const row = await configs.effective(tenantId);
      const masterSecret = row?.enabled ? configs.openSecret(row) : null;
      if (!row || !masterSecret) return null;
      return { endpoint: row.endpoint, appKey: row.appKey, masterSecret, apnsProduction: row.apnsProduction };
    },
  };
}

export type PushConfigService = ReturnType<typeof createPushConfigService>;
