import type { AppContext } from '../../platform/context.ts';
import type { TaskEvents, TaskFinishedEvent } from './events.ts';
import type { TaskRegistry } from './registry.ts';
import type { TaskRow } from './tables.ts';
import { resultUrlOf } from './task-view.ts';

/**
 * Announces a task that reached a final state: the in-process event (the notification center's
 * input) and a realtime push to its owner. Called once per task, by whoever made the final
 * transition; a failed push is logged, the task stays finished.
 */
export function createFinishedAnnouncer(
  ctx: Pick<AppContext, 'realtime' | 'log' | 'links'>,
  registry: TaskRegistry,
  events: TaskEvents,
) {
  return async (row: TaskRow) => {
    if (row.status !== 'succeeded' && row.status !== 'failed' && row.status !== 'cancelled') return;
    const event: TaskFinishedEvent = {
      event: registry.get(row.kind)?.finishedEvent ?? null,
      taskId: row.id,
      tenantId: row.tenantId,
      ownerUserId: row.ownerUserId,
      kind: row.kind,
      status: row.status,
      error: row.error,
      resultExpiresAt: row.resultExpiresAt,
      finishedAt: row.finishedAt ?? new Date(0),
    };
    await events.emit(event);
    try {
      await ctx.realtime.publish({
        topic: 'task.finished',
        tenantId: row.tenantId,
        userIds: [row.ownerUserId],
        payload: {
          ...event,
          resultExpiresAt: event.resultExpiresAt?.toISOString() ?? null,
          finishedAt: event.finishedAt.toISOString(),
          resultUrl: row.status === 'succeeded' && row.resultFileId !== null ? resultUrlOf(ctx.links, row.id) : null,
        },
      });
    } catch (err) {
      ctx.log.error({ err, taskId: row.id }, 'tasks: could not push task.finished');
    }
  };
}

export type FinishedAnnouncer = ReturnType<typeof createFinishedAnnouncer>;
