import type { SQL } from 'drizzle-orm';
import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import * as repo from './activity-repository.ts';

/** What happened to a node, by whom (spec §2.2 drive_activities): every drive write records one inside its transaction. */
export type ActivityEntry = {
  spaceId: number;
  nodeId: number | null;
  action: string;
  detail?: Record<string, unknown>;
};

export type ActivityView = ReturnType<typeof toActivityView>;

export function toActivityView(r: repo.ActivityRow) {
  return {
    id: r.id,
    spaceId: r.spaceId,
    nodeId: r.nodeId,
    actorUserId: r.actorUserId,
    action: r.action,
    detail: r.detail,
    ip: r.ip,
    createdAt: r.createdAt,
  };
}

export function createActivityLog(deps: { db: Db; clock: () => Date }) {
  return {
    /** Records entries within the caller's transaction: they exist only if the change commits. */
    record: (tx: Db, scope: Scope, entries: ActivityEntry[]) =>
      repo.insertActivities(
        tx,
        entries.map((e) => ({
          tenantId: platformKey(scope.tenantId),
          spaceId: e.spaceId,
          nodeId: e.nodeId,
          action: e.action,
          detail: e.detail ?? {},
          actorUserId: userOf(scope)?.userId ?? null,
          ip: scope.ip,
          createdAt: deps.clock(),
        })),
      ),

    list: async (scope: Scope, nodeId: number, q: { limit: number; before?: number; subtree?: SQL }) =>
      (await repo.nodeActivities(deps.db, scope, nodeId, q)).map(toActivityView),

    /**
     * The partitions of `table` (activities by default) for this month and the next two (system
     * task `drive.activityPartitions`, which does both monthly tables); idempotent.
     */
    async ensurePartitions(now: Date = deps.clock(), table: repo.MonthlyTable = 'drive_activities') {
      const made: string[] = [];
      for (let i = 0; i <= 2; i++) {
        const p = repo.monthPartition(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1)), table);
        if (!(await repo.partitionExists(deps.db, p.name, table)))
          await deps.db.transaction((tx) => repo.createMonthPartition(tx, p));
        made.push(p.name);
      }
      return { partitions: made };
    },
  };
}

export type ActivityLog = ReturnType<typeof createActivityLog>;
