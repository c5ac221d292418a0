import { Readable } from 'node:stream';
import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileObjects, fileRefs, managedFiles } from '../../src/modules/files/tables.ts';
import { TASK_CONCURRENCY, TaskCancelled, type TaskFinishedEvent } from '../../src/modules/tasks/index.ts';
import { asyncTasks } from '../../src/modules/tasks/tables.ts';
import { ADMIN_PASSWORD, call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { jobsForTask, type TaskData, userIdOf, userScope, waitForTask } from './tasks-helpers.ts';

/**
 * Task states, the outbox, cancellation and result expiry. A test kind `test.gate` holds its
 * worker until the test opens its gate, so "queued" and "running" are states the test controls.
 */
let t: TestApp;
let now = new Date('2026-11-21T08:00:00.000Z');
let token: string;
let ownerId: number;
const events: TaskFinishedEvent[] = [];
/**
 * One gate per task, made by whichever comes first: the test, or the worker that already took the
 * job (the job is woken at commit, often before `create` has returned here).
 */
const gates = new Map<number, { passed: Promise<void>; open: () => void }>();
const gateOf = (id: number) => {
  let gate = gates.get(id);
  if (!gate) {
    let open = () => {};
    const passed = new Promise<void>((resolve) => {
      open = resolve;
    });
    gate = { passed, open };
    gates.set(id, gate);
  }
  return gate.passed;
};

beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  token = t.demoAdminToken;
  ownerId = await userIdOf(t, token);
  t.app.tasks.onTaskFinished((e) => {
    events.push(e);
  });
  t.app.tasks.registerKind({
    kind: 'test.gate',
    async run(_ctx, task, controls) {
      await controls.progress(10);
      await gateOf(task.id);
      if (await controls.isCancelled()) throw new TaskCancelled();
      return {
        file: { body: Readable.from([Buffer.from(`result of ${task.id}\n`)]), name: 'r.txt', mime: 'text/plain' },
      };
    },
  });
});
afterAll(async () => {
  for (const gate of gates.values()) gate.open();
  await t?.close();
});

const scope = () => userScope(t.demoTenantId, ownerId);
const createGated = async () => {
  const task = await t.app.tasks.create(scope(), 'test.gate', { n: 1 });
  void gateOf(task.id);
  return task;
};
const open = (id: number) => gates.get(id)?.open();
const get = async (id: number) => (await call(t.app, 'GET', `/api/tasks/${id}`, { token })).json().data as TaskData;
const refsOfTask = (id: number) =>
  t.database.db
    .select()
    .from(fileRefs)
    .where(and(eq(fileRefs.ownerType, 'task'), eq(fileRefs.ownerId, id)));

