/**
 * The `x-permission` of the identity operations in the snapshot (src/api/openapi.json). To be
 * replaced by the generated operation → permission map (src/api/permissions.ts) once it lands.
 */
export const CODES = {
  user: {
    list: 'system:user:list',
    create: 'system:user:create',
    update: 'system:user:update',
    delete: 'system:user:delete',
    resetPassword: 'system:user:reset-password',
    unlock: 'system:user:unlock',
  },
  role: {
    list: 'system:role:list',
    create: 'system:role:create',
    update: 'system:role:update',
    delete: 'system:role:delete',
  },
  menu: {
    list: 'system:menu:list',
    create: 'platform:menu:create',
    update: 'platform:menu:update',
    delete: 'platform:menu:delete',
  },
  dept: {
    list: 'system:dept:list',
    create: 'system:dept:create',
    update: 'system:dept:update',
    delete: 'system:dept:delete',
  },
  position: {
    list: 'system:position:list',
    create: 'system:position:create',
    update: 'system:position:update',
    delete: 'system:position:delete',
  },
  group: {
    list: 'system:user-group:list',
    create: 'system:user-group:create',
    update: 'system:user-group:update',
    delete: 'system:user-group:delete',
  },
  tenant: { list: 'platform:tenant:list', create: 'platform:tenant:create', update: 'platform:tenant:update' },
} as const;
