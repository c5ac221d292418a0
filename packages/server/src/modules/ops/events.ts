import { defineEvents, HOUR, IN, IN_MAIL, WIDE } from '../../platform/events/define.ts';

/** Events of this module (docs/decisions/0008). Server monitor thresholds and the licence, checked by the system tasks in jobs.ts. */
export const opsEvents = defineEvents('ops', {
  'ops.monitor.alert': {
    displayName: 'Server monitor alert',
    severity: 'critical',
    defaultChannels: IN_MAIL,
    availableChannels: WIDE,
    title: '[{{level}}] {{metric}} on {{host}}',
    content: '{{metric}} on {{host}} is {{value}} (threshold {{threshold}}).',
    rateLimit: { max: 6, windowSeconds: HOUR },
    variables: { host: 'string', metric: 'string', value: 'string', threshold: 'string', level: 'string' },
  },
  'ops.monitor.alert_test': {
    displayName: 'Server monitor alert (test)',
    defaultChannels: IN,
    availableChannels: WIDE,
    hidden: true,
    title: 'Test alert from {{host}}',
    content: 'This is a test of the monitor alert channels.',
    variables: { host: 'string' },
  },
  'ops.license.expiring': {
    displayName: 'Licence expiring',
    severity: 'important',
    defaultChannels: IN_MAIL,
    mandatory: true,
    title: 'The licence expires on {{expiresAt}}',
    content: 'The Atrium licence for {{licensee}} expires on {{expiresAt}}.',
    variables: { licensee: 'string', expiresAt: 'string' },
  },
  'ops.license.invalid': {
    displayName: 'Licence invalid',
    severity: 'critical',
    defaultChannels: IN_MAIL,
    mandatory: true,
    title: 'The licence is invalid',
    content: 'The installed licence was rejected: {{reason}}',
    variables: { reason: 'string' },
  },
});

type OpsNotifications = (typeof opsEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends OpsNotifications {}
}