describe('creating a task (outbox)', () => {
  it('writes the task and its job in the caller’s transaction: a rollback leaves neither', async () => {
    let createdId = 0;
    await expect(
      t.database.db.transaction(async (tx) => {
        const task = await t.app.tasks.create(scope(), 'export.operation_logs', {}, { tx });
        createdId = task.id;
        expect(await jobsForTask(tx, task.id)).toBe(1);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(createdId).toBeGreaterThan(0);
    expect(await rowById(t, asyncTasks, createdId)).toBeUndefined();
    expect(await jobsForTask(t.database.db, createdId)).toBe(0);

    // the same call committed: both exist and the task runs
    const committed = await t.database.db.transaction((tx) =>
      t.app.tasks.create(scope(), 'export.operation_logs', {}, { tx }),
    );
    expect(await jobsForTask(t.database.db, committed.id)).toBe(1);
    expect((await waitForTask(t, token, committed.id)).status).toBe('succeeded');
  });
});

describe('cancellation', () => {
  it('cancels a queued task at once and a running one at its next check, discarding its output', async () => {
    // fill every worker slot, so the next task stays queued
    const busy: { id: number }[] = [];
    for (let i = 0; i < TASK_CONCURRENCY; i++) busy.push(await createGated());
    for (const b of busy) await waitForTask(t, token, b.id, (x) => x.status === 'running');
    const queued = await createGated();
    expect((await get(queued.id)).status).toBe('queued');

    const cancelled = await call(t.app, 'POST', `/api/tasks/${queued.id}/cancel`, { token });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().data).toMatchObject({ status: 'cancelled', cancelRequested: true, startedAt: null });
    // a repeat changes nothing
    const again = await call(t.app, 'POST', `/api/tasks/${queued.id}/cancel`, { token });
    expect(again.json().data).toMatchObject({ status: 'cancelled', finishedAt: cancelled.json().data.finishedAt });

    // running → asked to stop
    const [stopping, finishing] = busy as [{ id: number }, { id: number }];
    const asked = await call(t.app, 'POST', `/api/tasks/${stopping.id}/cancel`, { token });
    expect(asked.json().data).toMatchObject({ status: 'running', cancelRequested: true });
    for (const b of busy) open(b.id);

    expect(await waitForTask(t, token, stopping.id)).toMatchObject({ status: 'cancelled', resultAvailable: false });
    expect(await refsOfTask(stopping.id)).toEqual([]);
    expect(await waitForTask(t, token, finishing.id)).toMatchObject({ status: 'succeeded', resultAvailable: true });
    const result = await call(t.app, 'GET', `/api/tasks/${finishing.id}/result`, { token });
    expect(result.body).toBe(`result of ${finishing.id}\n`);

    // the queued task's job finds it cancelled and does nothing
    await waitForTask(t, token, queued.id);
    expect(await get(queued.id)).toMatchObject({ status: 'cancelled', startedAt: null, progress: 0 });
    expectError(await call(t.app, 'GET', `/api/tasks/${queued.id}/result`, { token }), 404, 'tasks.result_not_found');

    const finished = (id: number) => events.filter((e) => e.taskId === id).map((e) => e.status);
    expect(finished(queued.id)).toEqual(['cancelled']);
    expect(finished(stopping.id)).toEqual(['cancelled']);
    expect(finished(finishing.id)).toEqual(['succeeded']);
    expect(events.find((e) => e.taskId === finishing.id)?.event).toBeNull();
  });

  it('answers 404 for the result while the task is still running', async () => {
    const busy = await createGated();
    await waitForTask(t, token, busy.id, (x) => x.status === 'running');
    expectError(await call(t.app, 'GET', `/api/tasks/${busy.id}/result`, { token }), 404, 'tasks.result_not_found');
    open(busy.id);
    expect((await waitForTask(t, token, busy.id)).status).toBe('succeeded');
  });
});

describe('result expiry', () => {
  it('serves the result for 7 days, then 404; the sweep drops the file reference so the collector takes it', async () => {
    const res = await call(t.app, 'POST', '/api/export-jobs/operation-logs', { token, body: {} });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as number;
    const done = await waitForTask(t, token, id);
    expect(done.status).toBe('succeeded');
    expect(done.resultExpiresAt).toBe(new Date(now.getTime() + 7 * 24 * 3600_000).toISOString());
    expect((await call(t.app, 'GET', `/api/tasks/${id}/result`, { token })).statusCode).toBe(200);
    const fileId = (await rowById(t, asyncTasks, id))?.resultFileId as number;
    const [ref] = await refsOfTask(id);
    expect(ref?.fileId).toBe(fileId);
    const file = await rowById(t, managedFiles, fileId);
    expect(file?.visibility).toBe('restricted');

    // nothing is due yet
    expect(await t.app.tasks.expireResults()).toEqual({ expired: 0 });

    now = new Date(now.getTime() + 7 * 24 * 3600_000 + 60_000);
    token = await login(t.app, 'admin', ADMIN_PASSWORD, 'demo'); // tokens follow the clock
    expectError(await call(t.app, 'GET', `/api/tasks/${id}/result`, { token }), 404, 'tasks.result_not_found');
    expect(await get(id)).toMatchObject({ status: 'succeeded', resultAvailable: false, resultUrl: null });

    // the registered system task sweeps it; a second run finds nothing
    const task = t.app.ctx.jobs.systemTask('tasks.expireResults');
    expect(task?.schedule).toBeTruthy();
    const log = { info() {}, warn() {}, error() {} };
    // every result so far is past its 7 days (this file's earlier tasks too)
    const holding = await t.database.db.select().from(asyncTasks).where(isNotNull(asyncTasks.resultFileId));
    expect(holding.map((r) => r.id)).toContain(id);
    const run = { trigger: 'manual' as const, cronJobId: 0, runId: 0, log };
    expect(await task?.handler({}, run)).toEqual({ expired: holding.length });
    expect(await t.app.tasks.expireResults()).toEqual({ expired: 0 });
    expect(await refsOfTask(id)).toEqual([]);
    expect((await rowById(t, asyncTasks, id))?.resultFileId).toBeNull();
    const object = await rowById(t, fileObjects, file?.objectId as number);
    expect(object).toMatchObject({ refCount: 0, gcState: 'orphaned' });
  });
});
