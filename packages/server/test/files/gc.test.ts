import { Readable } from 'node:stream';
import { eq, isNull, ne, or } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileObjects, fileRefs, managedFiles } from '../../src/modules/files/tables.ts';
import type { Scope } from '../../src/platform/auth/principal.ts';
import { AppError } from '../../src/platform/http/errors.ts';
import { ADMIN_PASSWORD, login } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { call, createFilesTestApp, type FilesTestApp, pngBytes, uploadFile } from './files-helpers.ts';

/** Reference counting and the orphan collector, on an injected clock (no sleeping). */
let t: FilesTestApp;
let now = new Date('2026-11-21T08:00:00.000Z');
let token: string;
const HOUR = 3600_000;
const advance = async (ms: number) => {
  now = new Date(now.getTime() + ms);
  token = await login(t.app, 'admin', ADMIN_PASSWORD, 'demo'); // tokens follow the clock
};

beforeAll(async () => {
  t = await createFilesTestApp({ clock: () => now });
  token = t.demoAdminToken;
});
afterAll(async () => t?.close());

const scope = (): Scope => ({ tenantId: t.demoTenantId, principal: null, requestId: 'test', ip: '127.0.0.1' });
const objectOf = async (fileId: number) => {
  const file = await rowById(t, managedFiles, fileId);
  return file ? ((await rowById(t, fileObjects, file.objectId)) ?? null) : null;
};
const inTx = <T>(fn: (tx: Parameters<Parameters<typeof t.database.db.transaction>[0]>[0]) => Promise<T>) =>
  t.database.db.transaction(fn);

async function upload(data = pngBytes()) {
  const res = await uploadFile(t, token, { name: 'pic.png', data });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; url: string };
}

describe('reference counting', () => {
  it('counts owners; the last drop orphans the object; a repeat add or drop changes nothing', async () => {
    const file = await upload();
    const notice = { type: 'notice', id: 7 };
    expect(await inTx((tx) => t.app.files.addRef(tx, scope(), file.id, notice))).toBe(true);
    expect(await inTx((tx) => t.app.files.addRef(tx, scope(), file.id, notice))).toBe(false);
    expect(await objectOf(file.id)).toMatchObject({ refCount: 2, gcState: 'live' });

    expect((await call(t.app, 'DELETE', `/api/files/${file.id}`, { token })).statusCode).toBe(200);
    expect(await objectOf(file.id)).toMatchObject({ refCount: 1, gcState: 'live' });
    // still used by the notice: still served
    expect((await call(t.app, 'GET', file.url, { token })).statusCode).toBe(200);

    expect(await inTx((tx) => t.app.files.dropRef(tx, scope(), file.id, notice))).toBe(true);
    expect(await inTx((tx) => t.app.files.dropRef(tx, scope(), file.id, notice))).toBe(false);
    const orphan = await objectOf(file.id);
    expect(orphan).toMatchObject({ refCount: 0, gcState: 'orphaned' });
    expect(orphan?.orphanedAt?.toISOString()).toBe(now.toISOString());
    expectError(await call(t.app, 'GET', file.url, { token }), 404, 'files.file_not_found');

    // referenced again within the grace period: alive again
    expect(await inTx((tx) => t.app.files.addRef(tx, scope(), file.id, notice))).toBe(true);
    expect(await objectOf(file.id)).toMatchObject({ refCount: 1, gcState: 'live', orphanedAt: null });
    expect((await call(t.app, 'GET', file.url, { token })).statusCode).toBe(200);
  });

  it('an owner rolled back with its transaction leaves the count as it was', async () => {
    const file = await upload();
    await expect(
      inTx(async (tx) => {
        await t.app.files.addRef(tx, scope(), file.id, { type: 'export', id: 1 });
        throw new Error('owner failed');
      }),
    ).rejects.toThrow('owner failed');
    expect(await objectOf(file.id)).toMatchObject({ refCount: 1 });
    const refs = await t.database.db.select().from(fileRefs).where(eq(fileRefs.fileId, file.id));
    expect(refs.map((r) => r.ownerType)).toEqual(['upload']);
  });

  it("another tenant's file cannot be referenced (404)", async () => {
    const file = await upload();
    const foreign: Scope = { ...scope(), tenantId: t.demoTenantId + 10_000 };
    await expect(
      inTx((tx) => t.app.files.addRef(tx, foreign, file.id, { type: 'notice', id: 1 })),
    ).rejects.toMatchObject({
      key: 'files.file_not_found',
    });
  });
});

