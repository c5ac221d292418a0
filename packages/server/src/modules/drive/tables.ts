import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
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
import { createdAt, timestamptz, updatedAt } from '../../platform/db/columns.ts';
import { tenantKey } from '../../platform/db/tenant-key.ts';

/**
 * The enterprise drive's tables (spec §2.2). Part 1 holds spaces, the node tree, grants,
 * versions, stars, recent access, upload bindings, legal holds, activities and renditions;
 * share links, access requests, quota requests, tags, comments and texts come with parts 2 and 3.
 */
export type SpaceType = 'personal' | 'department' | 'team';
export type DriveRole = 'viewer' | 'downloader' | 'editor' | 'manager';
export type SubjectType = 'user' | 'department' | 'role' | 'group';
export type NodeType = 'folder' | 'file';

const ROLE_CHECK = (col: unknown) => sql`${col} in ('viewer', 'downloader', 'editor', 'manager')`;
const SUBJECT_CHECK = (col: unknown) => sql`${col} in ('user', 'department', 'role', 'group')`;

/**
 * A space. `quota_bytes` null takes the settings default of its type (0 = unlimited);
 * `used_bytes` counts every stored version of every node not yet purged (live, in the recycle
 * bin, older versions), `reserved_bytes` the chunked uploads under way. `max_versions` null
 * takes the settings default.
 */
export const driveSpaces = pgTable(
  'drive_spaces',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    type: text('type').$type<SpaceType>().notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    ownerUserId: integer('owner_user_id'),
    departmentId: integer('department_id'),
    /** null: no role from the space itself (team: members only; department: none) */
    defaultMemberRole: text('default_member_role').$type<DriveRole>(),
    quotaBytes: bigint('quota_bytes', { mode: 'number' }),
    usedBytes: bigint('used_bytes', { mode: 'number' }).notNull().default(0),
    reservedBytes: bigint('reserved_bytes', { mode: 'number' }).notNull().default(0),
    maxVersions: integer('max_versions'),
    externalShareEnabled: boolean('external_share_enabled').notNull().default(true),
    /** set when usage crossed quotaWarningPercent and the warning went out; cleared below it */
    quotaWarnedAt: timestamptz('quota_warned_at'),
    archivedAt: timestamptz('archived_at'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    check('drive_spaces_type', sql`${t.type} in ('personal', 'department', 'team')`),
    check('drive_spaces_default_role', sql`${t.defaultMemberRole} is null or ${ROLE_CHECK(t.defaultMemberRole)}`),
    check('drive_spaces_usage_nonnegative', sql`${t.usedBytes} >= 0 and ${t.reservedBytes} >= 0`),
    uniqueIndex('drive_spaces_personal').on(t.tenantId, t.ownerUserId).where(sql`${t.type} = 'personal'`),
    uniqueIndex('drive_spaces_department').on(t.tenantId, t.departmentId).where(sql`${t.type} = 'department'`),
    index('drive_spaces_tenant').on(t.tenantId, t.type),
  ],
);

/** A space member: a user, a department (with its sub-departments), a role or a user group. */
export const driveSpaceMembers = pgTable(
  'drive_space_members',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id')
      .notNull()
      .references(() => driveSpaces.id, { onDelete: 'cascade' }),
    subjectType: text('subject_type').$type<SubjectType>().notNull(),
    subjectId: integer('subject_id').notNull(),
    role: text('role').$type<DriveRole>().notNull(),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('drive_space_members_subject').on(t.spaceId, t.subjectType, t.subjectId),
    index('drive_space_members_by_subject').on(t.subjectType, t.subjectId),
    check('drive_space_members_subject_type', SUBJECT_CHECK(t.subjectType)),
    check('drive_space_members_role', ROLE_CHECK(t.role)),
  ],
);

/**
 * The node tree. `ancestor_ids` lists the ancestors, root first (not the node itself).
 * `acl_chain_ids` lists the nodes whose grants reach this one: from the nearest node at or
 * above it that breaks inheritance (`inherit_permissions = false`) down to the node itself.
 * `acl_open` is true when nothing on the path breaks inheritance, so the space role applies.
 * A deleted subtree keeps its shape; `trash_root_id` names the node whose delete put it there
 * (itself for the root the recycle bin lists).
 */
