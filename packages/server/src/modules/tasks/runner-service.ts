import { systemScope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { dependencyDown } from '../../platform/health/dependency-down.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { JobInfo, SendOptions } from '../../platform/jobs/types.ts';
import type { FinishedAnnouncer } from './finished.ts';
import type { TaskJob } from './jobs.ts';
import type { TaskRegistry, TaskResultFile } from './registry.ts';
import * as repo from './tasks-repository.ts';
import type { TaskFiles } from './tasks-service.ts';

/** Spec: a task's result file expires; 7 days, then `tasks.expireResults` drops its reference. */
const RESULT_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A result file larger than this fails the task rather than filling the disk. */
const RESULT_MAX_BYTES = 4 * 1024 ** 3;
/** Results are stored as produced: no allow-list, no blocked extension (the service names them). */
const RESULT_POLICY = { mimeAllowList: null, blockedExtensions: [] };
/**
 * A task that met a dependency outage (storage or cache answering 503) waits and runs again:
 * 5 s doubling to 15 min, 12 tries (about 1 h 20 min), then it fails with the outage's message.
 */
export const OUTAGE_RETRIES = 12;
export const outageDelaySeconds = (deferrals: number) => Math.min(5 * 2 ** deferrals, 900);

/**
 * The worker of `tasks.run`: claims the task (queued → running), runs its kind, streams the
 * result into a managed file owned by the task (`{ type: 'task', id }`), and records the end:
 * succeeded, failed, or cancelled (the partial output discarded). Failures are recorded, not
 * retried, but for two: a delivery after a crashed worker runs the task again, and a task that
 * met a dependency outage goes back to `queued` with the outage as its `error` and a later job
 * (`deferrals` counts them), so an export asked while the storage is down arrives once it is back.
 */
export function createTaskRunner(
  ctx: AppContext,
  deps: {
    registry: TaskRegistry;
    files: TaskFiles;
    announce: FinishedAnnouncer;
    /** sends `tasks.run` again (the job of jobs.ts; late-bound, it is registered with this runner) */
    runLater: (job: TaskJob, opts: SendOptions) => Promise<unknown>;
  },
) {
  const { db, clock } = ctx;

  async function storeResult(taskId: number, tenantId: number | null, file: TaskResultFile) {
    const stored = await deps.files.store(systemScope(tenantId), {
      body: file.body,
      name: file.name,
      declaredMime: file.mime,
      // Only the task's owner may read it, through GET /api/tasks/{id}/result (never /api/files).
      visibility: 'restricted',
      maxBytes: RESULT_MAX_BYTES,
      policy: RESULT_POLICY,
      owner: { type: 'task', id: taskId },
    });
    return stored.id;
  }

  async function discard(taskId: number, tenantId: number | null, fileId: number) {
    await db.transaction((tx) => deps.files.dropRef(tx, { tenantId }, fileId, { type: 'task', id: taskId }));
  }

  /** Back to queued with a later job, in one transaction; false when a cancel came first. */
  async function deferred(job: TaskJob, err: Error): Promise<boolean> {
    const deferrals = (job.deferrals ?? 0) + 1;
    const scope = systemScope(job.tenantId);
    return db.transaction(async (tx) => {
      // the owner reads it: an AppError's words, never a driver's (they name addresses)
      const why = err instanceof AppError ? err.message : 'The database cannot be reached, try again shortly';
      const row = await repo.requeue(tx, scope, job.taskId, why);
      if (!row) return false;
      await deps.runLater({ ...job, deferrals }, { tx, startAfter: outageDelaySeconds(deferrals - 1) });
      return true;
    });
  }

  return async function runTask(job: TaskJob, info: JobInfo): Promise<unknown> {
    const scope = systemScope(job.tenantId);
    const task = await repo.claim(db, scope, job.taskId, clock(), info.attempt > 1);
    if (!task) return { skipped: true }; // cancelled while queued, already finished, or unknown
    const controls = {
      progress: (pct: number) => repo.raiseProgress(db, scope, task.id, Math.max(0, Math.min(100, Math.floor(pct)))),
      isCancelled: () => repo.cancelRequested(db, scope, task.id),
    };
    let fileId: number | null = null;
    try {
      const kind = deps.registry.get(task.kind);
      if (!kind) throw new AppError(500, 'tasks.unknown_kind', `no handler for task kind ${task.kind}`);
      const output = await kind.run(ctx, task, controls);
      if (output.file) fileId = await storeResult(task.id, task.tenantId, output.file);
      const now = clock();
      const done = await repo.succeed(db, scope, task.id, {
        resultFileId: fileId,
        resultExpiresAt: fileId === null ? null : new Date(now.getTime() + RESULT_TTL_MS),
        now,
      });
      if (done) {
        await deps.announce(done);
        return { status: 'succeeded', fileId };
      }
      // cancelled after the last check: the finished output is discarded like a partial one
    } catch (err) {
      if (!(await controls.isCancelled())) {
        if (fileId !== null) await discard(task.id, task.tenantId, fileId);
        if (dependencyDown(err) && (job.deferrals ?? 0) < OUTAGE_RETRIES && (await deferred(job, err))) {
          ctx.log.warn(
            { taskId: task.id, kind: task.kind, error: err.message },
            'tasks: a dependency is down; task deferred',
          );
          return { status: 'deferred' };
        }
        const message = err instanceof AppError ? err.message : 'internal error';
        ctx.log.error({ err, taskId: task.id, kind: task.kind }, 'tasks: task failed');
        const failed = await repo.fail(db, scope, task.id, message, clock());
        if (failed) await deps.announce(failed);
        return { status: 'failed' };
      }
    }
    if (fileId !== null) await discard(task.id, task.tenantId, fileId);
    const cancelled = await repo.stopCancelled(db, scope, task.id, clock());
    if (cancelled) await deps.announce(cancelled);
    return { status: 'cancelled' };
  };
}
