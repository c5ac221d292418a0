import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, serial, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';

/**
 * Authorization codes (RFC 6749 §4.1, RFC 7636): single use, short-lived, bound to the client,
 * the redirect_uri and the PKCE challenge. Only the code's SHA-256 is stored. `family_id` names
 * the token family the code's redemption starts, so a reused code can revoke what it issued.
 */
export const oauthCodes = pgTable(
  'oauth_codes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    codeHash: text('code_hash').notNull(),
    tenantId: tenantKey('tenant_id'),
    appId: integer('app_id').notNull(),
    userId: integer('user_id').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    scopes: text('scopes').array().notNull(),
    codeChallenge: text('code_challenge').notNull(),
    /** OIDC nonce, echoed in the id_token */
    nonce: text('nonce'),
    familyId: uuid('family_id').notNull().defaultRandom(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_codes_hash').on(t.codeHash), index('oauth_codes_expires').on(t.expiresAt)],
);

export type TokenKind = 'access' | 'refresh';

/**
 * Access and refresh tokens: opaque random values; only their SHA-256 is stored, so a database
 * dump reveals no usable token. A refresh token is used once (`used_at`); its successor carries
 * the same `family_id`. Presenting a used one revokes the family (spec §4.1 rule 3, §7.2).
 */
export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tokenHash: text('token_hash').notNull(),
    kind: text('kind').$type<TokenKind>().notNull(),
    tenantId: tenantKey('tenant_id'),
    appId: integer('app_id').notNull(),
    /** the user who authorized the application; null for client_credentials */
    userId: integer('user_id'),
    scopes: text('scopes').array().notNull(),
    /** null for client_credentials tokens */
    familyId: uuid('family_id'),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    revokedAt: timestamptz('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('oauth_tokens_hash').on(t.tokenHash),
    index('oauth_tokens_family').on(t.familyId),
    index('oauth_tokens_user_app').on(t.userId, t.appId),
    index('oauth_tokens_app').on(t.appId),
    index('oauth_tokens_expires').on(t.expiresAt),
  ],
);

/**
 * What a user granted an application (the consent), one row per user × application. It is the
 * "connected apps" list; revoking it kills every token and open code of that pair.
 */
export const oauthConsents = pgTable(
  'oauth_consents',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id').notNull(),
    appId: integer('app_id').notNull(),
    scopes: text('scopes').array().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('oauth_consents_user_app').on(t.userId, t.appId), index('oauth_consents_app').on(t.appId)],
);

/**
 * id_token signing keys (RS256). The private key is encrypted with SECRET_KEYS; one key is
 * active at a time (partial unique index), retired keys stay in the JWKS until their tokens expire.
 */
export const oauthSigningKeys = pgTable(
  'oauth_signing_keys',
  {
    id: serial('id').primaryKey(),
    kid: text('kid').notNull(),
    alg: text('alg').notNull(),
    publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
    /** ctx.secrets.encrypt(PKCS#8 PEM, `oauth_signing_keys:<kid>`) */
    privateKeyEncrypted: text('private_key_encrypted').notNull(),
    createdAt: createdAt(),
    retiredAt: timestamptz('retired_at'),
  },
  (t) => [
    uniqueIndex('oauth_signing_keys_kid').on(t.kid),
    uniqueIndex('oauth_signing_keys_one_active').on(t.alg).where(sql`${t.retiredAt} is null`),
  ],
);