export const driveNodes = pgTable(
  'drive_nodes',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id')
      .notNull()
      .references(() => driveSpaces.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id'),
    type: text('type').$type<NodeType>().notNull(),
    name: text('name').notNull(),
    ancestorIds: integer('ancestor_ids').array().notNull().default(sql`'{}'::integer[]`),
    aclChainIds: integer('acl_chain_ids').array().notNull().default(sql`'{}'::integer[]`),
    aclOpen: boolean('acl_open').notNull().default(true),
    inheritPermissions: boolean('inherit_permissions').notNull().default(true),
    /** files: the current version's size, type and hash */
    size: bigint('size', { mode: 'number' }).notNull().default(0),
    mime: text('mime'),
    sha256: text('sha256'),
    currentVersionId: integer('current_version_id'),
    versionNo: integer('version_no').notNull().default(0),
    deletedAt: timestamptz('deleted_at'),
    deletedBy: integer('deleted_by'),
    trashRootId: integer('trash_root_id'),
    lockUserId: integer('lock_user_id'),
    lockedAt: timestamptz('locked_at'),
    lockExpiresAt: timestamptz('lock_expires_at'),
    createdBy: integer('created_by'),
    updatedBy: integer('updated_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    check('drive_nodes_type', sql`${t.type} in ('folder', 'file')`),
    // sibling names are unique, case-insensitively, among live nodes (spec §2.2)
    uniqueIndex('drive_nodes_sibling_name')
      .on(t.spaceId, sql`coalesce(${t.parentId}, 0)`, sql`lower(${t.name})`)
      .where(sql`${t.deletedAt} is null`),
    index('drive_nodes_children').on(t.spaceId, t.parentId),
    index('drive_nodes_ancestors').using('gin', t.ancestorIds),
    index('drive_nodes_trash').on(t.spaceId, t.deletedAt).where(sql`${t.trashRootId} = ${t.id}`),
    index('drive_nodes_sha256').on(t.tenantId, t.sha256).where(sql`${t.deletedAt} is null`),
  ],
);

/** A direct grant: a subject's role on a node (and, unless broken, its subtree), with an optional expiry. */
export const driveNodePermissions = pgTable(
  'drive_node_permissions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id').notNull(),
    nodeId: integer('node_id')
      .notNull()
      .references(() => driveNodes.id, { onDelete: 'cascade' }),
    subjectType: text('subject_type').$type<SubjectType>().notNull(),
    subjectId: integer('subject_id').notNull(),
    role: text('role').$type<DriveRole>().notNull(),
    expiresAt: timestamptz('expires_at'),
    /** set when shareExpiryReminderHours' reminder went out (part 2) */
    remindedAt: timestamptz('reminded_at'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('drive_node_permissions_subject').on(t.nodeId, t.subjectType, t.subjectId),
    index('drive_node_permissions_by_subject').on(t.subjectType, t.subjectId),
    check('drive_node_permissions_subject_type', SUBJECT_CHECK(t.subjectType)),
    check('drive_node_permissions_role', ROLE_CHECK(t.role)),
  ],
);

/** A version of a file: a managed file (visibility restricted) referenced as `drive_version`/<id>. */
export const driveFileVersions = pgTable(
  'drive_file_versions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id').notNull(),
    nodeId: integer('node_id')
      .notNull()
      .references(() => driveNodes.id, { onDelete: 'cascade' }),
    versionNo: integer('version_no').notNull(),
    fileId: integer('file_id').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    mime: text('mime').notNull(),
    sha256: text('sha256').notNull(),
    /** a pinned version is never removed by the version cap */
    pinned: boolean('pinned').notNull().default(false),
    comment: text('comment').notNull().default(''),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('drive_file_versions_no').on(t.nodeId, t.versionNo),
    index('drive_file_versions_sha256').on(t.tenantId, t.sha256),
    index('drive_file_versions_file').on(t.fileId),
  ],
);

export const driveNodeStars = pgTable(
  'drive_node_stars',
  {
    userId: integer('user_id').notNull(),
    nodeId: integer('node_id')
      .notNull()
      .references(() => driveNodes.id, { onDelete: 'cascade' }),
    tenantId: tenantKey('tenant_id'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.nodeId] })],
);

