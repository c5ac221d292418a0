import { and, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBMISSIONS_PER_WINDOW, submissionsKey } from '../../src/modules/drive/collect/collect-service.ts';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import {
  driveActivities,
  driveCollectSubmissions,
  driveNodes,
  driveShareLinks,
  driveSpaces,
} from '../../src/modules/drive/tables.ts';
import { call } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant } from '../helpers/fixtures.ts';
import { createCollect, logsOf, publicBase, type Submission, submissionsOf, submit } from './collect-helpers.ts';
import { type DriveUser, driveUser, folder, space } from './drive-fixtures.ts';
import { notificationsOf } from './requests-helpers.ts';
import {
  createDriveTestApp,
  type DriveTestApp,
  driveSettings,
  driveState,
  elf,
  member,
  nodeRow,
  pe,
  sha256,
  spaceRow,
  text,
} from './uploads-helpers.ts';

/**
 * Submitting to a collection link (issue 15 item 3): POST /api/drive/public/shares/{token}/submissions
 * stores the file in the link's folder as the creator's, renamed on conflict, charged, recorded,
 * logged and notified; every refusal (size, extensions, blocked types, executables, the name,
 * the cumulative limits under concurrency, the quota, the link's state) leaves nothing behind.
 * GET /api/drive/share-links/{id}/submissions lists the records, kept after the file is purged.
 */
let t: DriveTestApp;
let owner: DriveUser;
let editor: DriveUser;
let viewer: DriveUser;
const demo = () => t.demoTenantId;

beforeAll(async () => {
  t = await createDriveTestApp();
  owner = await driveUser(t);
  editor = await driveUser(t);
  viewer = await driveUser(t);
});
afterAll(async () => t?.close());

/** A team space the owner manages with an editor (who makes the links) and a viewer, and a folder to collect into. */
async function world(opts: Parameters<typeof space>[2] = {}): Promise<{ sp: SpaceRow; inbox: NodeRow }> {
  const sp = await space(t, demo(), { ownerUserId: owner.userId, ...opts });
  await member(t, demo(), sp.id, editor.userId, 'editor');
  await member(t, demo(), sp.id, viewer.userId, 'viewer');
  const inbox = await folder(t, demo(), sp.id, null, 'Inbox');
  return { sp, inbox };
}

const childrenOf = (folderId: number) =>
  t.database.db.select().from(driveNodes).where(eq(driveNodes.parentId, folderId)).orderBy(driveNodes.id);

/**
 * A refused submission writes nothing: no node, version, reference, record, counter, log row or
 * usage; refused before its bytes are stored (`stored: false`), not even a managed file or an
 * object. Refused in the placing transaction (quota, a limit reached meanwhile), the stored
 * bytes are an unreferenced orphan for the files collector, as for every drive upload.
 */
async function expectNothingWritten(
  sp: SpaceRow,
  linkId: number,
  send: () => Promise<LightMyRequestResponse>,
  opts: { stored?: boolean } = {},
) {
  const state = async () => {
    const drive = await driveState(t, sp.id);
    return {
      drive: opts.stored ? { ...drive, managedFiles: 0 } : drive,
      objects: opts.stored ? [] : await t.storedFiles(),
      records: await rowCount(t, driveCollectSubmissions),
      logs: (await logsOf(t, linkId)).length,
      counters: await linkCounters(linkId),
    };
  };
  const before = await state();
  const res = await send();
  expect(await state()).toEqual(before);
  return res;
}

async function linkCounters(id: number) {
  const [row] = await t.database.db.select().from(driveShareLinks).where(eq(driveShareLinks.id, id));
  return { files: row?.collectFileCount, bytes: row?.collectBytes };
}

const doc = (name: string, n = 64, extra: Partial<Submission> = {}): Submission => ({ name, data: text(n), ...extra });

