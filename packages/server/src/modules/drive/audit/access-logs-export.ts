import { type CsvColumn, csvExportKind, type TaskKind } from '../../tasks/index.ts';
import {
  type AccessLogExportParams,
  type AccessLogsService,
  type AccessLogView,
  SHARE_ACCESS_LOG_EXPORT,
} from './access-logs-service.ts';

const COLUMNS: CsvColumn<AccessLogView>[] = [
  ['id', (r) => r.id],
  ['createdAt', (r) => r.createdAt.toISOString()],
  ['linkId', (r) => r.linkId],
  ['event', (r) => r.event],
  ['nodeId', (r) => r.node?.id],
  ['nodeName', (r) => r.node?.name],
  ['ip', (r) => r.ip],
  ['userAgent', (r) => r.userAgent],
  ['detail', (r) => (Object.keys(r.detail).length ? JSON.stringify(r.detail) : null)],
];

/**
 * Task kind `drive.share_access_logs` (app.ts registers it with the task center): the records of
 * one link or of a space's links as formula-safe CSV. Who may export was checked when the task
 * was started; the task reads within its own tenant and the range fixed then.
 */
export const accessLogExportKind = (logs: AccessLogsService): TaskKind =>
  csvExportKind({
    kind: SHARE_ACCESS_LOG_EXPORT,
    columns: COLUMNS,
    fileName: (task) => `share-access-logs-${task.id}.csv`,
    source: (_ctx, task) => logs.exportRows({ tenantId: task.tenantId }, task.params as AccessLogExportParams),
  });