export const driveRecentAccess = pgTable(
  'drive_recent_access',
  {
    userId: integer('user_id').notNull(),
    nodeId: integer('node_id')
      .notNull()
      .references(() => driveNodes.id, { onDelete: 'cascade' }),
    tenantId: tenantKey('tenant_id'),
    accessedAt: timestamptz('accessed_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.nodeId] }),
    index('drive_recent_access_by_user').on(t.userId, t.accessedAt),
  ],
);

export type ConflictPolicy = 'keepBoth' | 'overwrite' | 'skip';

/**
 * A chunked upload of the files module bound to its drive target: a folder (a new file there)
 * or a node (its next version), with the quota it reserved until complete or abort.
 */
export const driveUploadBindings = pgTable(
  'drive_upload_bindings',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    uploadSessionId: integer('upload_session_id').notNull(),
    spaceId: integer('space_id')
      .notNull()
      .references(() => driveSpaces.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id'),
    nodeId: integer('node_id'),
    name: text('name').notNull(),
    conflict: text('conflict').$type<ConflictPolicy>().notNull(),
    reservedBytes: bigint('reserved_bytes', { mode: 'number' }).notNull(),
    userId: integer('user_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [unique('drive_upload_bindings_session').on(t.uploadSessionId)],
);

/** A legal hold: the node and its subtree cannot be deleted, purged or expired while it is active. */
export const driveLegalHolds = pgTable(
  'drive_legal_holds',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id').notNull(),
    // no foreign key: the record of a hold outlives the node it held (purged after release)
    nodeId: integer('node_id').notNull(),
    reason: text('reason').notNull(),
    active: boolean('active').notNull().default(true),
    placedBy: integer('placed_by'),
    placedAt: timestamptz('placed_at').notNull().defaultNow(),
    releasedBy: integer('released_by'),
    releasedAt: timestamptz('released_at'),
    releaseNote: text('release_note'),
  },
  (t) => [
    uniqueIndex('drive_legal_holds_active').on(t.nodeId).where(sql`${t.active}`),
    index('drive_legal_holds_space').on(t.spaceId, t.active),
  ],
);

/**
 * Node activity and audit, partitioned by UTC month (range on `created_at`; the migration makes
 * it a partitioned table, the system task `drive.activityPartitions` creates months ahead).
 */
export const driveActivities = pgTable(
  'drive_activities',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id').notNull(),
    nodeId: integer('node_id'),
    actorUserId: integer('actor_user_id'),
    action: text('action').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    index('drive_activities_node').on(t.nodeId, t.createdAt),
    index('drive_activities_space').on(t.spaceId, t.createdAt),
  ],
);

/** Products of a file's current version: thumbnail and body text (filled by part 3's pipeline). */
export const driveNodeRenditions = pgTable(
  'drive_node_renditions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    nodeId: integer('node_id')
      .notNull()
      .references(() => driveNodes.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'thumbnail' | 'text'>().notNull(),
    versionId: integer('version_id').notNull(),
    fileId: integer('file_id'),
    status: text('status').$type<'pending' | 'ready' | 'failed'>().notNull().default('pending'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique('drive_node_renditions_kind').on(t.nodeId, t.kind)],
);

export type AccessRequestStatus = 'pending' | 'approved' | 'rejected' | 'withdrawn';

/**
 * A request for a role on a node (spec §2.2, §3.5): at most one pending request per person per
 * node (partial unique index); the approver sets the granted role and an optional expiry.
 */
export const driveAccessRequests = pgTable(
  'drive_access_requests',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id').notNull(),
    nodeId: integer('node_id')
      .notNull()
      .references(() => driveNodes.id, { onDelete: 'cascade' }),
    requesterUserId: integer('requester_user_id').notNull(),
    requestedRole: text('requested_role').$type<DriveRole>().notNull(),
    message: text('message').notNull().default(''),
    status: text('status').$type<AccessRequestStatus>().notNull().default('pending'),
    deciderUserId: integer('decider_user_id'),
    grantedRole: text('granted_role').$type<DriveRole>(),
    grantExpiresAt: timestamptz('grant_expires_at'),
    decisionNote: text('decision_note'),
    decidedAt: timestamptz('decided_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('drive_access_requests_pending').on(t.nodeId, t.requesterUserId).where(sql`${t.status} = 'pending'`),
    index('drive_access_requests_node').on(t.nodeId, t.status),
    index('drive_access_requests_requester').on(t.requesterUserId, t.createdAt),
    check('drive_access_requests_status', sql`${t.status} in ('pending', 'approved', 'rejected', 'withdrawn')`),
    check('drive_access_requests_requested_role', ROLE_CHECK(t.requestedRole)),
    check('drive_access_requests_granted_role', sql`${t.grantedRole} is null or ${ROLE_CHECK(t.grantedRole)}`),
  ],
);

export type ShareKind = 'share' | 'collect';
export type ShareCapability = 'preview' | 'download' | 'save';

/**
 * A share link (spec §2.2): the token is kept as its SHA-256 (lookups) and encrypted (so its
 * creator can see the link again); a revoke or a password change bumps `session_version`, which
 * ends every access session opened before.
 */
export const driveShareLinks = pgTable(
  'drive_share_links',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    spaceId: integer('space_id').notNull(),
    nodeId: integer('node_id')
      .notNull()
      .references(() => driveNodes.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<ShareKind>().notNull().default('share'),
    title: text('title').notNull().default(''),
    tokenHash: text('token_hash').notNull(),
    tokenEncrypted: text('token_encrypted').notNull(),
    passwordHash: text('password_hash'),
    capabilities: text('capabilities').array().$type<ShareCapability[]>().notNull().default(sql`'{preview}'::text[]`),
    expiresAt: timestamptz('expires_at'),
    maxAccessCount: integer('max_access_count'),
    accessCount: integer('access_count').notNull().default(0),
    maxDownloadCount: integer('max_download_count'),
    downloadCount: integer('download_count').notNull().default(0),
    allowedIps: text('allowed_ips').array().$type<string[]>().notNull().default(sql`'{}'::text[]`),
    watermark: boolean('watermark').notNull().default(false),
    collectPolicy: jsonb('collect_policy').$type<Record<string, unknown>>(),
    /** what a collection link has received so far (its cumulative limits are conditional updates on these) */
    collectFileCount: integer('collect_file_count').notNull().default(0),
    collectBytes: bigint('collect_bytes', { mode: 'number' }).notNull().default(0),
    /** the short link's code (`/api/drive/public/s/{code}`), made on demand */
    shortCode: text('short_code'),
    sessionVersion: integer('session_version').notNull().default(1),
    status: text('status').$type<'active' | 'revoked'>().notNull().default('active'),
    revokedAt: timestamptz('revoked_at'),
    revokedBy: integer('revoked_by'),
    remindedAt: timestamptz('reminded_at'),
    createdBy: integer('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    uniqueIndex('drive_share_links_token').on(t.tokenHash),
    uniqueIndex('drive_share_links_short_code').on(t.shortCode),
    index('drive_share_links_node').on(t.nodeId),
    index('drive_share_links_creator').on(t.createdBy, t.createdAt),
    check('drive_share_links_kind', sql`${t.kind} in ('share', 'collect')`),
    check('drive_share_links_status', sql`${t.status} in ('active', 'revoked')`),
    check('drive_share_links_counts', sql`${t.accessCount} >= 0 and ${t.downloadCount} >= 0`),
  ],
);

/**
 * A file submitted through a collection link (spec §2.2). The node reference is not a foreign
 * key: the record (name, size, hash, submitter, IP) is kept after the file is purged.
 */
export const driveCollectSubmissions = pgTable(
  'drive_collect_submissions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    linkId: integer('link_id')
      .notNull()
      .references(() => driveShareLinks.id, { onDelete: 'cascade' }),
    spaceId: integer('space_id').notNull(),
    nodeId: integer('node_id'),
    fileName: text('file_name').notNull(),
    originalName: text('original_name').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    submitterName: text('submitter_name'),
    note: text('note'),
    userId: integer('user_id'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
  },
  (t) => [index('drive_collect_submissions_link').on(t.linkId, t.createdAt)],
);

export type ShareAccessEvent = 'access' | 'download' | 'upload' | 'wrong_password';

/** What happened through share links (access, download, upload, wrong password), partitioned by UTC month. */
export const driveShareAccessLogs = pgTable(
  'drive_share_access_logs',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    tenantId: tenantKey('tenant_id'),
    linkId: integer('link_id').notNull(),
    nodeId: integer('node_id'),
    event: text('event').$type<ShareAccessEvent>().notNull(),
    userId: integer('user_id'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    index('drive_share_access_logs_link').on(t.linkId, t.createdAt),
  ],
);
