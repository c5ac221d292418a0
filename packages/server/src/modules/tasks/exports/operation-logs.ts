import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { OperationLogFilter, OperationLogRow, SystemModule } from '../../system/index.ts';
import type { TaskKind } from '../registry.ts';
import { type CsvColumn, csvExportKind } from './csv-export.ts';

export const OPERATION_LOG_EXPORT = 'export.operation_logs';

const COLUMNS: CsvColumn<OperationLogRow>[] = [
  ['id', (r) => r.id],
  ['createdAt', (r) => r.createdAt.toISOString()],
  ['userId', (r) => r.userId],
  ['username', (r) => r.username],
  ['module', (r) => r.module],
  ['operation', (r) => r.operation],
  ['method', (r) => r.method],
  ['path', (r) => r.path],
  ['statusCode', (r) => r.statusCode],
  ['errorKey', (r) => r.errorKey],
  ['ip', (r) => r.ip],
  ['userAgent', (r) => r.userAgent],
  ['durationMs', (r) => r.durationMs],
  ['requestId', (r) => r.requestId],
];

/** The operation log of the task's tenant as CSV (newest first, the list's filters), read page by page from the system module. */
export function operationLogExport(exportLogs: SystemModule['exportOperationLogs']): TaskKind {
  return csvExportKind({
    kind: OPERATION_LOG_EXPORT,
    columns: COLUMNS,
    fileName: (task) => `operation-logs-${task.id}.csv`,
    source: (_ctx, task) => exportLogs({ tenantId: task.tenantId }, task.params as OperationLogFilter),
  });
}

/**
 * The filters of an export of the caller's own records: their user id, set here from the scope
 * so no body can widen it (the task runs in the caller's tenant, as every task does).
 */
export function ownOperationLogs(
  scope: Scope,
  filter: Omit<OperationLogFilter, 'userId' | 'username'>,
): OperationLogFilter {
  const user = userOf(scope);
  if (!user) throw httpErrors.unauthenticated();
  return { ...filter, userId: user.userId };
}
