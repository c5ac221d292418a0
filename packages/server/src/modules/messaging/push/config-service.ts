import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { isUniqueViolation } from '../../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { checkEndpointEgress, endpointProblem } from '../sms/config-checks.ts';
import { pushErrors } from './errors.ts';
import type { JPushAccount } from './jpush.ts';
import { pushConfigs } from './tables.ts';

export const DEFAULT_PUSH_ENDPOINT = 'https://api.jpush.cn';
const configs = scoped(pushConfigs);
type PushConfigRow = typeof pushConfigs.$inferSelect;
const secretContext = (id: number) => `push_configs.master_secret:${id}`;

export type PushConfigInput = {
  endpoint?: string;
  appKey?: string;
  masterSecret?: string;
  apnsProduction?: boolean;
  enabled?: boolean;
};

/**
 * The push provider configuration: one per tenant, the platform's serving tenants without their
 * own. A tenant's own row wins even when disabled: that is how a tenant switches push off.
 */
export function createPushConfigService(ctx: AppContext) {
  const { db, clock, secrets, egress } = ctx;

  const ownRow = async (tenantId: number | null) => (await configs.findMany(db, { tenantId }))[0] ?? null;

  async function effectiveRow(tenantId: number | null): Promise<PushConfigRow | null> {
    const own = await ownRow(tenantId);
    return own || tenantId === null ? own : ownRow(null);
  }

  function check(input: PushConfigInput, creating: boolean) {
    const details: FieldError[] = [];
    if (creating && !input.appKey) details.push({ field: 'appKey', message: 'is required on the first save' });
    if (creating && !input.masterSecret)
      details.push({ field: 'masterSecret', message: 'is required on the first save' });
    const problem = input.endpoint === undefined ? null : endpointProblem(input.endpoint);
    if (problem) details.push({ field: 'endpoint', message: problem });
    if (details.length) throw httpErrors.validation(details);
  }

  async function view(scope: Scope) {
    const own = await ownRow(scope.tenantId);
    const effective = own ? 'own' : scope.tenantId !== null && (await ownRow(null)) ? 'platform' : 'none';
    return {
      configured: own !== null,
      effective: effective as 'own' | 'platform' | 'none',
      endpoint: own?.endpoint ?? DEFAULT_PUSH_ENDPOINT,
      appKey: own?.appKey ?? '',
      masterSecretSet: Boolean(own?.masterSecretEncrypted),
      apnsProduction: own?.apnsProduction ?? false,
      enabled: own?.enabled ?? false,
      updatedAt: own?.updatedAt ?? null,
    };
  }

  return {
    view,

    async save(scope: Scope, input: PushConfigInput) {
      const current = await ownRow(scope.tenantId);
      check(input, current === null);
      await checkEndpointEgress(egress, scope, input.endpoint);
      const { masterSecret, ...fields } = input;
      const now = clock();
      try {
        await db.transaction(async (tx) => {
          const row =
            current ??
            (await configs.insert(tx, scope, {
              endpoint: input.endpoint ?? DEFAULT_PUSH_ENDPOINT,
              appKey: input.appKey as string,
              createdAt: now,
              updatedAt: now,
            }));
          // the row id is part of the encryption context, so the secret is written once the id exists
          await configs.update(tx, scope, row.id, {
            ...fields,
            ...(masterSecret !== undefined
              ? { masterSecretEncrypted: secrets.encrypt(masterSecret, secretContext(row.id)) }
              : {}),
            updatedAt: now,
          });
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw pushErrors.configConflict();
        throw err;
      }
      return view(scope);
    },

    async available(tenantId: number | null): Promise<boolean> {
      const row = await effectiveRow(tenantId);
      return Boolean(row?.enabled && row.masterSecretEncrypted);
    },

    /** What the push channel sends with for a tenant: null when nothing enabled applies. */
    async accountFor(tenantId: number | null): Promise<JPushAccount | null> {
      const row = await effectiveRow(tenantId);
      if (!row?.enabled || !row.masterSecretEncrypted) return null;
      return {
        endpoint: row.endpoint,
        appKey: row.appKey,
        masterSecret: secrets.decrypt(row.masterSecretEncrypted, secretContext(row.id)),
        apnsProduction: row.apnsProduction,
      };
    },
  };
}

export type PushConfigService = ReturnType<typeof createPushConfigService>;
