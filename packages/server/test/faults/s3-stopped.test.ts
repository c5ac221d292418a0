import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileObjects, managedFiles } from '../../src/modules/files/tables.ts';
import { createFilesTestApp, type FilesTestApp, pngBytes, uploadFile } from '../files/files-helpers.ts';
import { S3_SECRET, startS3rver, type TestS3 } from '../files/storage-s3rver.ts';
import { ADMIN_PASSWORD, call } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { jobsForTask, type TaskData } from '../tasks/tasks-helpers.ts';
import { expectAnswered, health, metric, pollUntil, type Timed, timedCall } from './fault-helpers.ts';

/**
 * The platform's S3-compatible storage (s3rver) stopped and started again under a running
 * instance (issue 27, decision 0040): uploads and downloads answer 503 ops.storage_unavailable
 * within the bound and write nothing; everything else goes on; health says degraded; once the
 * storage is back the files stored before are read back byte for byte and uploads work again;
 * an export asked during the outage waits (queued, the outage its `error`) and arrives after it.
 */
let s3: TestS3;
let t: FilesTestApp;

beforeAll(async () => {
  s3 = await startS3rver('atrium-faults');
  t = await createFilesTestApp();
  const created = await call(t.app, 'POST', '/api/storage-configs', {
    token: t.adminToken,
    body: {
      name: 'Platform bucket',
      kind: 's3',
      settings: {
        endpoint: s3.endpoint,
        region: s3.region,
        bucket: s3.bucket,
        accessKeyId: s3.accessKeyId,
        forcePathStyle: true,
        prefix: 'atrium',
      },
      secret: S3_SECRET,
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().data.id as number;
  const made = await call(t.app, 'POST', `/api/storage-configs/${id}/default`, { token: t.adminToken });
  expect(made.statusCode, made.body).toBe(200);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await s3?.stop();
});

async function timedUpload(name: string, data: Buffer): Promise<Timed> {
  const started = performance.now();
  const res = await uploadFile(t, t.demoAdminToken, { name, data, contentType: 'image/png' });
  return { res, ms: performance.now() - started };
}

async function taskOf(id: number): Promise<TaskData> {
  const res = await call(t.app, 'GET', `/api/tasks/${id}`, { token: t.demoAdminToken });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as TaskData;
}

describe('S3 stopped and started again', { timeout: 90_000 }, () => {
  const before = pngBytes();
  let beforeId: number;
  let exportId: number;
  let counts: { objects: number; files: number };

  it('before: a file goes to S3 and comes back; health says storage up', async () => {
    const up = (await timedUpload('before.png', before)).res;
    expect(up.statusCode, up.body).toBe(201);
    beforeId = up.json().data.id;
    const back = await call(t.app, 'GET', `/api/files/${beforeId}/content`, { token: t.demoAdminToken });
    expect(back.rawPayload.equals(before)).toBe(true);
    const h = await health(t.app);
    expect(h.report.dependencies.storage).toMatchObject({ state: 'up', kind: 's3', required: false });
    counts = { objects: await rowCount(t, fileObjects), files: await rowCount(t, managedFiles) };
  });

  it('while stopped: uploads and downloads are a named 503 and write nothing; the rest goes on', async () => {
    await s3.halt();

    const upload = expectAnswered(await timedUpload('during.png', pngBytes()), 'upload');
    expectError(upload, 503, 'ops.storage_unavailable');
    expect(Number(upload.headers['retry-after'])).toBeGreaterThan(0);
    const download = expectAnswered(
      await timedCall(t.app, 'GET', `/api/files/${beforeId}/content`, { token: t.demoAdminToken }),
      'download',
    );
    expectError(download, 503, 'ops.storage_unavailable');
    // the refused upload left no row behind
    expect({ objects: await rowCount(t, fileObjects), files: await rowCount(t, managedFiles) }).toEqual(counts);

    const login = expectAnswered(
      await timedCall(t.app, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } }),
      'sign-in',
    );
    expect(login.statusCode).toBe(200);
    const list = expectAnswered(await timedCall(t.app, 'GET', '/api/files', { token: t.demoAdminToken }), 'file list');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.list.map((f: { id: number }) => f.id)).toContain(beforeId);

    await pollUntil('health says degraded', async () => (await health(t.app)).report.status === 'degraded', 5_000);
    const h = await health(t.app);
    expect(h.statusCode).toBe(200);
    expect(h.report.ready).toBe(true);
    expect(h.report.dependencies.storage).toMatchObject({ state: 'down', kind: 's3', error: 'connection refused' });
    expect(await metric(t.app, 'atrium_dependency_failures_total{dependency="storage"}')).toBeGreaterThan(0);
    expect(await metric(t.app, 'atrium_dependency_state{dependency="storage",state="down"}')).toBe(1);

    // an export cannot store its result: it waits for the storage instead of failing
    const asked = await call(t.app, 'POST', '/api/export-jobs/operation-logs', { token: t.demoAdminToken, body: {} });
    expect(asked.statusCode, asked.body).toBe(201);
    exportId = asked.json().data.id;
    await pollUntil(
      'the export is put back to wait',
      async () => (await jobsForTask(t.database.db, exportId)) >= 2,
      20_000,
    );
    expect(await taskOf(exportId)).toMatchObject({
      status: 'queued',
      error: 'The file storage does not answer; try again shortly',
      resultAvailable: false,
    });
  });

  it('started again: what was stored before reads back, and uploads work again', async () => {
    const startedAt = performance.now();
    s3 = await startS3rver(s3.bucket, { port: s3.port, directory: s3.directory });
    await pollUntil('health says storage up', async () => {
      return (await health(t.app)).report.dependencies.storage?.state === 'up';
    });
    console.info(`s3-stopped: storage up again ${Math.round(performance.now() - startedAt)} ms after the restart`);
    expect((await health(t.app)).report.status).toBe('ok');

    const back = await call(t.app, 'GET', `/api/files/${beforeId}/content`, { token: t.demoAdminToken });
    expect(back.statusCode).toBe(200);
    expect(back.rawPayload.equals(before)).toBe(true);
    const after = pngBytes();
    const up = (await timedUpload('after.png', after)).res;
    expect(up.statusCode, up.body).toBe(201);
    const again = await call(t.app, 'GET', `/api/files/${up.json().data.id}/content`, { token: t.demoAdminToken });
    expect(again.rawPayload.equals(after)).toBe(true);
    // the waiting export ran once the storage was back: one result, the CSV of the tenant's log
    const final = ['succeeded', 'failed', 'cancelled'];
    await pollUntil('the export finishes', async () => final.includes((await taskOf(exportId)).status), 60_000);
    expect(await taskOf(exportId)).toMatchObject({ status: 'succeeded', error: null, resultAvailable: true });
    const csv = await call(t.app, 'GET', `/api/tasks/${exportId}/result`, { token: t.demoAdminToken });
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.body.startsWith('\uFEFFid,')).toBe(true);
    expect(await rowCount(t, managedFiles)).toBe(counts.files + 2);
  });
});
