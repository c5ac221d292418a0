import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { grant } from './permissions-helpers.ts';
import { shareLink } from './public-fixtures.ts';
import { accessRecord, daysAgo } from './share-audit-helpers.ts';
import { createLink } from './shares-helpers.ts';

/**
 * A share link's access records (issue 15 item 5): GET /api/drive/share-links/{id}/access-logs —
 * who opened the link, when, from which address and browser; to its creator and the node's
 * managers only, newest first, filtered by event and a bounded time range.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'creator' | 'editor' | 'viewer', DriveUser> = {} as never;
let outsider: DriveUser;
let sp: SpaceRow;
let doc: NodeRow;
let linkId: number;
let otherLinkId: number;
let foreignLinkId: number;

const user = (x: TenantFixture) => driveUser(t, { tenantId: x.tenantId, tenantCode: x.code });
const logsOf = (token: string, id: number, query = '') =>
  call(t.app, 'GET', `/api/drive/share-links/${id}/access-logs${query}`, { token });
type Item = { id: number; event: string; ip: string; userAgent: string | null; node: { id: number; name: string } };

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.creator = await user(a);
  u.editor = await user(a);
  u.viewer = await user(a);
  outsider = await user(other);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Sales' });
  const top = await folder(t, a.tenantId, sp.id, null, 'Offers');
  doc = await file(t, a.tenantId, sp.id, top, 'offer.pdf');
  for (const x of [u.creator, u.editor]) await grant(t, a.tenantId, top, { type: 'user', id: x.userId }, 'editor');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewer.userId }, 'viewer');
  const res = await createLink(t, u.creator.token, { nodeId: doc.id });
  expect(res.statusCode, res.body).toBe(201);
  linkId = res.json().data.id;
  const link = { id: linkId, tenantId: a.tenantId };
  await accessRecord(t, link, 'access', { at: daysAgo(40), ip: '198.51.100.1', nodeId: doc.id });
  await accessRecord(t, link, 'access', { at: daysAgo(3), ip: '198.51.100.2', nodeId: doc.id, userAgent: 'Firefox' });
  await accessRecord(t, link, 'wrong_password', { at: daysAgo(2), ip: '198.51.100.3', nodeId: doc.id });
  await accessRecord(t, link, 'download', { at: daysAgo(1), ip: '2001:db8::5', nodeId: doc.id, userAgent: 'curl/8' });
  // another link of the same node: its records are not this link's
  otherLinkId = (await shareLink(t, doc, u.creator.userId)).id;
  await accessRecord(t, { id: otherLinkId, tenantId: a.tenantId }, 'access', { ip: '192.0.2.99' });
  const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: outsider.userId });
  foreignLinkId = (await shareLink(t, await file(t, other.tenantId, osp.id, null, 'x.txt'), outsider.userId)).id;
});
afterAll(async () => t?.close());

describe('GET /api/drive/share-links/{id}/access-logs', () => {
  it('shows the creator the last 30 days newest first, with address, user agent and node', async () => {
    const res = await logsOf(u.creator.token, linkId);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json().data as { list: Item[]; total: number };
    expect(page.total).toBe(3);
    expect(page.list.map((r) => [r.event, r.ip, r.userAgent])).toEqual([
      ['download', '2001:db8::5', 'curl/8'],
      ['wrong_password', '198.51.100.3', 'Mozilla/5.0'],
      ['access', '198.51.100.2', 'Firefox'],
    ]);
    expect(page.list[0]).toMatchObject({ linkId, node: { id: doc.id, name: 'offer.pdf' } });
  });

  it('shows a manager of the node the same records', async () => {
    const res = await logsOf(u.owner.token, linkId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total).toBe(3);
  });

  it('filters by event and by a range reaching further back, and pages', async () => {
    const downloads = await logsOf(u.creator.token, linkId, '?event=download');
    expect(downloads.json().data.list.map((r: Item) => r.ip)).toEqual(['2001:db8::5']);
    const from = daysAgo(60).toISOString();
    const to = daysAgo(2.5).toISOString();
    const older = await logsOf(u.creator.token, linkId, `?from=${from}&to=${to}`);
    expect(older.statusCode, older.body).toBe(200);
    expect(older.json().data.list.map((r: Item) => r.ip)).toEqual(['198.51.100.2', '198.51.100.1']);
    const paged = await logsOf(u.creator.token, linkId, `?from=${from}&pageSize=1&page=2`);
    expect(paged.json().data).toMatchObject({ total: 4, page: 2, pageSize: 1 });
    expect(paged.json().data.list.map((r: Item) => r.ip)).toEqual(['198.51.100.3']);
  });

  it('is not found for an editor who did not create the link, a viewer and another tenant', async () => {
    for (const token of [u.editor.token, u.viewer.token, outsider.token]) {
      const res = await logsOf(token, linkId);
      expectError(res, 404, 'drive.share_link_not_found');
      expect(res.body).not.toContain('198.51.100');
    }
    expectError(await logsOf(u.creator.token, foreignLinkId), 404, 'drive.share_link_not_found');
    expectError(await logsOf(u.creator.token, 999_999), 404, 'drive.share_link_not_found');
  });

  it('refuses bad input naming the field', async () => {
    expectError(await logsOf(u.creator.token, linkId, '?event=opened'), 400, 'request.validation_failed', 'event');
    expectError(await logsOf(u.creator.token, linkId, '?from=yesterday'), 400, 'request.validation_failed', 'from');
    const now = new Date();
    const backwards = `?from=${now.toISOString()}&to=${daysAgo(1, now).toISOString()}`;
    expectError(await logsOf(u.creator.token, linkId, backwards), 400, 'request.validation_failed', 'to');
    const tooLong = `?from=${daysAgo(400, now).toISOString()}&to=${now.toISOString()}`;
    expectError(await logsOf(u.creator.token, linkId, tooLong), 400, 'request.validation_failed', 'from');
    expectError(await logsOf(u.creator.token, linkId, '?pageSize=201'), 400, 'request.validation_failed', 'pageSize');
    expectError(await logsOf(u.creator.token, 0), 400, 'request.validation_failed', 'id');
  });
});
