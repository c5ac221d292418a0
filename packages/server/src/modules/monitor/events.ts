import { defineEvents, IN_MAIL, WIDE } from '../../platform/events/define.ts';

/** Events of this module (docs/decisions/0008). Front-end error alert rules firing (alerts/); catalog group `ops` as in spec §6.2. */
export const monitorEvents = defineEvents('ops', {
  'ops.error.alert': {
    displayName: 'Front-end error alert',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: WIDE,
    title: '[{{condition}}] {{ruleName}}: {{message}}',
    content: 'Rule "{{ruleName}}" fired ({{condition}}): {{count}} events. Latest: {{message}}',
    variables: { ruleName: 'string', condition: 'string', count: 'number', message: 'string' },
  },
});

type MonitorNotifications = (typeof monitorEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends MonitorNotifications {}
}
