import { type Scope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';

/** Finds a tenant's id by its code (the identity module owns tenants); null when there is none. */
export type TenantIdByCode = (code: string) => Promise<number | null>;

/**
 * Runtime settings over HTTP. The caller's scope decides the level: platform scope reads and
 * writes platform values, a tenant scope reads effective values and writes the tenant's
 * overrides (tenant wins over platform, platform over the default).
 */
export function createSettingsService(ctx: AppContext, tenantIdByCode: TenantIdByCode) {
  const { settings, settingsRegistry } = ctx;

  return {
    async view(scope: Scope, module: string) {
      const values = await settings.effective(module, scope.tenantId); // 404 for an unknown module
      const mod = settingsRegistry.get(module);
      return {
        module,
        title: mod?.title ?? module,
        values,
        fields: Object.entries(mod?.fields ?? {}).map(([name, f]) => ({
          name,
          description: f.description,
          visibility: f.visibility,
          platformOnly: f.platformOnly ?? false,
          default: f.default,
        })),
      };
    },

    async update(scope: Scope, module: string, patch: Record<string, unknown>) {
      if (Object.keys(patch).length === 0) return settings.effective(module, scope.tenantId);
      return settings.update(module, scope.tenantId, patch, userOf(scope)?.userId ?? null);
    },

    /** Every module's values a signed-in user may read. */
    mine: (scope: Scope) => settings.projected(scope.tenantId, 'authenticated'),

    /** Values meant for anyone (the sign-in page): the tenant's when its code is known, else the platform's. */
    async publicValues(tenantCode: string | undefined) {
      const tenantId = tenantCode ? await tenantIdByCode(tenantCode) : null;
      return settings.projected(tenantId, 'public');
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
