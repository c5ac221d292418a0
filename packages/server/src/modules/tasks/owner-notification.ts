import type { Notifier } from '../messaging/index.ts';
import type { TaskFinishedEvent } from './events.ts';

/**
 * A finished export reaches its owner through the notification center (spec §6.2
 * platform.export.finished); once per task, whichever instance finishes it.
 */
export function notifyTaskOwner(notify: Notifier['notify']) {
  return async (e: TaskFinishedEvent) => {
    if (e.event !== 'platform.export.finished') return;
    await notify('platform.export.finished', {
      tenantId: e.tenantId,
      recipients: [{ type: 'user', id: e.ownerUserId }],
      variables: { taskName: e.kind, status: e.status, ...(e.error ? { detail: e.error } : {}) },
      link: `/monitor/tasks?id=${e.taskId}`,
      idempotencyKey: `task:${e.taskId}`,
    });
  };
}
