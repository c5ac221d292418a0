import { defineEvents, HOUR, IN, IN_MAIL, PERSONAL, WIDE } from '../../../platform/events/define.ts';
import type { ModuleEvents } from '../../../platform/events/types.ts';

/**
 * Notification events (spec §6.2) of modules that do not exist yet: wiki, workflow, report,
 * and feedback. The catalog keeps every key of §6.2 (overrides and preferences can
 * name them, the console lists them), and a module owns its events, so they wait here, in the
 * notification center that would deliver them, until their module is built: then each group
 * moves to that module's events.ts unchanged (docs/decisions/0008). Their webhook events
 * (spec §6.1, §6.3) are not declared before their module: a subscription must only name events
 * something emits.
 */
const wiki = defineEvents('wiki', {
  'wiki.doc.published': {
    displayName: 'Document published',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: '{{docTitle}} was published',
    content: '{{actorName}} published "{{docTitle}}".',
    variables: { docTitle: 'string', actorName: 'string' },
  },
  'wiki.doc.commented': {
    displayName: 'Comment on my document',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'New comment on {{docTitle}}',
    content: '{{actorName}} commented on "{{docTitle}}": {{excerpt}}',
    variables: { docTitle: 'string', actorName: 'string', excerpt: 'string?' },
  },
  'wiki.doc.mentioned': {
    displayName: 'Mentioned in a document',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: '{{actorName}} mentioned you in {{docTitle}}',
    content: '{{actorName}} mentioned you in "{{docTitle}}".',
    variables: { docTitle: 'string', actorName: 'string' },
  },
  'wiki.doc.reviewed': {
    displayName: 'Document review result',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: '{{docTitle}}: review {{result}}',
    content: '{{actorName}} reviewed "{{docTitle}}": {{result}}.',
    variables: { docTitle: 'string', actorName: 'string', result: 'string' },
  },
  'wiki.governance.maintenance_due': {
    displayName: 'Document maintenance due',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: '{{docTitle}} needs maintenance',
    content: '"{{docTitle}}" is due for maintenance by {{dueDate}}.',
    variables: { docTitle: 'string', dueDate: 'string' },
  },
  'wiki.governance.review_due': {
    displayName: 'Document review due',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: '{{docTitle}} is due for review',
    content: '"{{docTitle}}" is due for review by {{dueDate}}.',
    variables: { docTitle: 'string', dueDate: 'string' },
  },
});

const task = { taskTitle: 'string', processName: 'string', actorName: 'string?' } as const;
const instance = { processName: 'string', instanceTitle: 'string', actorName: 'string?', comment: 'string?' } as const;
const workflow = defineEvents('workflow', {
  'workflow.task.created': {
    displayName: 'New approval task',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: 'Approval needed: {{taskTitle}}',
    content: 'A task of "{{processName}}" waits for you: {{taskTitle}}.',
    variables: task,
  },
  'workflow.task.cc': {
    displayName: 'Copied on an approval',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'For your information: {{taskTitle}}',
    content: 'You were copied on "{{taskTitle}}" ({{processName}}).',
    variables: task,
  },
  'workflow.task.urged': {
    displayName: 'Approval urged',
    severity: 'important',
    defaultChannels: ['inapp', 'email', 'sms'],
    availableChannels: PERSONAL,
    title: 'Reminder: {{taskTitle}}',
    content: '{{actorName}} asks you to handle "{{taskTitle}}" ({{processName}}).',
    rateLimit: { max: 3, windowSeconds: HOUR },
    variables: task,
  },
  'workflow.task.transferred': {
    displayName: 'Approval transferred to me',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: 'Transferred to you: {{taskTitle}}',
    content: '{{actorName}} transferred "{{taskTitle}}" ({{processName}}) to you.',
    variables: task,
  },
  'workflow.instance.approved': {
    displayName: 'My request approved',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: 'Approved: {{instanceTitle}}',
    content: '"{{instanceTitle}}" ({{processName}}) was approved.',
    variables: instance,
  },
  'workflow.instance.rejected': {
    displayName: 'My request rejected',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: 'Rejected: {{instanceTitle}}',
    content: '"{{instanceTitle}}" ({{processName}}) was rejected by {{actorName}}: {{comment}}',
    variables: instance,
  },
  'workflow.instance.withdrawn': {
    displayName: 'Request withdrawn',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Withdrawn: {{instanceTitle}}',
    content: '"{{instanceTitle}}" ({{processName}}) was withdrawn.',
    variables: instance,
  },
  'workflow.instance.returned': {
    displayName: 'My request returned',
    defaultChannels: IN_MAIL,
    availableChannels: PERSONAL,
    title: 'Returned: {{instanceTitle}}',
    content: '"{{instanceTitle}}" ({{processName}}) was returned to you: {{comment}}',
    variables: instance,
  },
  'workflow.consult.invited': {
    displayName: 'Consultation requested',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Your opinion is requested: {{taskTitle}}',
    content: '{{actorName}} asks your opinion on "{{taskTitle}}" ({{processName}}).',
    variables: task,
  },
  'workflow.consult.replied': {
    displayName: 'Consultation answered',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Opinion received: {{taskTitle}}',
    content: '{{actorName}} answered your consultation on "{{taskTitle}}".',
    variables: task,
  },
  'workflow.comment.mentioned': {
    displayName: 'Mentioned in an approval comment',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: '{{actorName}} mentioned you',
    content: '{{actorName}} mentioned you on "{{instanceTitle}}" ({{processName}}).',
    variables: instance,
  },
  'workflow.node.exception': {
    displayName: 'Process node exception',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: WIDE,
    title: 'Process exception: {{processName}}',
    content: 'A node of "{{instanceTitle}}" ({{processName}}) failed: {{comment}}',
    variables: instance,
  },
  'workflow.automation.message': {
    displayName: 'Automation message',
    defaultChannels: IN,
    availableChannels: WIDE,
    title: '{{title}}',
    content: '{{content}}',
    variables: { title: 'string', content: 'string' },
  },
});

const report = defineEvents('report', {
  'report.dashboard.mentioned': {
    displayName: 'Mentioned on a dashboard',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: '{{actorName}} mentioned you on {{dashboardName}}',
    content: '{{actorName}} mentioned you on the dashboard "{{dashboardName}}".',
    variables: { actorName: 'string', dashboardName: 'string' },
  },
});

const feedback = defineEvents('platform', {
  'platform.feedback.handled': {
    displayName: 'Feedback handled',
    defaultChannels: IN,
    availableChannels: PERSONAL,
    title: 'Your feedback was handled',
    content: 'Your feedback "{{subject}}" was handled: {{reply}}',
    variables: { subject: 'string', reply: 'string' },
  },
});

export const unbuiltModuleEvents: ModuleEvents[] = [wiki, workflow, report, feedback];

type Unbuilt = (typeof wiki)['notifications'] &
  (typeof workflow)['notifications'] &
  (typeof report)['notifications'] &
  (typeof feedback)['notifications'];
declare module '../../../platform/events/types.ts' {
  interface NotificationEvents extends Unbuilt {}
}
