import { defineEvents } from '../../platform/events/define.ts';

/** Events of this module (docs/decisions/0008). The digest email (spec §2.3), a hidden meta event. */
export const messagingEvents = defineEvents('messaging', {
  'messaging.digest': {
    displayName: 'Notification digest',
    defaultChannels: ['email'],
    hidden: true,
    bypassQuietHours: true,
    title: 'Your notification digest: {{count}} new',
    content: 'You have {{count}} notifications since the last digest:\n\n{{lines}}',
    variables: { count: 'number', lines: 'string' },
  },
});

type MessagingNotifications = (typeof messagingEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends MessagingNotifications {}
}
