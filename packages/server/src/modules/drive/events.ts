import { defineEvents, HOUR, IN, IN_MAIL, PERSONAL, WIDE } from '../../platform/events/define.ts';

/**
 * The drive's notification events (catalog group `drive`, docs/decisions/0008). Part 1 sends
 * drive.node.shared, drive.space.joined and drive.quota.warning; the others are declared for
 * parts 2 and 3 so preferences and templates can be set ahead.
 */
const node = { nodeName: 'string', spaceName: 'string', actorName: 'string?' } as const;
export const driveEvents = defineEvents('drive', {
  'drive.node.shared': {
    displayName: 'File shared with me',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: '{{actorName}} shared {{nodeName}} with you',
    content: '{{actorName}} shared "{{nodeName}}" in {{spaceName}} with you.',
    variables: node,
  },
  'drive.space.joined': {
    displayName: 'Added to a space',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'You joined {{spaceName}}',
    content: '{{actorName}} added you to the space "{{spaceName}}" as {{role}}.',
    variables: { spaceName: 'string', role: 'string', actorName: 'string?' },
  },
  'drive.quota.warning': {
    displayName: 'Space quota warning',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: '{{spaceName}} is {{percent}}% full',
    content: 'The space "{{spaceName}}" uses {{percent}}% of its quota.',
    rateLimit: { max: 1, windowSeconds: 24 * HOUR },
    variables: { spaceName: 'string', percent: 'number' },
  },
  'drive.zip.ready': {
    displayName: 'Zip download ready',
    defaultChannels: IN,
    availableChannels: IN_MAIL,
    title: 'Your zip {{fileName}} is ready',
    content: 'The zip "{{fileName}}" is ready to download until {{expiresAt}}.',
    variables: { fileName: 'string', expiresAt: 'string' },
  },
  'drive.access.requested': {
    displayName: 'Access requested',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: '{{actorName}} requests access to {{nodeName}}',
    content: '{{actorName}} requests {{role}} access to "{{nodeName}}" in {{spaceName}}.',
    variables: { ...node, role: 'string' },
  },
  'drive.access.resolved': {
    displayName: 'Access request answered',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Access to {{nodeName}}: {{result}}',
    content: 'Your request for "{{nodeName}}" in {{spaceName}} was {{result}}.',
    variables: { ...node, result: 'string' },
  },
  'drive.link.expiring': {
    displayName: 'Share link expiring',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Your link to {{nodeName}} expires soon',
    content: 'The share link to "{{nodeName}}" expires on {{expiresAt}}.',
    variables: { ...node, expiresAt: 'string' },
  },
  'drive.link.digest': {
    displayName: 'Share link activity digest',
    defaultChannels: IN,
    availableChannels: IN_MAIL,
    title: 'Your share links on {{day}}: {{opens}} opens',
    content: 'What happened through your share links on {{day}} (UTC):\n{{summary}}',
    variables: { day: 'string', links: 'number', opens: 'number', summary: 'string' },
  },
  'drive.grant.expiring': {
    displayName: 'Access grant expiring',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Your access to {{nodeName}} expires soon',
    content: 'Your access to "{{nodeName}}" in {{spaceName}} expires on {{expiresAt}}.',
    variables: { ...node, expiresAt: 'string' },
  },
  'drive.collect.received': {
    displayName: 'File collected',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'New file in {{linkName}}',
    content: '{{submitter}} submitted "{{fileName}}" to the collection "{{linkName}}".',
    variables: { linkName: 'string', fileName: 'string', submitter: 'string' },
  },
  'drive.quota.requested': {
    displayName: 'Quota increase requested',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: 'Quota request for {{spaceName}}',
    content: '{{actorName}} asks to raise the quota of "{{spaceName}}" to {{requested}}.',
    variables: { spaceName: 'string', requested: 'string', actorName: 'string?' },
  },
  'drive.quota.resolved': {
    displayName: 'Quota request answered',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Quota request for {{spaceName}}: {{result}}',
    content: 'Your quota request for "{{spaceName}}" was {{result}}.',
    variables: { spaceName: 'string', result: 'string' },
  },
  'drive.legal_hold.changed': {
    displayName: 'Legal hold changed',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    mandatory: true,
    title: 'Legal hold {{action}}: {{nodeName}}',
    content: 'A legal hold on "{{nodeName}}" in {{spaceName}} was {{action}} by {{actorName}}.',
    variables: { ...node, action: 'string' },
  },
  'drive.behavior.abnormal': {
    displayName: 'Abnormal drive activity',
    severity: 'critical',
    defaultChannels: IN_MAIL,
    availableChannels: WIDE,
    title: 'Abnormal activity: {{actorName}}',
    content: '{{actorName}} {{behavior}} ({{count}} operations in {{minutes}} minutes).',
    rateLimit: { max: 5, windowSeconds: HOUR },
    variables: { actorName: 'string', behavior: 'string', count: 'number', minutes: 'number' },
  },
});

type DriveNotifications = (typeof driveEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends DriveNotifications {}
}
