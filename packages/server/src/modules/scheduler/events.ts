import { defineEvents, HOUR, IN, IN_MAIL, WIDE } from '../../platform/events/define.ts';

/** Events of this module (docs/decisions/0008). Cron run failures (runner.ts); catalog group `ops` as in spec §6.2. */
export const schedulerEvents = defineEvents('ops', {
  'ops.scheduler.job_failed': {
    displayName: 'Scheduled job failed',
    severity: 'important',
    defaultChannels: IN_MAIL,
    availableChannels: WIDE,
    title: 'Job failed: {{jobName}}',
    content: 'Scheduled job "{{jobName}}" failed: {{error}}',
    rateLimit: { max: 10, windowSeconds: HOUR },
    variables: { jobName: 'string', error: 'string' },
  },
  'ops.scheduler.task_alert': {
    displayName: 'Scheduled task alert',
    severity: 'important',
    defaultChannels: IN,
    availableChannels: WIDE,
    title: 'Task alert: {{taskName}}',
    content: '{{taskName}}: {{message}}',
    variables: { taskName: 'string', message: 'string' },
  },
});

type SchedulerNotifications = (typeof schedulerEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends SchedulerNotifications {}
}
