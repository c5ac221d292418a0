import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { asyncTasks } from '../../src/modules/tasks/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { parseCsv, type TaskData, waitForTask } from '../tasks/tasks-helpers.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { member } from './nodes-fixtures.ts';
import { grant } from './permissions-helpers.ts';
import { shareLink } from './public-fixtures.ts';
import { accessRecord, daysAgo } from './share-audit-helpers.ts';

/**
 * The access-record export (issue 15 item 5): task kind drive.share_access_logs, formula-safe CSV
 * downloaded through the task center; one link (creator or manager of the node) or every link of
 * a space (space manager).
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'creator' | 'editor' | 'memberEditor', DriveUser> = {} as never;
let outsider: DriveUser;
let sp: SpaceRow;
let doc: NodeRow;
let link: { id: number; tenantId: number | null };
let link2: { id: number; tenantId: number | null };
let elsewhere: { id: number; tenantId: number | null };
const FORMULA_AGENT = '=cmd|" /C calc"!A0';

const user = (x: TenantFixture) => driveUser(t, { tenantId: x.tenantId, tenantCode: x.code });
const post = (token: string, url: string, body: object = {}) => call(t.app, 'POST', url, { token, body });
const linkExport = (token: string, id: number, body: object = {}) =>
  post(token, `/api/drive/share-links/${id}/access-logs/export`, body);
const spaceExport = (token: string, body: object) => post(token, '/api/drive/share-links/access-logs/export', body);

async function csvOf(token: string, res: { statusCode: number; body: string; json(): { data: TaskData } }) {
  expect(res.statusCode, res.body).toBe(201);
  const task = res.json().data;
  expect(task).toMatchObject({ kind: 'drive.share_access_logs', status: 'queued' });
  const done = await waitForTask(t, token, task.id);
  expect(done).toMatchObject({ status: 'succeeded', progress: 100, resultAvailable: true });
  const file = await call(t.app, 'GET', `/api/tasks/${task.id}/result`, { token });
  expect(file.statusCode, file.body).toBe(200);
  expect(file.headers['content-type']).toMatch(/^text\/csv/);
  expect(file.headers['content-disposition']).toContain(`share-access-logs-${task.id}.csv`);
  expect(file.body.startsWith('\uFEFF')).toBe(true);
  return parseCsv(file.body.slice(1));
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.creator = await user(a);
  u.editor = await user(a);
  u.memberEditor = await user(a);
  outsider = await user(other);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Sales' });
  await member(t, a.tenantId, sp.id, { type: 'user', id: u.memberEditor.userId }, 'editor');
  const top = await folder(t, a.tenantId, sp.id, null, 'Offers');
  doc = await file(t, a.tenantId, sp.id, top, 'offer.pdf');
  for (const x of [u.creator, u.editor]) await grant(t, a.tenantId, top, { type: 'user', id: x.userId }, 'editor');
  link = await shareLink(t, doc, u.creator.userId);
  link2 = await shareLink(t, top, u.editor.userId);
  await accessRecord(t, link, 'access', { at: daysAgo(2), ip: '198.51.100.1', nodeId: doc.id });
  await accessRecord(t, link, 'download', {
    at: daysAgo(1),
    ip: '198.51.100.2',
    nodeId: doc.id,
    userAgent: FORMULA_AGENT,
    detail: { range: false },
  });
  await accessRecord(t, link2, 'wrong_password', { at: daysAgo(1), ip: '192.0.2.5', nodeId: top.id });
  const sp2 = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId });
  elsewhere = await shareLink(t, await file(t, a.tenantId, sp2.id, null, 'e.txt'), u.owner.userId);
  await accessRecord(t, elsewhere, 'access', { ip: '192.0.2.200' });
});
afterAll(async () => t?.close());

describe('POST /api/drive/share-links/{id}/access-logs/export', () => {
  it('exports the link’s records newest first as CSV, a formula-like user agent neutralised', async () => {
    const [header, ...rows] = await csvOf(u.creator.token, await linkExport(u.creator.token, link.id));
    expect(header).toEqual(['id', 'createdAt', 'linkId', 'event', 'nodeId', 'nodeName', 'ip', 'userAgent', 'detail']);
    expect(rows.map((r) => [r[2], r[3], r[5], r[6]])).toEqual([
      [String(link.id), 'download', 'offer.pdf', '198.51.100.2'],
      [String(link.id), 'access', 'offer.pdf', '198.51.100.1'],
    ]);
    expect(rows[0]?.[7]).toBe(`'${FORMULA_AGENT}`);
    expect(JSON.parse(rows[0]?.[8] ?? '')).toEqual({ range: false });
  });

  it('takes the event filter and range, and a manager of the node may export too', async () => {
    const rows = await csvOf(u.owner.token, await linkExport(u.owner.token, link.id, { event: 'access' }));
    expect(rows.slice(1).map((r) => r[6])).toEqual(['198.51.100.1']);
    const none = await csvOf(
      u.creator.token,
      await linkExport(u.creator.token, link.id, { from: daysAgo(30).toISOString(), to: daysAgo(3).toISOString() }),
    );
    expect(none).toHaveLength(1);
  });

  it('refuses another editor, another tenant and bad input, starting no task', async () => {
    const before = await rowCount(t, asyncTasks);
    expectError(await linkExport(u.editor.token, link.id), 404, 'drive.share_link_not_found');
    expectError(await linkExport(outsider.token, link.id), 404, 'drive.share_link_not_found');
    expectError(
      await linkExport(u.creator.token, link.id, { event: 'opened' }),
      400,
      'request.validation_failed',
      'event',
    );
    const backwards = { from: new Date().toISOString(), to: daysAgo(1).toISOString() };
    expectError(await linkExport(u.creator.token, link.id, backwards), 400, 'request.validation_failed', 'to');
    expectError(await linkExport(u.creator.token, 0), 400, 'request.validation_failed', 'id');
    expect(await rowCount(t, asyncTasks)).toBe(before);
  });
});

describe('POST /api/drive/share-links/access-logs/export (a space)', () => {
  it('exports the records of every link of the space to its manager, and only that space', async () => {
    const rows = await csvOf(u.owner.token, await spaceExport(u.owner.token, { spaceId: sp.id }));
    expect(rows.slice(1).map((r) => [Number(r[2]), r[3]])).toEqual([
      [link2.id, 'wrong_password'],
      [link.id, 'download'],
      [link.id, 'access'],
    ]);
    expect(rows.flat()).not.toContain('192.0.2.200');
  });

  it('refuses an editor member (403), a link creator who is no member and another tenant (404), bad input; no task', async () => {
    const before = await rowCount(t, asyncTasks);
    expectError(await spaceExport(u.memberEditor.token, { spaceId: sp.id }), 403, 'drive.role_too_low');
    expectError(await spaceExport(u.creator.token, { spaceId: sp.id }), 404, 'drive.space_not_found');
    expectError(await spaceExport(outsider.token, { spaceId: sp.id }), 404, 'drive.space_not_found');
    expectError(await spaceExport(u.owner.token, {}), 400, 'request.validation_failed', 'spaceId');
    const tooLong = { spaceId: sp.id, from: daysAgo(400).toISOString() };
    expectError(await spaceExport(u.owner.token, tooLong), 400, 'request.validation_failed', 'from');
    expect(await rowCount(t, asyncTasks)).toBe(before);
  });
});
