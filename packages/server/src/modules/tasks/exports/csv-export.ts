import { Readable } from 'node:stream';
import type { AppContext } from '../../../platform/context.ts';
import { type CsvCell, csvRow, UTF8_BOM } from '../csv.ts';
import { TaskCancelled, type TaskKind } from '../registry.ts';
import type { TaskRow } from '../tables.ts';

/** A CSV column: its header and how a row fills it. */
export type CsvColumn<R> = [string, (r: R) => CsvCell];
/** The rows of an export: a fixed set of `total` rows, read page by page. */
export type ExportRows<R> = { total: number; pages: AsyncIterable<R[]> };

/**
 * An export task kind writing CSV: the rows `source` answers for the task are streamed into the
 * result file page by page as they are read (never buffered whole). Progress follows the rows
 * written; a cancel is noticed between pages.
 */
export function csvExportKind<R>(opts: {
  kind: string;
  columns: CsvColumn<R>[];
  fileName: (task: TaskRow) => string;
  source: (ctx: AppContext, task: TaskRow) => Promise<ExportRows<R>>;
}): TaskKind {
  return {
    kind: opts.kind,
    finishedEvent: 'platform.export.finished',
    async run(ctx, task, controls) {
      const { total, pages } = await opts.source(ctx, task);
      const { columns } = opts;
      async function* csv() {
        yield Buffer.from(UTF8_BOM + csvRow(columns.map(([name]) => name)));
        let written = 0;
        for await (const page of pages) {
          if (await controls.isCancelled()) throw new TaskCancelled();
          yield Buffer.from(page.map((r) => csvRow(columns.map(([, cell]) => cell(r)))).join(''));
          written += page.length;
          // 100 is set when the file is stored
          await controls.progress(Math.min(99, (written * 100) / total));
        }
      }
      return {
        file: { body: Readable.from(csv(), { objectMode: false }), name: opts.fileName(task), mime: 'text/csv' },
      };
    },
  };
}
