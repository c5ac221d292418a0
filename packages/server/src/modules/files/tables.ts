import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, timestamptz } from '../../platform/db/columns.ts';
import { tenantKey } from '../../platform/db/tenant-key.ts';
import { storageConfigs } from './storage/tables.ts';

export type GcState = 'live' | 'orphaned' | 'deleting';
export type FileVisibility = 'public' | 'private' | 'restricted';

/**
 * One stored object per content and storage configuration (null = the built-in local disk):
 * same-content uploads share it (SHA-256). `ref_count` is the number of `file_refs` of all the
 * managed files on it; at 0 it is `orphaned` and collected 24 hours later (spec §2.2, §8). A
 * `deleting` object never gains a reference again, so the content index ignores it and a new
 * upload of the same bytes stores a fresh object.
 */
export const fileObjects = pgTable(
  'file_objects',
  {
    id: serial('id').primaryKey(),
    // A configuration that still holds objects cannot be deleted (409 files.storage_config_in_use).
    storageConfigId: integer('storage_config_id').references(() => storageConfigs.id, { onDelete: 'restrict' }),
    sha256: text('sha256').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    storageKey: text('storage_key').notNull(),
    refCount: integer('ref_count').notNull().default(0),
    gcState: text('gc_state').$type<GcState>().notNull().default('live'),
    orphanedAt: timestamptz('orphaned_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('file_objects_content')
      .on(sql`coalesce(${t.storageConfigId}, 0)`, t.sha256)
      .where(sql`${t.gcState} <> 'deleting'`),
    index('file_objects_gc').on(t.gcState, t.orphanedAt),
    check('file_objects_ref_count_nonnegative', sql`${t.refCount} >= 0`),
  ],
);

/** A file as users see it: a name, a sniffed type and a visibility over a shared object. */
export const managedFiles = pgTable(
  'managed_files',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    objectId: integer('object_id')
      .notNull()
      .references(() => fileObjects.id),
    name: text('name').notNull(),
    /** what the content is (sniffed); the declared type only when the content has no signature */
    mime: text('mime').notNull(),
    declaredMime: text('declared_mime'),
    size: bigint('size', { mode: 'number' }).notNull(),
    visibility: text('visibility').$type<FileVisibility>().notNull().default('private'),
    ownerUserId: integer('owner_user_id'),
    createdAt: createdAt(),
  },
  (t) => [unique().on(t.tenantId, t.id), index('managed_files_object').on(t.objectId)],
);

/** Who uses a managed file: the upload itself, a notice image, a drive version, an export result. */
export const fileRefs = pgTable(
  'file_refs',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    fileId: integer('file_id')
      .notNull()
      .references(() => managedFiles.id),
    ownerType: text('owner_type').notNull(),
    ownerId: integer('owner_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('file_refs_owner').on(t.fileId, t.ownerType, t.ownerId),
    index('file_refs_by_owner').on(t.ownerType, t.ownerId),
  ],
);

export type UploadSessionStatus = 'open' | 'completing' | 'completed';

/** Chunked upload sessions (init / chunk / complete); chunks are provider objects `uploads/<id>/<index>`. */
export const fileUploadSessions = pgTable(
  'file_upload_sessions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    ownerUserId: integer('owner_user_id'),
    name: text('name').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    chunkSize: integer('chunk_size').notNull(),
    totalChunks: integer('total_chunks').notNull(),
    declaredSha256: text('declared_sha256'),
    declaredMime: text('declared_mime'),
    visibility: text('visibility').$type<FileVisibility>().notNull(),
    /** the policy the session was opened under (the drive's); null: the general one, read at each step */
    policy: jsonb('policy').$type<{ mimeAllowList: string[] | null; blockedExtensions: string[] }>(),
    // A configuration that still holds objects cannot be deleted (409 files.storage_config_in_use).
    storageConfigId: integer('storage_config_id').references(() => storageConfigs.id, { onDelete: 'restrict' }),
    status: text('status').$type<UploadSessionStatus>().notNull().default('open'),
    fileId: integer('file_id'),
    expiresAt: timestamptz('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [unique().on(t.tenantId, t.id), index('file_upload_sessions_expiry').on(t.expiresAt)],
);

export const fileUploadChunks = pgTable(
  'file_upload_chunks',
  {
    tenantId: tenantKey('tenant_id'),
    sessionId: integer('session_id')
      .notNull()
      .references(() => fileUploadSessions.id, { onDelete: 'cascade' }),
    chunkIndex: integer('chunk_index').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.chunkIndex] })],
);