describe('a submission', () => {
  it('lands in the folder as the creator’s file: name, owner, quota, activity, log, record, notification', async () => {
    const { sp, inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id, {}, { title: 'Receipts' });
    const notesBefore = (await notificationsOf(t, demo(), 'drive.collect.received')).length;
    const data = text(300);
    const res = await submit(
      t,
      l.token,
      { name: 'receipt.txt', data, submitterName: 'Li Wei', note: 'March' },
      { 'user-agent': 'ua-collect' },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toEqual({
      fileName: 'receipt.txt',
      originalName: 'receipt.txt',
      size: 300,
      sha256: sha256(data),
      remainingFiles: null,
      remainingBytes: null,
    });
    const [node] = await childrenOf(inbox.id);
    expect(node).toMatchObject({
      name: 'receipt.txt',
      type: 'file',
      size: 300,
      sha256: sha256(data),
      createdBy: editor.userId,
      spaceId: sp.id,
    });
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(300);
    const acts = await t.database.db
      .select()
      .from(driveActivities)
      .where(and(eq(driveActivities.nodeId, (node as NodeRow).id), eq(driveActivities.action, 'node.upload')));
    expect(acts).toHaveLength(1);
    expect(acts[0]?.detail).toMatchObject({ via: 'collect', linkId: l.id, submitterName: 'Li Wei' });
    const logs = await logsOf(t, l.id);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ event: 'upload', nodeId: node?.id, userAgent: 'ua-collect', tenantId: demo() });
    const [rec] = await submissionsOf(t, l.id);
    expect(rec).toMatchObject({
      tenantId: demo(),
      spaceId: sp.id,
      nodeId: node?.id,
      fileName: 'receipt.txt',
      originalName: 'receipt.txt',
      size: 300,
      sha256: sha256(data),
      submitterName: 'Li Wei',
      note: 'March',
      userAgent: 'ua-collect',
      userId: null,
    });
    expect(rec?.ip).toBeTruthy();
    expect(await linkCounters(l.id)).toEqual({ files: 1, bytes: 300 });
    const notes = (await notificationsOf(t, demo(), 'drive.collect.received')).slice(notesBefore);
    expect(notes).toEqual([
      { userIds: [editor.userId], variables: { linkName: 'Receipts', fileName: 'receipt.txt', submitter: 'Li Wei' } },
    ]);
  });

  it('keeps both on a name conflict: "a (1).txt", the record names both', async () => {
    const { inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id);
    expect((await submit(t, l.token, doc('a.txt'))).json().data.fileName).toBe('a.txt');
    const second = await submit(t, l.token, doc('A.txt'));
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().data).toMatchObject({ fileName: 'A (1).txt', originalName: 'A.txt' });
    expect((await childrenOf(inbox.id)).map((n) => n.name)).toEqual(['a.txt', 'A (1).txt']);
    expect((await submissionsOf(t, l.id)).map((r) => [r.fileName, r.originalName])).toEqual([
      ['a.txt', 'a.txt'],
      ['A (1).txt', 'A.txt'],
    ]);
  });
});

