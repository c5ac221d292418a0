/** The console's menu tree as first seeded; afterwards it is data, edited through /api/menus. */
export type SeedNode = {
  name: string;
  type: 'directory' | 'menu' | 'button';
  path?: string;
  component?: string;
  icon?: string;
  permission?: string;
  hidden?: boolean;
  children?: SeedNode[];
};

const button = (name: string, permission: string): SeedNode => ({ name, type: 'button', permission });
const crudButtons = (resource: string, prefix = 'system') => [
  button('Create', `${prefix}:${resource}:create`),
  button('Update', `${prefix}:${resource}:update`),
  button('Delete', `${prefix}:${resource}:delete`),
];
const page = (
  name: string,
  path: string,
  icon: string,
  permission: string | undefined,
  children: SeedNode[] = [],
): SeedNode => ({
  name,
  type: 'menu',
  path,
  component: `${path.slice(1)}/index`,
  icon,
  ...(permission ? { permission } : {}),
  children,
});

export const MENU_TREE: SeedNode[] = [
  {
    name: 'System',
    type: 'directory',
    path: '/system',
    icon: 'setting',
    children: [
      page('Users', '/system/users', 'user', 'system:user:list', [
        ...crudButtons('user'),
        button('Reset password', 'system:user:reset-password'),
        button('Unlock', 'system:user:unlock'),
      ]),
      page('Roles', '/system/roles', 'team', 'system:role:list', crudButtons('role')),
      page('Menus', '/system/menus', 'menu', 'system:menu:list', [
        button('Create', 'platform:menu:create'),
        button('Update', 'platform:menu:update'),
        button('Delete', 'platform:menu:delete'),
      ]),
      page('Departments', '/system/departments', 'apartment', 'system:dept:list', crudButtons('dept')),
      page('Positions', '/system/positions', 'idcard', 'system:position:list', crudButtons('position')),
      page('User groups', '/system/user-groups', 'usergroup', 'system:user-group:list', crudButtons('user-group')),
      page('Dictionaries', '/system/dictionaries', 'book', 'system:dict:list', crudButtons('dict')),
      page('System configs', '/system/configs', 'tool', 'system:config:list', crudButtons('config')),
      page('Notices', '/system/notices', 'notification', 'system:notice:list', [
        ...crudButtons('notice'),
        button('Publish', 'system:notice:publish'),
      ]),
      page('Files', '/system/files', 'folder', 'system:file:list', [
        button('Upload', 'system:file:upload'),
        button('Delete', 'system:file:delete'),
      ]),
      page('Storage', '/system/storage', 'database', 'system:storage:list', crudButtons('storage')),
      // Each settings module has its own {module}:setting:view|edit codes, checked by the API.
      page('Settings', '/system/settings', 'control', undefined),
    ],
  },
  {
    name: 'Messaging',
    type: 'directory',
    path: '/messaging',
    icon: 'message',
    children: [
      page('Notification policies', '/messaging/policies', 'apartment', 'system:notification-policy:view', [
        button('Edit', 'system:notification-policy:edit'),
      ]),
      page('Dispatch log', '/messaging/dispatches', 'unordered-list', 'system:notification-dispatch:list'),
      page('Announcements', '/messaging/announcements', 'sound', 'system:announcement:list', [
        ...crudButtons('announcement'),
        button('Publish', 'system:announcement:publish'),
      ]),
      page('In-app messages', '/messaging/in-app-messages', 'inbox', 'system:in-app-message:list', [
        button('Send', 'system:in-app-message:send'),
        button('Mark read', 'system:in-app-message:update'),
        button('Delete', 'system:in-app-message:delete'),
      ]),
      page(
        'In-app templates',
        '/messaging/in-app-templates',
        'file',
        'system:in-app-template:list',
        crudButtons('in-app-template'),
      ),
      page('Email', '/messaging/email', 'mail', 'system:email-config:view', [
        button('Update', 'system:email-config:update'),
      ]),
      page(
        'Email templates',
        '/messaging/email-templates',
        'file-text',
        'system:email-template:list',
        crudButtons('email-template'),
      ),
      page('Email logs', '/messaging/email-logs', 'history', 'system:email-send-log:list', [
        button('Delete', 'system:email-send-log:delete'),
      ]),
      page('SMS configs', '/messaging/sms-configs', 'mobile', 'system:sms-config:list', crudButtons('sms-config')),
      page(
        'SMS templates',
        '/messaging/sms-templates',
        'file-text',
        'system:sms-template:list',
        crudButtons('sms-template'),
      ),
      page('SMS logs', '/messaging/sms-logs', 'history', 'system:sms-send-log:list', [
        button('Delete', 'system:sms-send-log:delete'),
        button('Test send', 'system:sms-send-log:test'),
      ]),
      page('Push', '/messaging/push', 'notification', 'system:push-config:view', [
        button('Update', 'system:push-config:update'),
        button('Send logs', 'system:push-send-log:list'),
      ]),
    ],
  },
  {
    name: 'Monitor',
    type: 'directory',
    path: '/monitor',
    icon: 'monitor',
    children: [
      page('Online sessions', '/monitor/online', 'wifi', 'monitor:online:list', [
        button('Force logout', 'monitor:online:force-logout'),
      ]),
      page('Login logs', '/monitor/login-logs', 'login', 'monitor:login-log:list'),
      page('Operation logs', '/monitor/operation-logs', 'file-text', 'monitor:operation-log:list'),
      page('Server monitor', '/monitor/server', 'cloud-server', 'monitor:server:view'),
      page('Dashboard', '/monitor/dashboard', 'dashboard', 'dashboard:stats:view'),
      page('Front-end errors', '/monitor/frontend-errors', 'bug', 'monitor:error:list', [
        button('Manage', 'monitor:error:manage'),
      ]),
      page('Error alerts', '/monitor/error-alerts', 'alert', 'monitor:alert:list', [
        button('Manage', 'monitor:alert:manage'),
      ]),
      // The task center lists each user's own tasks; it needs no permission of its own.
      page('Tasks', '/monitor/tasks', 'schedule', undefined),
    ],
  },
  {
    name: 'Drive',
    type: 'directory',
    path: '/drive',
    icon: 'cloud',
    children: [
      page('Files', '/drive/files', 'folder-open', 'drive:node:view', [
        button('Edit files', 'drive:node:edit'),
        button('Spaces', 'drive:space:view'),
        button('Manage spaces', 'drive:space:edit'),
      ]),
      page('Drive administration', '/drive/admin', 'safety', 'drive:admin:space:edit'),
      page('Drive settings', '/drive/settings', 'setting', 'drive:setting:view', [
        button('Update', 'drive:setting:edit'),
      ]),
    ],
  },
  {
    name: 'Payment',
    type: 'directory',
    path: '/payment',
    icon: 'pay-circle',
    children: [
      page('Channel configurations', '/payment/channel-configs', 'setting', 'payment:config:view', [
        button('Edit', 'payment:config:edit'),
      ]),
      page('Orders', '/payment/orders', 'shopping', 'payment:order:view', [
        button('Create', 'payment:order:create'),
        button('Query channel', 'payment:order:query'),
        button('Refund', 'payment:refund:create'),
      ]),
      page('Payment events', '/payment/events', 'retweet', 'payment:ops:manage'),
      page('Callback logs', '/payment/notify-logs', 'file-search', 'payment:notify-log:view'),
      page('Payment webhooks', '/payment/webhooks', 'send', 'payment:webhook:view', [
        button('Manage', 'payment:webhook:manage'),
      ]),
    ],
  },
  {
    name: 'Open Platform',
    type: 'directory',
    path: '/open-platform',
    icon: 'api',
    children: [
      page('Applications', '/open-platform/apps', 'appstore', 'open:app:list', [
        ...crudButtons('app', 'open'),
        button('Rotate secret', 'open:app:secret'),
      ]),
      page('Webhooks', '/open-platform/webhooks', 'send', 'open:webhook:list'),
    ],
  },
  {
    name: 'Platform',
    type: 'directory',
    path: '/platform',
    icon: 'cluster',
    children: [
      page('Tenants', '/platform/tenants', 'shop', 'platform:tenant:list', [
        button('Create', 'platform:tenant:create'),
        button('Update', 'platform:tenant:update'),
      ]),
      page('Cron jobs', '/platform/cron-jobs', 'field-time', 'platform:cron:list', [
        ...crudButtons('cron', 'platform'),
        button('Run now', 'platform:cron:run'),
      ]),
    ],
  },
  // Personal pages (spec §9.3, v0.1.3): hidden from the navigation, shown to every role.
  { ...page('Profile', '/profile', 'user', undefined), hidden: true },
  { ...page('Notification center', '/notifications', 'bell', undefined), hidden: true },
];
