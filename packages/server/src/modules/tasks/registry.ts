import type { Readable } from 'node:stream';
import type { AppContext } from '../../platform/context.ts';
import type { TaskRow } from './tables.ts';

/** What a running task may do besides its work: report progress, ask whether to stop. */
export type TaskControls = {
  /** 0..100; only increases, ignored once the task is no longer running */
  progress(pct: number): Promise<void>;
  /** true once the owner asked to cancel: stop at the next page, the output is discarded */
  isCancelled(): Promise<boolean>;
};

/** A result file: streamed into a managed file as it is produced (never buffered whole). */
export type TaskResultFile = { body: Readable; name: string; mime: string };
export type TaskOutput = { file?: TaskResultFile };

/** A kind of task a module declares: `export.operation_logs`, later `drive.zip`, … */
export type TaskKind = {
  kind: string;
  /** notification catalog key put in the finished event's `event` (`platform.export.finished`) */
  finishedEvent?: string;
  run(ctx: AppContext, task: TaskRow, controls: TaskControls): Promise<TaskOutput>;
};

/** Thrown by a task (or its result stream) that noticed the cancellation. */
export class TaskCancelled extends Error {
  constructor() {
    super('task cancelled');
  }
}

export function createTaskRegistry() {
  const kinds = new Map<string, TaskKind>();
  return {
    register(kind: TaskKind): void {
      if (!/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/.test(kind.kind)) throw new Error(`tasks: invalid kind "${kind.kind}"`);
      if (kinds.has(kind.kind)) throw new Error(`tasks: kind "${kind.kind}" is registered twice`);
      kinds.set(kind.kind, kind);
    },
    get: (kind: string) => kinds.get(kind) ?? null,
  };
}

export type TaskRegistry = ReturnType<typeof createTaskRegistry>;
