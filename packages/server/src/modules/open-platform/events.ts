import { defineEvents, HOUR, IN_MAIL, PERSONAL, WIDE } from '../../platform/events/define.ts';

/**
 * Events of this module (docs/decisions/0008). Only `webhook.delivery_failed` is sent today:
 * application review and API quotas are not built (the spec names their events and nothing
 * else), so `app.review_requested`, `app.reviewed` and `quota.threshold_exceeded` stay declared
 * for the catalog and its policies until those features exist.
 */
export const openPlatformEvents = defineEvents('open-platform', {
  'open-platform.app.review_requested': {
    displayName: 'Application review requested',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: 'Review requested: {{appName}}',
    content: '{{actorName}} asks for a review of the application "{{appName}}".',
    variables: { appName: 'string', actorName: 'string' },
  },
  'open-platform.app.reviewed': {
    displayName: 'Application reviewed',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: '{{appName}}: {{result}}',
    content: 'The application "{{appName}}" was reviewed: {{result}}. {{comment}}',
    variables: { appName: 'string', result: 'string', comment: 'string?' },
  },
  'open-platform.webhook.delivery_failed': {
    displayName: 'Webhook delivery failing',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: WIDE,
    title: 'Webhook of {{appName}} is failing',
    content: 'Deliveries to {{url}} failed {{failures}} times; last error: {{error}}',
    rateLimit: { max: 4, windowSeconds: HOUR },
    variables: { appName: 'string', url: 'string', failures: 'number', error: 'string' },
  },
  'open-platform.quota.threshold_exceeded': {
    displayName: 'API quota threshold exceeded',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: WIDE,
    title: '{{appName}} used {{percent}}% of its quota',
    content: 'The application "{{appName}}" used {{percent}}% of its {{period}} API quota.',
    rateLimit: { max: 1, windowSeconds: 24 * HOUR },
    variables: { appName: 'string', percent: 'number', period: 'string' },
  },
});

type OpenPlatformNotifications = (typeof openPlatformEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends OpenPlatformNotifications {}
}
