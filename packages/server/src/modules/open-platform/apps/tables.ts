import { sql } from 'drizzle-orm';
import { integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';

export type ClientType = 'confidential' | 'public';
export type GrantType = 'authorization_code' | 'client_credentials' | 'refresh_token';
export type AppStatus = 'active' | 'disabled';

/**
 * Open-platform applications = OAuth 2 client records (spec §2.1). A tenant's applications act
 * for that tenant only (tenant_id 0: the platform's, used by platform users). The client
 * secret is 256 random bits shown once; only its SHA-256 digest is kept. After a rotation the
 * previous digest keeps working until `previous_secret_expires_at` (the grace period).
 */
export const openApps = pgTable(
  'open_apps',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    homepageUrl: text('homepage_url').notNull().default(''),
    logoUrl: text('logo_url').notNull().default(''),
    clientId: text('client_id').notNull(),
    clientType: text('client_type').$type<ClientType>().notNull(),
    /** sha256 hex of the current secret; null for public clients */
    secretHash: text('secret_hash'),
    /** the secret's last four characters, so an operator can tell which one a client holds */
    secretHint: text('secret_hint'),
    previousSecretHash: text('previous_secret_hash'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    secretRotatedAt: timestamptz('secret_rotated_at'),
    grantTypes: text('grant_types').array().$type<GrantType[]>().notNull(),
    /** callback allow-list, compared by exact string match */
    redirectUris: text('redirect_uris').array().notNull().default(sql`'{}'::text[]`),
    allowedScopes: text('allowed_scopes').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<AppStatus>().notNull().default('active'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('open_apps_client_id').on(t.clientId),
    uniqueIndex('open_apps_tenant_name').on(t.tenantId, t.name),
  ],
);