describe('refusals leave nothing behind', () => {
  it('a file above the link’s size: 413 drive.too_large', async () => {
    const { sp, inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id, { maxFileSizeMb: 1 });
    const big = { name: 'big.txt', data: Buffer.alloc(1024 * 1024 + 1, 0x61) };
    expectError(await expectNothingWritten(sp, l.id, () => submit(t, l.token, big)), 413, 'drive.too_large', 'file');
    const fits = await submit(t, l.token, { name: 'fits.txt', data: Buffer.alloc(1024 * 1024, 0x61) });
    expect(fits.statusCode, fits.body).toBe(201);
  });

  it('an extension the link does not take, one the tenant blocks, executable headers under innocent names', async () => {
    const { sp, inbox } = await world();
    const pdfOnly = await createCollect(t, editor.token, inbox.id, { allowedExtensions: ['pdf', 'tar.gz'] });
    expectError(
      await expectNothingWritten(sp, pdfOnly.id, () => submit(t, pdfOnly.token, doc('notes.txt'))),
      400,
      'drive.collect_extension_not_allowed',
      'file',
    );
    const any = await createCollect(t, editor.token, inbox.id);
    expectError(
      await expectNothingWritten(sp, any.id, () => submit(t, any.token, doc('tool.exe'))),
      400,
      'files.blocked_type',
      'file',
    );
    // a blocked extension stays blocked even when the link lists it
    const listsExe = await createCollect(t, editor.token, inbox.id, { allowedExtensions: ['exe'] });
    expectError(await submit(t, listsExe.token, doc('setup.exe')), 400, 'files.blocked_type');
    expectError(
      await expectNothingWritten(sp, any.id, () => submit(t, any.token, { name: 'notes.txt', data: elf() })),
      400,
      'files.blocked_type',
    );
    expectError(
      await expectNothingWritten(sp, pdfOnly.id, () =>
        submit(t, pdfOnly.token, { name: 'scan.pdf', data: pe(), contentType: 'application/pdf' }),
      ),
      400,
      'files.blocked_type',
    );
    // what the link takes passes, in any case, double extensions included
    expect((await submit(t, pdfOnly.token, doc('SCAN.PDF'))).statusCode).toBe(201);
    expect((await submit(t, pdfOnly.token, doc('backup.tar.gz'))).statusCode).toBe(201);
  });

  it('a missing submitter name when the link requires one; too long a note', async () => {
    const { sp, inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id, { requireName: true });
    expectError(
      await expectNothingWritten(sp, l.id, () => submit(t, l.token, doc('x.txt'))),
      400,
      'request.validation_failed',
      'submitterName',
    );
    expectError(
      await expectNothingWritten(sp, l.id, () => submit(t, l.token, doc('x.txt', 64, { submitterName: '   ' }))),
      400,
      'request.validation_failed',
      'submitterName',
    );
    expectError(
      await submit(t, l.token, doc('x.txt', 64, { submitterName: 'Ann', note: 'n'.repeat(301) })),
      400,
      'request.validation_failed',
      'note',
    );
    const ok = await submit(t, l.token, doc('x.txt', 64, { submitterName: ' Ann ' }));
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await submissionsOf(t, l.id))[0]?.submitterName).toBe('Ann');
  });

  it('a NUL in the name, the note or the file name: 400 naming it, before a byte is stored', async () => {
    // once the bytes were stored and the record's insert failed on the NUL (input fuzz)
    const { sp, inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id);
    for (const [field, s] of [
      ['submitterName', doc('x.txt', 64, { submitterName: 'A\u0000nn' })],
      ['note', doc('x.txt', 64, { note: 'n\u0000' })],
      ['file', doc('x\u0000.txt')],
    ] as const) {
      expectError(
        await expectNothingWritten(sp, l.id, () => submit(t, l.token, s)),
        400,
        'request.validation_failed',
        field,
      );
    }
  });

  it('maxFiles under concurrency: of 10 parallel submissions against 3 exactly 3 land', async () => {
    const { sp, inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id, { maxFiles: 3 });
    const uploadRefs = (await driveState(t, sp.id)).uploadRefs;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => submit(t, l.token, doc(`f${i}.txt`, 100))));
    const codes = answers.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.statusCode === 409))
      expectError(r, 409, 'drive.collect_limit_reached', 'file');
    expect(await childrenOf(inbox.id)).toHaveLength(3);
    expect(await submissionsOf(t, l.id)).toHaveLength(3);
    expect(await linkCounters(l.id)).toEqual({ files: 3, bytes: 300 });
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(300);
    // the bytes of the refused ones are not held by anything
    expect((await driveState(t, sp.id)).uploadRefs).toBe(uploadRefs);
    // reached: the next is refused before its body is read, and the link shows exhausted
    expectError(await submit(t, l.token, doc('late.txt')), 409, 'drive.collect_limit_reached');
    const view = await call(t.app, 'GET', `/api/drive/share-links/${l.id}`, { token: editor.token });
    expect(view.json().data).toMatchObject({ state: 'exhausted', collect: { fileCount: 3, remainingFiles: 0 } });
  });

  it('maxTotalMb: a file that does not fit in what is left is refused', async () => {
    const { sp, inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id, { maxTotalMb: 1 });
    const part = (name: string) => ({ name, data: Buffer.alloc(700 * 1024, 0x62) });
    expect((await submit(t, l.token, part('one.txt'))).statusCode).toBe(201);
    expectError(
      await expectNothingWritten(sp, l.id, () => submit(t, l.token, part('two.txt')), { stored: true }),
      409,
      'drive.collect_limit_reached',
      'file',
    );
    const small = await submit(t, l.token, doc('small.txt', 1000));
    expect(small.statusCode, small.body).toBe(201);
    expect(small.json().data.remainingBytes).toBe(1024 * 1024 - 700 * 1024 - 1000);
  });

  it('past the quota or a full space: 413 drive.quota_exceeded', async () => {
    const { sp, inbox } = await world({ quotaBytes: 100 });
    const l = await createCollect(t, editor.token, inbox.id);
    expectError(
      await expectNothingWritten(sp, l.id, () => submit(t, l.token, doc('x.txt', 101)), { stored: true }),
      413,
      'drive.quota_exceeded',
    );
    // a full space refuses before any byte is stored
    await t.database.db.update(driveSpaces).set({ usedBytes: 100 }).where(eq(driveSpaces.id, sp.id));
    expectError(
      await expectNothingWritten(sp, l.id, () => submit(t, l.token, doc('y.txt', 10))),
      413,
      'drive.quota_exceeded',
    );
  });

  it('revoked, expired and disabled links', async () => {
    const { sp, inbox } = await world();
    const revoked = await createCollect(t, editor.token, inbox.id);
    await call(t.app, 'POST', `/api/drive/share-links/${revoked.id}/revoke`, { token: editor.token });
    expectError(
      await expectNothingWritten(sp, revoked.id, () => submit(t, revoked.token, doc('x.txt'))),
      410,
      'drive.share_revoked',
    );
    const expired = await createCollect(t, editor.token, inbox.id);
    await t.database.db
      .update(driveShareLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(driveShareLinks.id, expired.id));
    expectError(await submit(t, expired.token, doc('x.txt')), 410, 'drive.share_expired');
    const off = await createCollect(t, editor.token, inbox.id);
    await t.database.db.update(driveSpaces).set({ externalShareEnabled: false }).where(eq(driveSpaces.id, sp.id));
    expectError(
      await expectNothingWritten(sp, off.id, () => submit(t, off.token, doc('x.txt'))),
      403,
      'drive.share_disabled',
    );
    await t.database.db.update(driveSpaces).set({ externalShareEnabled: true }).where(eq(driveSpaces.id, sp.id));
    await driveSettings(t, { externalShareEnabled: false });
    try {
      expectError(await submit(t, off.token, doc('x.txt')), 403, 'drive.share_disabled');
    } finally {
      await driveSettings(t, { externalShareEnabled: true });
    }
    // a share link's token does not take submissions
    const share = await call(t.app, 'POST', '/api/drive/share-links', {
      token: editor.token,
      body: { nodeId: inbox.id, expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expectError(await submit(t, share.json().data.token, doc('x.txt')), 404, 'drive.share_not_found');
    expect(await childrenOf(inbox.id)).toHaveLength(0);
  });

  it('a password link needs the access session', async () => {
    const { sp, inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id, {}, { password: 'drop-it-here' });
    expectError(
      await expectNothingWritten(sp, l.id, () => submit(t, l.token, doc('x.txt'))),
      401,
      'drive.share_password_required',
    );
    const pw = await t.app.inject({
      method: 'POST',
      url: `${publicBase(l.token)}/password`,
      payload: { password: 'drop-it-here' },
    });
    expect(pw.statusCode, pw.body).toBe(200);
    const res = await submit(t, l.token, doc('x.txt'), { 'x-share-session': pw.json().data.sessionToken });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('too many submissions from one address: 429 with Retry-After', async () => {
    const { inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id);
    for (let i = 0; i < SUBMISSIONS_PER_WINDOW; i++)
      await t.app.drive.core.cache.incr(submissionsKey(l.id, '127.0.0.1'), 600);
    const res = await submit(t, l.token, doc('x.txt'));
    expectError(res, 429, 'drive.collect_too_many_submissions');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // another address is not held back
    const elsewhere = await t.app.inject({ ...(await submitRequest(l.token)), remoteAddress: '10.1.2.3' });
    expect(elsewhere.statusCode, elsewhere.body).toBe(201);
  });
});

/** The request of a plain submission, to send it from another address. */
async function submitRequest(token: string) {
  const { multipartBody } = await import('../files/files-helpers.ts');
  const body = multipartBody([{ field: 'file', filename: 'y.txt', contentType: 'text/plain', data: text(10) }]);
  return {
    method: 'POST' as const,
    url: `${publicBase(token)}/submissions`,
    payload: body.payload,
    headers: body.headers,
  };
}

describe('GET /api/drive/share-links/{id}/submissions', () => {
  it('lists the records newest first; a record stays after its file is deleted and purged', async () => {
    const { inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id);
    await submit(t, l.token, doc('first.txt', 10, { submitterName: 'Ann', note: 'hello' }));
    await submit(t, l.token, doc('second.txt', 20));
    const list = async (token: string) =>
      call(t.app, 'GET', `/api/drive/share-links/${l.id}/submissions?pageSize=10`, { token });
    const res = await list(editor.token);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json().data;
    expect(page.total).toBe(2);
    expect(page.list.map((r: { fileName: string }) => r.fileName)).toEqual(['second.txt', 'first.txt']);
    const first = page.list[1];
    expect(first).toMatchObject({
      submitterName: 'Ann',
      note: 'hello',
      size: 10,
      purged: false,
      inRecycleBin: false,
      originalName: 'first.txt',
      userAgent: 'collect-test',
    });
    expect(first.ip).toBeTruthy();
    const nodeId = first.nodeId as number;
    expect((await nodeRow(t, nodeId)).name).toBe('first.txt');
    // a manager of the folder sees them too
    expect((await list(owner.token)).json().data.total).toBe(2);

    const del = await call(t.app, 'DELETE', '/api/drive/nodes/batch', { token: owner.token, body: { ids: [nodeId] } });
    expect(del.statusCode, del.body).toBe(200);
    expect((await list(editor.token)).json().data.list[1]).toMatchObject({ nodeId, inRecycleBin: true, purged: false });
    const purge = await call(t.app, 'POST', '/api/drive/nodes/recycle/purge', {
      token: owner.token,
      body: { ids: [nodeId] },
    });
    expect(purge.statusCode, purge.body).toBe(200);
    expect((await t.database.db.select().from(driveNodes).where(eq(driveNodes.id, nodeId))).length).toBe(0);
    const after = (await list(editor.token)).json().data;
    expect(after.total).toBe(2);
    expect(after.list[1]).toMatchObject({ nodeId: null, purged: true, fileName: 'first.txt', submitterName: 'Ann' });
  });

  it('others get 404: a viewer, a stranger, another tenant; a share link has no records; bad paging 400', async () => {
    const { inbox } = await world();
    const l = await createCollect(t, editor.token, inbox.id);
    await submit(t, l.token, doc('x.txt'));
    const url = `/api/drive/share-links/${l.id}/submissions`;
    expectError(await call(t.app, 'GET', url, { token: viewer.token }), 404, 'drive.share_link_not_found');
    const stranger = await driveUser(t);
    expectError(await call(t.app, 'GET', url, { token: stranger.token }), 404, 'drive.share_link_not_found');
    const o = await createTenant(t);
    const outsider = await driveUser(t, { tenantId: o.tenantId, tenantCode: o.code });
    const res = await call(t.app, 'GET', url, { token: outsider.token });
    expectError(res, 404, 'drive.share_link_not_found');
    expect(res.body).not.toContain('x.txt');
    const noView = await driveUser(t, { permissions: ['drive:space:view'] });
    expectError(await call(t.app, 'GET', url, { token: noView.token }), 403, 'auth.permission_denied');
    const share = await call(t.app, 'POST', '/api/drive/share-links', {
      token: editor.token,
      body: { nodeId: inbox.id, expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expectError(
      await call(t.app, 'GET', `/api/drive/share-links/${share.json().data.id}/submissions`, { token: editor.token }),
      404,
      'drive.share_link_not_found',
    );
    expectError(
      await call(t.app, 'GET', `${url}?pageSize=0`, { token: editor.token }),
      400,
      'request.validation_failed',
      'pageSize',
    );
  });
});
