import { Readable } from 'node:stream';
import type { OperationLogFilter, OperationLogRow, SystemModule } from '../../system/index.ts';
import { type CsvCell, csvRow, UTF8_BOM } from '../csv.ts';
import { TaskCancelled, type TaskKind } from '../registry.ts';

export const OPERATION_LOG_EXPORT = 'export.operation_logs';

const COLUMNS: [string, (r: OperationLogRow) => CsvCell][] = [
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

/**
 * The operation log of the task's tenant as CSV (newest first, the list's filters), read page
 * by page from the system module and streamed into the result file as it is produced. Progress
 * follows the rows written; a cancel is noticed between pages.
 */
export function operationLogExport(exportLogs: SystemModule['exportOperationLogs']): TaskKind {
  return {
    kind: OPERATION_LOG_EXPORT,
    finishedEvent: 'platform.export.finished',
    async run(_ctx, task, controls) {
      const filter = task.params as OperationLogFilter;
      const { total, pages } = await exportLogs({ tenantId: task.tenantId }, filter);
      async function* csv() {
        yield Buffer.from(UTF8_BOM + csvRow(COLUMNS.map(([name]) => name)));
        let written = 0;
        for await (const page of pages) {
          if (await controls.isCancelled()) throw new TaskCancelled();
          yield Buffer.from(page.map((r) => csvRow(COLUMNS.map(([, cell]) => cell(r)))).join(''));
          written += page.length;
          // 100 is set when the file is stored
          await controls.progress(Math.min(99, (written * 100) / total));
        }
      }
      return {
        file: {
          body: Readable.from(csv(), { objectMode: false }),
          name: `operation-logs-${task.id}.csv`,
          mime: 'text/csv',
        },
      };
    },
  };
}
