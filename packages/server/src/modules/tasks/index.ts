import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { Notifier } from '../messaging/index.ts';
import type { SystemModule } from '../system/index.ts';
import { createTaskEvents } from './events.ts';
import { operationLogExport } from './exports/operation-logs.ts';
import { createFinishedAnnouncer } from './finished.ts';
import { TASK_CONCURRENCY, tasksJobs } from './jobs.ts';
import { notifyTaskOwner } from './owner-notification.ts';
import { createTaskRegistry } from './registry.ts';
import { exportJobRoutes } from './routes/export-jobs.ts';
import { taskRoutes } from './routes/tasks.ts';
import { createTaskRunner } from './runner-service.ts';
import { createTasksService, type TaskFiles } from './tasks-service.ts';

export type { TaskFinishedEvent, TaskFinishedListener } from './events.ts';
export { tasksEvents } from './events.ts';
export type { CsvColumn, ExportRows } from './exports/csv-export.ts';
export { csvExportKind } from './exports/csv-export.ts';
export type { TaskControls, TaskKind, TaskOutput } from './registry.ts';
export { TaskCancelled } from './registry.ts';
export { Task as TaskSchema } from './schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    tasks: TasksModule;
  }
}

export { TASK_CONCURRENCY };

/**
 * The task center (issue 3 §4): long work as a task with owner, progress, status, a result file
 * that expires, cancel, and a completion event. Modules register kinds (`registerKind`) and
 * create tasks (`create`, inside their own transaction when they pass `tx`); a finished export
 * notifies its owner, and other listeners subscribe with `onTaskFinished`. Its own export: the
 * operation log as CSV; other modules build CSV exports with `csvExportKind` and app.ts registers them.
 */
export function createTasksModule(
  ctx: AppContext,
  deps: { files: TaskFiles; exportOperationLogs: SystemModule['exportOperationLogs']; notify: Notifier['notify'] },
) {
  const registry = createTaskRegistry();
  const events = createTaskEvents(ctx.log);
  events.onTaskFinished(notifyTaskOwner(deps.notify));
  const announce = createFinishedAnnouncer(ctx, registry, events);
  const runTask = createTaskRunner(ctx, {
    registry,
    files: deps.files,
    announce,
    runLater: (job, opts) => jobs.run.send(job, opts),
  });
  const jobs = ctx.jobs.register(tasksJobs, () => ({
    runTask,
    clock: ctx.clock,
    expireResults: service.expireResults,
  }));
  const service = createTasksService(ctx, { registry, files: deps.files, announce, run: jobs.run });
  registry.register(operationLogExport(deps.exportOperationLogs));

  const mod = {
    service,
    create: service.create,
    registerKind: registry.register,
    onTaskFinished: events.onTaskFinished,
    expireResults: service.expireResults,
    async register(app: FastifyInstance) {
      app.decorate('tasks', mod);
      taskRoutes(app, service, deps.files);
      exportJobRoutes(app, service);
    },
  };
  return mod;
}

export type TasksModule = ReturnType<typeof createTasksModule>;