describe('orphan collection', () => {
  it('deletes an orphaned object after 24 hours and not before', async () => {
    const data = pngBytes();
    const file = await upload(data);
    const object = await objectOf(file.id);
    expect((await call(t.app, 'DELETE', `/api/files/${file.id}`, { token })).statusCode).toBe(200);
    expect(await objectOf(file.id)).toMatchObject({ gcState: 'orphaned', refCount: 0 });

    await advance(24 * HOUR - 60_000);
    expect(await t.app.files.collectOrphans()).toEqual({ deleted: 0 });
    expect(await rowById(t, fileObjects, object?.id as number)).toMatchObject({ gcState: 'orphaned' });
    expect(await t.storedFiles()).toContain(object?.storageKey);

    await advance(2 * 60_000);
    const task = t.app.ctx.jobs.systemTask('files.collectOrphans');
    expect(task?.schedule).toBe('*/30 * * * *');
    const result = await task?.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log });
    expect(result).toMatchObject({ deleted: 1 });
    expect(await rowById(t, fileObjects, object?.id as number)).toBeUndefined();
    expect(await rowById(t, managedFiles, file.id)).toBeUndefined();
    expect(await t.storedFiles()).not.toContain(object?.storageKey);
  });

  it('an upload of the same bytes within the grace period revives the orphaned object', async () => {
    const data = pngBytes();
    const first = await upload(data);
    await call(t.app, 'DELETE', `/api/files/${first.id}`, { token });
    const orphan = await objectOf(first.id);
    expect(orphan?.gcState).toBe('orphaned');
    await advance(HOUR);
    const second = await upload(data);
    expect((await objectOf(second.id))?.id).toBe(orphan?.id);
    expect(await objectOf(second.id)).toMatchObject({ refCount: 1, gcState: 'live', orphanedAt: null });
    await advance(25 * HOUR);
    await t.app.files.collectOrphans();
    expect((await call(t.app, 'GET', second.url, { token })).rawPayload.equals(data)).toBe(true);
  });

  it('an object being deleted is never referenced again: addRef is refused and an upload stores a new copy', async () => {
    const data = pngBytes();
    const file = await upload(data);
    await inTx((tx) => t.app.files.dropRef(tx, scope(), file.id, { type: 'upload', id: file.id }));
    const object = await objectOf(file.id);
    // the collector's claim, as it happens before the bytes are deleted
    await t.database.db
      .update(fileObjects)
      .set({ gcState: 'deleting' })
      .where(eq(fileObjects.id, object?.id as number));

    await expect(
      inTx((tx) => t.app.files.addRef(tx, scope(), file.id, { type: 'notice', id: 1 })),
    ).rejects.toMatchObject({
      status: 409,
      key: 'files.object_deleting',
    });
    expect(await t.database.db.select().from(fileRefs).where(eq(fileRefs.fileId, file.id))).toEqual([]);
    expect(await rowById(t, fileObjects, object?.id as number)).toMatchObject({ refCount: 0, gcState: 'deleting' });

    const again = await upload(data);
    const fresh = await objectOf(again.id);
    expect(fresh?.id).not.toBe(object?.id);
    expect(fresh).toMatchObject({ refCount: 1, gcState: 'live', sha256: object?.sha256 });
  });

  it('under a race between addRef and the collector no reference lands on a deleted object', async () => {
    const files: { id: number; url: string }[] = [];
    for (let i = 0; i < 24; i++) files.push(await upload());
    for (const f of files) await inTx((tx) => t.app.files.dropRef(tx, scope(), f.id, { type: 'upload', id: f.id }));
    await advance(25 * HOUR);

    const added = new Map<number, number>();
    const addRefs = (batch: typeof files) =>
      batch.flatMap((f) =>
        [1, 2].map((n) =>
          inTx((tx) => t.app.files.addRef(tx, scope(), f.id, { type: 'notice', id: n })).then(
            () => void added.set(f.id, (added.get(f.id) ?? 0) + 1),
            (err) => {
              // refused: the object is being deleted, or already gone with its file
              expect(err).toBeInstanceOf(AppError);
              expect(['files.object_deleting', 'files.file_not_found']).toContain((err as AppError).key);
            },
          ),
        ),
      );
    // The collectors start while the first half is in flight, before the second half is sent: some
    // references come first, some meet a claimed object, and some run concurrently with the claim.
    const first = addRefs(files.slice(0, 12));
    const collectors = [t.app.files.collectOrphans(), t.app.files.collectOrphans()];
    await new Promise((resolve) => setImmediate(resolve));
    const second = addRefs(files.slice(12));
    await Promise.all([...first, ...collectors, ...second, t.app.files.collectOrphans()]);
    expect(added.size).toBeGreaterThan(0);
    expect(added.size).toBeLessThan(files.length);
    await t.app.files.collectOrphans();

    const stored = new Set(await t.storedFiles());
    for (const f of files) {
      const refs = await t.database.db.select().from(fileRefs).where(eq(fileRefs.fileId, f.id));
      const object = await objectOf(f.id);
      if ((added.get(f.id) ?? 0) > 0) {
        expect(object).toMatchObject({ gcState: 'live', refCount: refs.length });
        expect(refs.length).toBe(added.get(f.id));
        expect(stored.has(object?.storageKey as string)).toBe(true);
        expect((await call(t.app, 'GET', f.url, { token })).statusCode).toBe(200);
      } else {
        expect(refs).toEqual([]);
        expect(object).toBeNull();
      }
    }
    // no reference points at a missing file, a missing object or one that is not live
    const dangling = await t.database.db
      .select({ id: fileRefs.id })
      .from(fileRefs)
      .leftJoin(managedFiles, eq(managedFiles.id, fileRefs.fileId))
      .leftJoin(fileObjects, eq(fileObjects.id, managedFiles.objectId))
      .where(or(isNull(managedFiles.id), isNull(fileObjects.id), ne(fileObjects.gcState, 'live')));
    expect(dangling).toEqual([]);
  });
});

describe('the store service', () => {
  it('stores a stream for another module with its own owner and policy', async () => {
    const view = await t.app.files.store(scope(), {
      body: Readable.from([pngBytes()]),
      name: 'result.png',
      declaredMime: null,
      visibility: 'private',
      maxBytes: 1024,
      policy: { mimeAllowList: null, blockedExtensions: [] },
      owner: { type: 'export', id: 99 },
    });
    const refs = await t.database.db.select().from(fileRefs).where(eq(fileRefs.fileId, view.id));
    expect(refs.map((r) => [r.ownerType, r.ownerId])).toEqual([['export', 99]]);
  });
});
