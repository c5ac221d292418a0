import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, serial, text, unique } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../platform/db/columns.ts';
import { tenantKey } from '../../platform/db/tenant-key.ts';

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    nickname: text('nickname').notNull(),
    email: text('email'),
    phone: text('phone'),
    departmentId: integer('department_id'),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    isSuper: boolean('is_super').notNull().default(false),
    failedLoginCount: integer('failed_login_count').notNull().default(0),
    lockedUntil: timestamptz('locked_until'),
    passwordChangedAt: timestamptz('password_changed_at'),
    lastLoginAt: timestamptz('last_login_at'),
    lastLoginIp: text('last_login_ip'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    unique('users_tenant_username').on(t.tenantId, t.username),
    index('users_department').on(t.departmentId),
  ],
);

export const roles = pgTable(
  'roles',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    code: text('code').notNull(),
    name: text('name').notNull(),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    sort: integer('sort').notNull().default(0),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique().on(t.tenantId, t.id), unique('roles_tenant_code').on(t.tenantId, t.code)],
);

/** The menu tree is platform-wide; roles decide who sees which node. */
export const menus = pgTable('menus', {
  id: serial('id').primaryKey(),
  parentId: integer('parent_id'),
  type: text('type').$type<'directory' | 'menu' | 'button'>().notNull(),
  name: text('name').notNull(),
  path: text('path').notNull().default(''),
  component: text('component').notNull().default(''),
  icon: text('icon').notNull().default(''),
  permission: text('permission'),
  sort: integer('sort').notNull().default(0),
  hidden: boolean('hidden').notNull().default(false),
  status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const roleMenus = pgTable(
  'role_menus',
  {
    tenantId: tenantKey('tenant_id'),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    menuId: integer('menu_id')
      .notNull()
      .references(() => menus.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.menuId] })],
);

export const userRoles = pgTable(
  'user_roles',
  {
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('user_roles_role').on(t.roleId)],
);

/** ancestor_ids lists every ancestor, root first: "department and sub-departments" is one index lookup. */
export const departments = pgTable(
  'departments',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    parentId: integer('parent_id'),
    ancestorIds: integer('ancestor_ids').array().notNull().default(sql`'{}'::integer[]`),
    name: text('name').notNull(),
    headUserId: integer('head_user_id'),
    sort: integer('sort').notNull().default(0),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('departments_tenant_parent').on(t.tenantId, t.parentId),
    index('departments_ancestors').using('gin', t.ancestorIds),
  ],
);

export const positions = pgTable(
  'positions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    code: text('code').notNull(),
    name: text('name').notNull(),
    sort: integer('sort').notNull().default(0),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique().on(t.tenantId, t.id), unique('positions_tenant_code').on(t.tenantId, t.code)],
);

export const userPositions = pgTable(
  'user_positions',
  {
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    positionId: integer('position_id')
      .notNull()
      .references(() => positions.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.positionId] })],
);

export const userGroups = pgTable(
  'user_groups',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    name: text('name').notNull(),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique().on(t.tenantId, t.id), unique('user_groups_tenant_name').on(t.tenantId, t.name)],
);

export const userGroupMembers = pgTable(
  'user_group_members',
  {
    tenantId: tenantKey('tenant_id'),
    groupId: integer('group_id')
      .notNull()
      .references(() => userGroups.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index('user_group_members_user').on(t.userId)],
);

/** A sign-in. The access JWT names it (`sid`); revoking it ends every token of the sign-in. */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ip: text('ip').notNull(),
    userAgent: text('user_agent').notNull().default(''),
    createdAt: createdAt(),
    lastActiveAt: timestamptz('last_active_at').notNull().defaultNow(),
    expiresAt: timestamptz('expires_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
    revokeReason: text('revoke_reason'),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    index('user_sessions_user').on(t.userId),
    index('user_sessions_tenant_active').on(t.tenantId, t.expiresAt),
  ],
);

/** Every refresh token ever issued, as SHA-256 only; a used one presented again revokes its session. */
export const refreshTokens = pgTable('refresh_tokens', {
  id: serial('id').primaryKey(),
  tenantId: tenantKey('tenant_id'),
  sessionId: integer('session_id')
    .notNull()
    .references(() => userSessions.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: createdAt(),
  usedAt: timestamptz('used_at'),
});

export const loginLogs = pgTable(
  'login_logs',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id'),
    username: text('username').notNull(),
    ip: text('ip').notNull(),
    userAgent: text('user_agent').notNull().default(''),
    success: boolean('success').notNull(),
    reason: text('reason').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('login_logs_tenant_time').on(t.tenantId, t.createdAt), index('login_logs_user').on(t.userId)],
);

/**
 * What the seed has applied: a menu node of the built-in tree (by its path, or parent key `#`
 * code for a button) or a tenant permission code. A marked item is never applied again, so what an
 * administrator removed stays removed across upgrades (docs/decisions/0027).
 */
export const identitySeedMarks = pgTable(
  'identity_seed_marks',
  {
    kind: text('kind').$type<'menu' | 'permission'>().notNull(),
    key: text('key').notNull(),
    appliedAt: timestamptz('applied_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] })],
);
