import type { FastifyBaseLogger } from 'fastify';
import { defineEvents, IN, IN_MAIL } from '../../platform/events/define.ts';
import type { TaskStatus } from './tables.ts';

/** Notification events of the task center (docs/decisions/0008): an export reached its end. */
export const tasksEvents = defineEvents('platform', {
  'platform.export.finished': {
    displayName: 'Export finished',
    defaultChannels: IN,
    availableChannels: IN_MAIL,
    title: 'Export {{status}}: {{taskName}}',
    content: 'Your export "{{taskName}}" {{status}}. {{detail}}',
    variables: { taskName: 'string', status: 'string', detail: 'string?' },
  },
});

type TasksNotifications = (typeof tasksEvents)['notifications'];
declare module '../../platform/events/types.ts' {
  interface NotificationEvents extends TasksNotifications {}
}

/** A task reached a final state. The notification center subscribes to deliver it (spec §6.2). */
export type TaskFinishedEvent = {
  /** the catalog key of the kind (`platform.export.finished` for exports), or null */
  event: string | null;
  taskId: number;
  tenantId: number | null;
  ownerUserId: number;
  kind: string;
  status: Extract<TaskStatus, 'succeeded' | 'failed' | 'cancelled'>;
  error: string | null;
  resultExpiresAt: Date | null;
  finishedAt: Date;
};

export type TaskFinishedListener = (event: TaskFinishedEvent) => void | Promise<void>;

/**
 * In-process subscribers of finished tasks, per app. The instance that finishes a task emits
 * it once; a listener's failure is logged and never affects the task or the other listeners.
 */
export function createTaskEvents(log: FastifyBaseLogger) {
  const listeners = new Set<TaskFinishedListener>();
  return {
    /** Subscribes; answers the function that unsubscribes. */
    onTaskFinished(listener: TaskFinishedListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async emit(event: TaskFinishedEvent): Promise<void> {
      for (const listener of [...listeners]) {
        try {
          await listener(event);
        } catch (err) {
          log.error({ err, taskId: event.taskId }, 'tasks: a task-finished listener failed');
        }
      }
    },
  };
}

export type TaskEvents = ReturnType<typeof createTaskEvents>;
