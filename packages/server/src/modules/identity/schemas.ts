import { type TSchema, Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Status, Timestamp } from '../../platform/http/schemas.ts';

/** Wire shapes of the identity admin API (users, roles, menus, tenants, permissions). */

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const IdList = (description: string) => Type.Array(Id, { maxItems: 500, uniqueItems: true, description });
const Remark = Type.String({ maxLength: 500 });
const Keyword = Type.String({ minLength: 1, maxLength: 64, description: 'case-insensitive substring' });

export const Username = Type.String({ minLength: 2, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' });
/** The length floor is the security setting `passwordMinLength`, checked by the service. */
export const Password = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'at least security.passwordMinLength characters',
});
const Email = Type.String({ format: 'email', maxLength: 254 });
const Phone = Type.String({ maxLength: 32, pattern: '^[0-9+()\\- ]{3,32}$' });
/** `<family>:<resource>:<action>`, e.g. `system:user:create`. */
export const PermissionCode = Type.String({ maxLength: 128, pattern: '^[a-z][a-z0-9-]*(:[a-z][a-z0-9-]*){1,3}$' });

// ---- users
export const UserView = Type.Object({
  id: Type.Integer(),
  tenantId: Nullable(Type.Integer()),
  username: Type.String(),
  nickname: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  departmentId: Nullable(Type.Integer()),
  status: Status,
  isSuper: Type.Boolean(),
  failedLoginCount: Type.Integer(),
  lockedUntil: NullableTimestamp,
  lastLoginAt: NullableTimestamp,
  lastLoginIp: Nullable(Type.String()),
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const UserDetail = Type.Intersect([
  UserView,
  Type.Object({
    roleIds: Type.Array(Type.Integer()),
    positionIds: Type.Array(Type.Integer()),
    groupIds: Type.Array(Type.Integer()),
  }),
]);
export const UserListQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Keyword),
  status: Type.Optional(Status),
  departmentId: Type.Optional(Id),
  includeSubDepartments: Type.Optional(
    Type.Boolean({ default: false, description: 'with departmentId: also its sub-departments' }),
  ),
  roleId: Type.Optional(Id),
});
const userFields = {
  nickname: Type.String({ minLength: 1, maxLength: 64 }),
  email: Nullable(Email),
  phone: Nullable(Phone),
  departmentId: Nullable(Id),
  roleIds: IdList('roles of the caller’s tenant'),
  positionIds: IdList('positions of the caller’s tenant'),
  status: Status,
  remark: Remark,
};
export const UserCreateBody = Type.Object({
  username: Username,
  password: Password,
  nickname: userFields.nickname,
  email: Type.Optional(userFields.email),
  phone: Type.Optional(userFields.phone),
  departmentId: Type.Optional(userFields.departmentId),
  roleIds: Type.Optional(userFields.roleIds),
  positionIds: Type.Optional(userFields.positionIds),
  status: Type.Optional(userFields.status),
  remark: Type.Optional(userFields.remark),
});
/** Partial: only the fields sent change; `roleIds` / `positionIds` replace the whole set. */
export const UserUpdateBody = Type.Partial(Type.Object(userFields));
export const ResetPasswordBody = Type.Object({ password: Password });

// ---- roles
export const RoleView = Type.Object({
  id: Type.Integer(),
  tenantId: Nullable(Type.Integer()),
  code: Type.String(),
  name: Type.String(),
  permissions: Type.Array(Type.String()),
  status: Status,
  sort: Type.Integer(),
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const RoleDetail = Type.Intersect([RoleView, Type.Object({ menuIds: Type.Array(Type.Integer()) })]);
export const RoleListQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Keyword),
  status: Type.Optional(Status),
});
const roleFields = {
  code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' }),
  name: Type.String({ minLength: 1, maxLength: 64 }),
  permissions: Type.Array(PermissionCode, {
    maxItems: 1000,
    uniqueItems: true,
    description: 'codes of GET /api/permissions',
  }),
  menuIds: IdList('menu nodes the role shows; hidden personal pages are always added'),
  status: Status,
  sort: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  remark: Remark,
};
export const RoleCreateBody = Type.Object({
  code: roleFields.code,
  name: roleFields.name,
  permissions: Type.Optional(roleFields.permissions),
  menuIds: Type.Optional(roleFields.menuIds),
  status: Type.Optional(roleFields.status),
  sort: Type.Optional(roleFields.sort),
  remark: Type.Optional(roleFields.remark),
});
export const RoleUpdateBody = Type.Partial(Type.Object(roleFields));

