import type { Scope } from '../../../platform/auth/principal.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCore } from '../core.ts';
import { manageableLink } from '../shares/manageable.ts';
import type { ShareAccessEvent } from '../tables.ts';
import * as repo from './access-logs-repository.ts';

/** The task kind of the access-record export (registered by the task center, app.ts). */
export const SHARE_ACCESS_LOG_EXPORT = 'drive.share_access_logs';

const DAY_MS = 86_400_000;
/** Without `from`, the records of the last 30 days. */
export const DEFAULT_RANGE_DAYS = 30;
/** A range reads at most 13 monthly partitions (partition pruning needs both bounds). */
export const MAX_RANGE_DAYS = 366;

export type AccessLogQuery = { event?: ShareAccessEvent; from?: string; to?: string };
/** What an export task carries: the target and the range fixed when it was started. */
export type AccessLogExportParams = ({ linkId: number } | { spaceId: number }) & {
  event?: ShareAccessEvent;
  from: string;
  to: string;
};
/** Starts a task of the caller in the task center (app.ts hands the task center's `create`). */
export type StartTask = (scope: Scope, kind: string, params: Record<string, unknown>) => Promise<unknown>;

export function toAccessLogView(r: repo.AccessLogRow) {
  return {
    id: r.id,
    linkId: r.linkId,
    event: r.event,
    node: r.nodeId === null ? null : { id: r.nodeId, name: r.nodeName },
    ip: r.ip,
    userAgent: r.userAgent,
    detail: r.detail,
    createdAt: r.createdAt,
  };
}

/**
 * A link's access records (who opened it, from which address and browser): to its creator and
 * the node's managers, the read rule of the link itself; a space's records to its managers.
 * Lists page newest first; exports run in the task center as CSV.
 */
export function createAccessLogsService(core: DriveCore & { startTask: StartTask }) {
  const { db, clock, access } = core;

  /** `to` defaults to now, `from` to 30 days before it; the range is at most 366 days. */
  function rangeOf(q: AccessLogQuery): { from: Date; to: Date } {
    const to = q.to === undefined ? clock() : new Date(q.to);
    const from = q.from === undefined ? new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS) : new Date(q.from);
    if (!(from < to)) throw httpErrors.invalidField('to', 'must be after from');
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
      throw httpErrors.invalidField('from', `must be at most ${MAX_RANGE_DAYS} days before to`);
    return { from, to };
  }

  const paramsOf = (target: { linkId: number } | { spaceId: number }, q: AccessLogQuery): AccessLogExportParams => {
    const { from, to } = rangeOf(q);
    return { ...target, ...(q.event ? { event: q.event } : {}), from: from.toISOString(), to: to.toISOString() };
  };

  return {
    /** GET /share-links/{id}/access-logs */
    async list(scope: Scope, linkId: number, q: AccessLogQuery & PageRequest) {
      const range = rangeOf(q);
      const { link } = await manageableLink(core, await access.caller(scope), linkId);
      const page = await repo.pageOfAccessLogs(db, scope, { linkId: link.id, event: q.event, ...range }, q);
      return { ...page, list: page.list.map(toAccessLogView) };
    },

    /** POST /share-links/{id}/access-logs/export: one link's records, to its creator or a manager of its node. */
    async exportLink(scope: Scope, linkId: number, q: AccessLogQuery) {
      const params = paramsOf({ linkId }, q);
      await manageableLink(core, await access.caller(scope), linkId);
      return core.startTask(scope, SHARE_ACCESS_LOG_EXPORT, params);
    },

    /** POST /share-links/access-logs/export: the records of every link of a space, to its managers. */
    async exportSpace(scope: Scope, spaceId: number, q: AccessLogQuery) {
      const params = paramsOf({ spaceId }, q);
      await access.authorizeSpace(await access.caller(scope), spaceId, 'manageLinks');
      return core.startTask(scope, SHARE_ACCESS_LOG_EXPORT, params);
    },

    /**
     * For the export task: the records the params name, newest first, page by page. The set is
     * fixed when called (records written later are not included); `total` is its size.
     */
    async exportRows(scope: Pick<Scope, 'tenantId'>, params: AccessLogExportParams, pageSize = 500) {
      const { from, to, ...rest } = params;
      const filter = { ...rest, from: new Date(from), to: new Date(to) } as repo.AccessLogFilter;
      const { total, maxId } = await repo.snapshotOfAccessLogs(db, scope, filter);
      async function* pages(): AsyncGenerator<ReturnType<typeof toAccessLogView>[]> {
        let atMost = maxId;
        while (total > 0) {
          const rows = await repo.accessLogsUpTo(db, scope, filter, atMost, pageSize);
          if (rows.length > 0) yield rows.map(toAccessLogView);
          const last = rows.at(-1);
          if (!last || rows.length < pageSize) return;
          atMost = last.id - 1;
        }
      }
      return { total, pages: pages() };
    },
  };
}

export type AccessLogsService = ReturnType<typeof createAccessLogsService>;
export type AccessLogView = ReturnType<typeof toAccessLogView>;
