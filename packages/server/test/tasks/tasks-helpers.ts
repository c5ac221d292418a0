import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { asyncTasks } from '../../src/modules/tasks/tables.ts';
import type { Scope, UserPrincipal } from '../../src/platform/auth/principal.ts';
import type { Db } from '../../src/platform/db/client.ts';
import { call, type TestApp } from '../helpers/app.ts';

/** Helpers of the task-center tests. */
export type TaskData = {
  id: number;
  kind: string;
  status: string;
  progress: number;
  error: string | null;
  cancelRequested: boolean;
  resultAvailable: boolean;
  resultUrl: string | null;
  resultExpiresAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
};

const FINAL = ['succeeded', 'failed', 'cancelled'];

/** Polls GET /api/tasks/:id until `done` holds (default: a final status); bounded, short intervals. */
export async function waitForTask(
  t: TestApp,
  token: string,
  id: number,
  done: (task: TaskData) => boolean = (task) => FINAL.includes(task.status),
): Promise<TaskData> {
  let last: TaskData | null = null;
  for (let i = 0; i < 600; i++) {
    const res = await call(t.app, 'GET', `/api/tasks/${id}`, { token });
    expect(res.statusCode, res.body).toBe(200);
    last = res.json().data as TaskData;
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${id} did not reach the expected state; last seen ${JSON.stringify(last)}`);
}

/** A service-level scope of a signed-in user (tasks created directly through the module). */
export function userScope(tenantId: number | null, userId: number, username = 'admin'): Scope {
  const principal: UserPrincipal = {
    kind: 'user',
    userId,
    tenantId,
    username,
    isSuper: false,
    permissions: new Set(),
    sessionId: 0,
  };
  return { tenantId, principal, requestId: 'test', ip: '127.0.0.1' };
}

export async function userIdOf(t: TestApp, token: string): Promise<number> {
  const res = await call(t.app, 'GET', '/api/auth/me', { token });
  return res.json().data.user.id;
}

/** Jobs of the task queue carrying this task id (pg-boss keeps completed jobs for a while). */
export async function jobsForTask(db: Db, taskId: number): Promise<number> {
  const res = (await db.execute(
    sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'tasks.run' AND (data->>'taskId')::int = ${taskId}`,
  )) as unknown as { rows: { n: number }[] };
  return Number(res.rows[0]?.n ?? 0);
}

/** RFC 4180 parser for the tests (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** A finished task row of a tenant (a fixture written directly: no worker runs for it). */
export async function taskRow(t: TestApp, tenantId: number, ownerUserId: number): Promise<number> {
  const [row] = await t.database.db
    .insert(asyncTasks)
    .values({ tenantId, ownerUserId, kind: 'export.operation_logs', status: 'succeeded', progress: 100 })
    .returning();
  if (!row) throw new Error('async_tasks insert failed');
  return row.id;
}