// ---- menus
export const MenuType = Type.Union([Type.Literal('directory'), Type.Literal('menu'), Type.Literal('button')]);
const menuProps = {
  id: Type.Integer(),
  parentId: Nullable(Type.Integer()),
  type: MenuType,
  name: Type.String(),
  path: Type.String(),
  component: Type.String(),
  icon: Type.String(),
  permission: Nullable(Type.String()),
  sort: Type.Integer(),
  hidden: Type.Boolean(),
  status: Status,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
export const MenuView = Type.Object(menuProps);
export const MenuTree = Type.Cyclic(
  { MenuTreeNode: Type.Object({ ...menuProps, children: Type.Array(Type.Ref('MenuTreeNode')) }) },
  'MenuTreeNode',
);
const menuFields = {
  parentId: Nullable(Id),
  type: MenuType,
  name: Type.String({ minLength: 1, maxLength: 64 }),
  path: Type.String({ maxLength: 255 }),
  component: Type.String({ maxLength: 255 }),
  icon: Type.String({ maxLength: 64 }),
  permission: Nullable(PermissionCode),
  sort: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  hidden: Type.Boolean(),
  status: Status,
};
export const MenuCreateBody = Type.Object({
  parentId: Type.Optional(menuFields.parentId),
  type: menuFields.type,
  name: menuFields.name,
  path: Type.Optional(menuFields.path),
  component: Type.Optional(menuFields.component),
  icon: Type.Optional(menuFields.icon),
  permission: Type.Optional(menuFields.permission),
  sort: Type.Optional(menuFields.sort),
  hidden: Type.Optional(menuFields.hidden),
  status: Type.Optional(menuFields.status),
});
export const MenuUpdateBody = Type.Partial(Type.Object(menuFields));

// ---- tenants
export const TenantCode = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,31}$' });
export const TenantView = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  status: Status,
  expiresAt: NullableTimestamp,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const TenantCreated = Type.Intersect([
  TenantView,
  Type.Object({ admin: Type.Object({ id: Type.Integer(), username: Type.String(), roleId: Type.Integer() }) }),
]);
export const TenantListQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Keyword),
  status: Type.Optional(Status),
});
const tenantFields = {
  name: Type.String({ minLength: 1, maxLength: 128 }),
  status: Status,
  expiresAt: Nullable(Timestamp),
  remark: Remark,
};
export const TenantCreateBody = Type.Object({
  code: TenantCode,
  name: tenantFields.name,
  expiresAt: Type.Optional(tenantFields.expiresAt),
  remark: Type.Optional(tenantFields.remark),
  adminUsername: Username,
  adminPassword: Password,
});
export const TenantUpdateBody = Type.Partial(Type.Object(tenantFields));

// ---- permission registry
export const PermissionGroups = Type.Array(
  Type.Object({ group: Type.String({ description: 'first segment of the code' }), codes: Type.Array(Type.String()) }),
);

// ---- navigation and effective permissions
/** A node of a person's navigation: the menu tree their active roles show (all of it for a super administrator). */
export const MenuNode = Type.Cyclic(
  {
    MenuNode: Type.Object({
      id: Type.Integer(),
      parentId: Type.Union([Type.Integer(), Type.Null()]),
      type: Type.String(),
      name: Type.String(),
      path: Type.String(),
      component: Type.String(),
      icon: Type.String(),
      permission: Type.Union([Type.String(), Type.Null()]),
      sort: Type.Integer(),
      hidden: Type.Boolean(),
      children: Type.Array(Type.Ref('MenuNode')),
    }),
  },
  'MenuNode',
);

const HeldRole = {
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  status: Status,
};
export const EffectivePermissions = Type.Object({
  userId: Type.Integer(),
  isSuper: Type.Boolean({
    description: 'a super administrator passes every permission check, whatever their roles hold',
  }),
  roles: Type.Array(Type.Object(HeldRole), { description: 'every role the user holds; a disabled one grants nothing' }),
  groups: Type.Array(
    Type.Object({
      group: Type.String({ description: 'first segment of the code, as GET /api/permissions groups them' }),
      codes: Type.Array(
        Type.Object({
          code: Type.String(),
          granted: Type.Boolean({ description: 'the user passes this check: by super status or an active role' }),
          bySuper: Type.Boolean({ description: 'granted because the user is a super administrator' }),
          declared: Type.Boolean({
            description: 'a route declares the code; an undeclared one (left from an older version) guards nothing',
          }),
          grants: Type.Array(
            Type.Object({
              ...HeldRole,
              granting: Type.Boolean({ description: 'false when the role is disabled: it grants nothing' }),
              via: Type.Array(Type.Union([Type.Literal('code'), Type.Literal('menu')]), {
                description: 'code: the role lists it; menu: a menu node bound to the role carries it',
              }),
            }),
            { description: 'the roles of the user that hold the code, disabled ones included' },
          ),
        }),
      ),
    }),
  ),
  menus: Type.Array(MenuNode, { description: 'the navigation the user sees' }),
});
