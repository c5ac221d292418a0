import { defineEvents, IN_MAIL, PERSONAL } from '../../platform/events/define.ts';

/** Events of this module (docs/decisions/0008). Tenant expiry reminders, sent by the daily system task identity.notifyTenantExpiry (jobs.ts). */
export const identityEvents = defineEvents('identity', {
  'identity.tenant.expiring': {
    displayName: 'Tenant subscription expiring',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    mandatory: true,
    title: 'Tenant {{tenantName}} expires on {{expiresAt}}',
    content: 'The subscription of {{tenantName}} expires on {{expiresAt}} ({{daysLeft}} days left).',
    variables: { tenantName: 'string', expiresAt: 'string', daysLeft: 'number' },
  },
  'identity.tenant.expired': {
    displayName: 'Tenant subscription expired',
    severity: 'critical',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    mandatory: true,
    title: 'Tenant {{tenantName}} has expired',
    content: 'The subscription of {{tenantName}} expired on {{expiresAt}}.',
    variables: { tenantName: 'string', expiresAt: 'string' },
  },
});

type IdentityNotifications = (typeof identityEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends IdentityNotifications {}
}
