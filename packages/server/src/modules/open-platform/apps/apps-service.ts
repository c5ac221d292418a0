import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation, rowOrThrow } from '../../../platform/db/sql.ts';
import { revokeTokensOutsideScopes } from '../oauth/token-repository.ts';
import { checkAppSettings } from './app-rules.ts';
import * as repo from './apps-repository.ts';
import type { ClientCache } from './client-cache.ts';
import { appErrors } from './errors.ts';
import type { AppsDeps } from './index.ts';
import { DEFAULT_GRACE_SECONDS } from './schemas.ts';
import { hashSecret, newClientId, newClientSecret, secretHint } from './secrets.ts';
import type { AppStatus, ClientType, GrantType } from './tables.ts';

export type AppCreateInput = {
  name: string;
  description?: string;
  homepageUrl?: string;
  logoUrl?: string;
  clientType: ClientType;
  grantTypes: GrantType[];
  redirectUris: string[];
  allowedScopes: string[];
};
export type AppUpdateInput = Partial<Omit<AppCreateInput, 'clientType'>>;

/** The answer shape: never a secret nor a digest of one, only its hint and rotation times. */
export function toAppView(row: repo.AppRow) {
  const { secretHash: _s, previousSecretHash: _p, tenantId: _t, ...rest } = row;
  return rest;
}

/**
 * Applications (OAuth clients) of the caller's tenant; the platform's when the scope has no
 * tenant. A client secret is 256 random bits, shown once (create, rotate) and stored as SHA-256.
 */
export function createAppsService(deps: AppsDeps & { db: Db; clock: () => Date; clients: ClientCache }) {
  const { db, clock } = deps;

  const findOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.apps.findById(db, scope, id), appErrors.appNotFound);

  const uniqueName = <T>(fn: () => Promise<T>) => onUniqueViolation(fn, () => appErrors.nameExists());

  return {
    scopes: () => deps.scopes.all().map((s) => ({ name: s.name, description: s.description, userOnly: !!s.userOnly })),

    async list(scope: Scope, q: PageRequest & repo.AppFilter) {
      const page = await repo.pageApps(db, scope, q);
      return { ...page, list: page.list.map(toAppView) };
    },

    get: async (scope: Scope, id: number) => toAppView(await findOrThrow(scope, id)),

    async create(scope: Scope, input: AppCreateInput) {
      const settings = { ...input, homepageUrl: input.homepageUrl ?? '', logoUrl: input.logoUrl ?? '' };
      checkAppSettings(deps.scopes, settings);
      const secret = input.clientType === 'confidential' ? newClientSecret() : null;
      const now = clock();
      const row = await uniqueName(() =>
        repo.apps.insert(db, scope, {
          ...settings,
          name: input.name.trim(),
          description: input.description ?? '',
          clientId: newClientId(),
          secretHash: secret ? hashSecret(secret) : null,
          secretHint: secret ? secretHint(secret) : null,
          status: 'active',
          createdBy: userOf(scope)?.userId ?? null,
          createdAt: now,
          updatedAt: now,
        }),
      );
      return { ...toAppView(row), ...(secret ? { clientSecret: secret } : {}) };
    },

    /** Tokens holding a scope the application may no longer be granted stop working in the same transaction. */
    async update(scope: Scope, id: number, patch: AppUpdateInput) {
      const row = await uniqueName(() =>
        db.transaction(async (tx) => {
          const current = await repo.lockApp(tx, scope, id);
          if (!current) throw appErrors.appNotFound();
          const merged = {
            clientType: current.clientType,
            grantTypes: patch.grantTypes ?? current.grantTypes,
            redirectUris: patch.redirectUris ?? current.redirectUris,
            allowedScopes: patch.allowedScopes ?? current.allowedScopes,
            homepageUrl: patch.homepageUrl ?? current.homepageUrl,
            logoUrl: patch.logoUrl ?? current.logoUrl,
          };
          checkAppSettings(deps.scopes, merged);
          const now = clock();
          const updated = await repo.apps.update(tx, scope, id, {
            ...patch,
            ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
            updatedAt: now,
          });
          if (current.allowedScopes.some((s) => !merged.allowedScopes.includes(s))) {
            await revokeTokensOutsideScopes(tx, id, merged.allowedScopes, now);
          }
          return updated;
        }),
      );
      if (!row) throw appErrors.appNotFound();
      await deps.clients.changed(row.clientId);
      return toAppView(row);
    },

    /** A disabled application fails client authentication and its tokens stop working (the core joins on status). */
    async setStatus(scope: Scope, id: number, status: AppStatus) {
      const row = await repo.apps.update(db, scope, id, { status, updatedAt: clock() });
      if (!row) throw appErrors.appNotFound();
      await deps.clients.changed(row.clientId);
      return toAppView(row);
    },

    /** A new secret, shown once; the replaced one keeps working for `graceSeconds` so clients can switch over. */
    async rotateSecret(scope: Scope, id: number, graceSeconds = DEFAULT_GRACE_SECONDS) {
      const current = await findOrThrow(scope, id);
      if (current.clientType !== 'confidential') throw appErrors.publicClientHasNoSecret();
      const secret = newClientSecret();
      const now = clock();
      const row = await repo.rotateSecret(db, scope, id, {
        secretHash: hashSecret(secret),
        secretHint: secretHint(secret),
        previousExpiresAt: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
        now,
      });
      if (!row) throw appErrors.appNotFound();
      await deps.clients.changed(row.clientId);
      return { ...toAppView(row), clientSecret: secret };
    },

    /** The application and everything hanging off it (tokens, codes, consents, webhooks) go together. */
    async remove(scope: Scope, id: number) {
      const clientId = await db.transaction(async (tx) => {
        const row = await repo.lockApp(tx, scope, id);
        if (!row) throw appErrors.appNotFound();
        // dependants first, so a foreign key from them to the application cannot refuse the delete
        await deps.onDelete(tx, id);
        await repo.apps.deleteMany(tx, scope, [id]);
        return row.clientId;
      });
      await deps.clients.changed(clientId);
    },
  };
}

export type AppsService = ReturnType<typeof createAppsService>;
