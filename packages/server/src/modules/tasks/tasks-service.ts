import { type Scope, systemScope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { rowOrThrow } from '../../platform/db/sql.ts';
import { AppError, httpErrors } from '../../platform/http/errors.ts';
import type { Job } from '../../platform/jobs/define.ts';
import type { FilesModule } from '../files/index.ts';
import { tasksErrors } from './errors.ts';
import type { FinishedAnnouncer } from './finished.ts';
import type { TaskJob } from './jobs.ts';
import type { TaskRegistry } from './registry.ts';
import type { TaskStatus } from './tables.ts';
import { toTaskView } from './task-view.ts';
import * as repo from './tasks-repository.ts';

/** What the task center uses of the managed files module (its exported service). */
export type TaskFiles = Pick<FilesModule, 'store' | 'dropRef' | 'files' | 'sendDownload'>;

const SWEEP_BATCH = 100;

export function createTasksService(
  ctx: AppContext,
  deps: { registry: TaskRegistry; files: TaskFiles; announce: FinishedAnnouncer; run: Job<TaskJob> },
) {
  const { db, clock, links } = ctx;

  function ownerOf(scope: Scope): number {
    const user = userOf(scope);
    if (!user) throw httpErrors.unauthenticated();
    return user.userId;
  }

  const ownedOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.findOwned(db, scope, ownerOf(scope), id), tasksErrors.taskNotFound);

  return {
    /**
     * A task of the signed-in user: the row and its job are written in one transaction — the
     * caller's `tx` when given — so a rollback leaves neither (the jobs outbox).
     */
    async create(scope: Scope, kind: string, params: Record<string, unknown>, opts: { tx?: Db } = {}) {
      if (!deps.registry.get(kind)) throw new Error(`tasks: kind "${kind}" is not registered`);
      const ownerUserId = ownerOf(scope);
      const write = async (tx: Db) => {
        const row = await repo.insertTask(tx, scope, { ownerUserId, kind, params, createdAt: clock() });
        await deps.run.send({ taskId: row.id, tenantId: scope.tenantId }, { tx });
        return row;
      };
      const row = opts.tx ? await write(opts.tx) : await db.transaction(write);
      return toTaskView(row, clock(), links);
    },

    async list(scope: Scope, q: PageRequest & { status?: TaskStatus; kind?: string }) {
      const page = await repo.pageOwned(db, scope, ownerOf(scope), q);
      const now = clock();
      return { ...page, list: page.list.map((r) => toTaskView(r, now, links)) };
    },

    get: async (scope: Scope, id: number) => toTaskView(await ownedOrThrow(scope, id), clock(), links),

    /** Cancels a queued task at once, asks a running one to stop; repeats change nothing. */
    async cancel(scope: Scope, id: number) {
      const row = await repo.requestCancel(db, scope, ownerOf(scope), id, clock());
      if (!row) {
        const current = await ownedOrThrow(scope, id);
        if (current.status !== 'cancelled') throw tasksErrors.taskFinished(current.status);
        return toTaskView(current, clock(), links);
      }
      if (row.status === 'cancelled') await deps.announce(row);
      return toTaskView(row, clock(), links);
    },

    /** The result file of the caller's own succeeded task, while it has not expired. */
    async resultFile(scope: Scope, id: number) {
      const row = await ownedOrThrow(scope, id);
      const task = toTaskView(row, clock(), links);
      if (!task.resultAvailable || row.resultFileId === null) throw tasksErrors.resultNotFound();
      try {
        return await deps.files.files.ownedBy(scope, row.resultFileId, { type: 'task', id: row.id });
      } catch (err) {
        if (err instanceof AppError && err.status === 404) throw tasksErrors.resultNotFound();
        throw err;
      }
    },

    /**
     * Drops the reference of every result past its expiry (the system task `tasks.expireResults`);
     * the files module collects the bytes once nothing references them.
     */
    async expireResults(now: Date = clock()): Promise<{ expired: number }> {
      let expired = 0;
      for (;;) {
        const due = await repo.expiredResults(db, now, SWEEP_BATCH);
        for (const task of due) {
          const fileId = task.resultFileId;
          if (fileId === null) continue;
          const scope = systemScope(task.tenantId);
          const dropped = await db.transaction(async (tx) => {
            if (!(await repo.detachResult(tx, scope, task.id, fileId))) return false;
            try {
              await deps.files.dropRef(tx, scope, fileId, { type: 'task', id: task.id });
            } catch (err) {
              // the file is already gone: nothing left to release
              if (!(err instanceof AppError && err.status === 404)) throw err;
            }
            return true;
          });
          if (dropped) expired++;
        }
        if (due.length < SWEEP_BATCH) return { expired };
      }
    },
  };
}

export type TasksService = ReturnType<typeof createTasksService>;
