import { customType, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/**
 * Uploaded source maps (spec §4.6 rule 5): one per release and bundle file name within a tenant
 * (tenant null = platform scope). The map is kept in the row (at most 20 MB): restoration reads
 * and parses it whole anyway, and managed files would put it under the user-upload policy
 * (extension and type allow-lists, per-tenant size settings) and the orphan collector.
 */
export const errorSourceMaps = pgTable(
  'error_source_maps',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    release: text('release').notNull(),
    /** the bundle file name as it appears in minified stacks (`app.min.js`) */
    fileName: text('file_name').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    content: bytea('content').notNull(),
    uploadedBy: integer('uploaded_by'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('error_source_maps_release_file').on(t.tenantId, t.release, t.fileName),
    index('error_source_maps_tenant_created').on(t.tenantId, t.createdAt),
  ],
);
