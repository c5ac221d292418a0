import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveLegalHolds } from '../../src/modules/drive/tables.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { file, folder } from './drive-fixtures.ts';
import { activitiesOf, bin, del, node, ok, purge, snapshot, unique, type World, world } from './recycle-fixtures.ts';

/** Legal holds (spec §2.2, §3.5): the admin API, and what a hold refuses. */
let t: TestApp;
let w: World;
let other: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  w = await world(t);
  other = await createTenant(t);
});
afterAll(async () => t?.close());

const f = (parent: Parameters<typeof folder>[3], name: string) => folder(t, w.tenantId, w.space.id, parent, name);
const fl = (parent: Parameters<typeof file>[3], name: string) =>
  file(t, w.tenantId, w.space.id, parent, name, unique(name));
const place = (nodeId: number, reason = 'litigation 2026-17', token = w.admin.token) =>
  call(t.app, 'POST', '/api/drive/admin/legal-holds', { token, body: { nodeId, reason } });
const release = (id: number, note = 'case closed', token = w.admin.token) =>
  call(t.app, 'POST', `/api/drive/admin/legal-holds/${id}/release`, { token, body: { note } });
const list = (query = '', token = w.admin.token) =>
  call(t.app, 'GET', `/api/drive/admin/legal-holds${query}`, { token });

async function outboxOf(nodeName: string) {
  const rows = await t.database.db
    .select()
    .from(notificationOutbox)
    .where(eq(notificationOutbox.eventKey, 'drive.legal_hold.changed'))
    .orderBy(notificationOutbox.id);
  return rows.filter((r) => r.input.variables.nodeName === nodeName);
}

describe('legal holds', () => {
  it('places a hold (audited and announced to the space managers), lists and releases it once', async () => {
    const x = await fl(null, 'contract.pdf');
    const res = await place(x.id);
    expect(res.statusCode, res.body).toBe(201);
    const hold = res.json().data;
    expect(hold).toMatchObject({
      spaceId: w.space.id,
      nodeId: x.id,
      nodeName: 'contract.pdf',
      nodeDeleted: false,
      reason: 'litigation 2026-17',
      active: true,
      placedBy: w.admin.userId,
      placedByName: w.admin.username,
      releasedBy: null,
      releasedAt: null,
      releaseNote: null,
    });
    expect(await rowById(t, driveLegalHolds, hold.id)).toMatchObject({ active: true, nodeId: x.id });
    const [placed] = await activitiesOf(t, x.id);
    expect(placed).toMatchObject({ action: 'hold.place', actorUserId: w.admin.userId });
    expect(placed?.detail).toMatchObject({ holdId: hold.id, reason: 'litigation 2026-17' });
    const [note] = await outboxOf('contract.pdf');
    expect(note?.input.recipients).toEqual([{ type: 'user', id: w.owner.userId }]);
    expect(note?.input.variables).toEqual({
      nodeName: 'contract.pdf',
      spaceName: w.space.name,
      actorName: w.admin.username,
      action: 'placed',
    });

    expectError(await place(x.id, 'again'), 409, 'drive.legal_hold_exists');
    expect(await rowCount(t, driveLegalHolds)).toBe(1);

    const listed = await ok(await list(`?spaceId=${w.space.id}&active=true`));
    expect(listed).toMatchObject({ total: 1, list: [{ id: hold.id, nodeName: 'contract.pdf', active: true }] });

    const rel = await ok(await release(hold.id));
    expect(rel).toMatchObject({
      id: hold.id,
      active: false,
      releasedBy: w.admin.userId,
      releasedByName: w.admin.username,
      releaseNote: 'case closed',
    });
    expect((rel as { releasedAt: string }).releasedAt).toEqual(expect.any(String));
    expectError(await release(hold.id, 'twice'), 409, 'drive.legal_hold_released');
    expect((await rowById(t, driveLegalHolds, hold.id))?.releaseNote).toBe('case closed');
    expect((await activitiesOf(t, x.id)).map((a) => [a.action, a.detail])).toEqual([
      ['hold.place', { holdId: hold.id, reason: 'litigation 2026-17' }],
      ['hold.release', { holdId: hold.id, note: 'case closed' }],
    ]);
    expect((await outboxOf('contract.pdf')).map((o) => o.input.variables.action)).toEqual(['placed', 'released']);

    expect(await ok(await list(`?spaceId=${w.space.id}&active=true`))).toMatchObject({ total: 0, list: [] });
    expect(await ok(await list(`?spaceId=${w.space.id}&active=false`))).toMatchObject({ total: 1 });
    // a new hold after the release is allowed
    expect((await place(x.id, 'second case')).statusCode).toBe(201);
  });

  it('two holds placed at once on one node: exactly one is placed', async () => {
    const x = await fl(null, 'race.pdf');
    const answers = await Promise.all([place(x.id, 'a'), place(x.id, 'b'), place(x.id, 'c')]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    const active = await t.database.db
      .select()
      .from(driveLegalHolds)
      .where(sql`${driveLegalHolds.nodeId} = ${x.id} and ${driveLegalHolds.active}`);
    expect(active).toHaveLength(1);
  });

  it('a hold refuses the delete of the node, of its ancestors, and the purge, empty of its subtree; a release lifts it', async () => {
    const top = await f(null, 'Case');
    const mid = await f(top, 'Evidence');
    const x = await fl(mid, 'mail.eml');
    const sibling = await fl(top, 'notes.txt');
    const hold = (await place(x.id)).json().data;

    const before = await snapshot(t);
    for (const id of [x.id, mid.id, top.id]) {
      const res = await del(t, w.owner, [id]);
      expectError(res, 409, 'drive.legal_hold');
      expect(res.json().message).toContain('mail.eml');
    }
    // all or nothing: a batch with one held node deletes nothing
    expectError(await del(t, w.owner, [sibling.id, x.id]), 409, 'drive.legal_hold');
    expect(await snapshot(t)).toEqual(before);
    // what the hold does not reach is deleted as usual
    expect(await ok(await del(t, w.owner, [sibling.id]))).toEqual({ deleted: 1 });

    // a hold placed on a folder reaches what was deleted from it before
    await ok(await release(hold.id));
    await ok(await del(t, w.owner, [mid.id]));
    const onTop = (await place(top.id)).json().data;
    expectError(await purge(t, w.owner, [mid.id]), 409, 'drive.legal_hold');
    const empty = await call(t.app, 'DELETE', `/api/drive/nodes/recycle?spaceId=${w.space.id}`, {
      token: w.owner.token,
    });
    expect((await ok(empty)) as object).toMatchObject({ skippedHeld: 2 });
    expect(await node(t, mid.id)).toMatchObject({ trashRootId: mid.id });
    expect(await node(t, sibling.id)).toMatchObject({ trashRootId: sibling.id });
    const items = (
      (await ok(await bin(t, w.owner, w.space.id, '&pageSize=200'))) as { list: { id: number; held: boolean }[] }
    ).list;
    expect(items.filter((i) => [mid.id, sibling.id].includes(i.id)).every((i) => i.held)).toBe(true);

    // released: the purge goes through; the record of a released hold outlives the purged node (audit)
    await ok(await release(onTop.id));
    expect(await ok(await purge(t, w.owner, [mid.id]))).toEqual({ purged: 1 });
    expect(await node(t, x.id)).toBeUndefined();
    expect(await rowById(t, driveLegalHolds, hold.id)).toMatchObject({ active: false, nodeId: x.id });
    expect(await rowById(t, driveLegalHolds, onTop.id)).toMatchObject({ active: false });
  });

  it('a hold can be placed on a node in the recycle bin: it can no longer be purged', async () => {
    const x = await fl(null, 'binned.txt');
    await ok(await del(t, w.owner, [x.id]));
    const res = await place(x.id);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ nodeDeleted: true });
    expectError(await purge(t, w.owner, [x.id]), 409, 'drive.legal_hold');
    expect(await node(t, x.id)).toMatchObject({ trashRootId: x.id });
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const x = await fl(null, 'input.txt');
    const held = (await place(x.id)).json().data;
    const holds = await rowCount(t, driveLegalHolds);
    const before = await snapshot(t);
    for (const [body, field] of [
      [{ reason: 'r' }, 'nodeId'],
      [{ nodeId: 'x', reason: 'r' }, 'nodeId'],
      [{ nodeId: 0, reason: 'r' }, 'nodeId'],
      [{ nodeId: x.id }, 'reason'],
      [{ nodeId: x.id, reason: '' }, 'reason'],
      [{ nodeId: x.id, reason: '   ' }, 'reason'],
      [{ nodeId: x.id, reason: 'r'.repeat(501) }, 'reason'],
    ] as [object, string][]) {
      const res = await call(t.app, 'POST', '/api/drive/admin/legal-holds', { token: w.admin.token, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    for (const [url, body, field] of [
      [`/api/drive/admin/legal-holds/${held.id}/release`, {}, 'note'],
      [`/api/drive/admin/legal-holds/${held.id}/release`, { note: '\t ' }, 'note'],
      [`/api/drive/admin/legal-holds/${held.id}/release`, { note: 'n'.repeat(501) }, 'note'],
      ['/api/drive/admin/legal-holds/abc/release', { note: 'n' }, 'id'],
    ] as [string, object, string][]) {
      const res = await call(t.app, 'POST', url, { token: w.admin.token, body });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    for (const [query, field] of [
      ['?active=maybe', 'active'],
      ['?spaceId=-3', 'spaceId'],
      ['?pageSize=201', 'pageSize'],
    ]) {
      expectError(await list(query), 400, 'request.validation_failed', field);
    }
    expect(await rowCount(t, driveLegalHolds)).toBe(holds);
    expect(await rowById(t, driveLegalHolds, held.id)).toMatchObject({ active: true });
    expect(await snapshot(t)).toEqual(before);
    // a node that does not exist
    expectError(await place(2_000_000_000), 404, 'drive.node_not_found');
    expectError(await release(2_000_000_000), 404, 'drive.legal_hold_not_found');
  });

  it('needs drive:admin:space:edit (403), even for a space manager', async () => {
    const x = await fl(null, 'perm.txt');
    const held = (await place(x.id)).json().data;
    const holds = await rowCount(t, driveLegalHolds);
    for (const user of [w.owner, w.noPerm]) {
      expectError(await place(x.id, 'r', user.token), 403, 'auth.permission_denied');
      expectError(await release(held.id, 'n', user.token), 403, 'auth.permission_denied');
      expectError(await list('', user.token), 403, 'auth.permission_denied');
    }
    expect(await rowCount(t, driveLegalHolds)).toBe(holds);
    expect(await rowById(t, driveLegalHolds, held.id)).toMatchObject({ active: true });
  });

  it("another tenant's nodes and holds are not found (404), and are not listed", async () => {
    const x = await fl(null, 'tenant.txt');
    const held = (await place(x.id)).json().data;
    const holds = await rowCount(t, driveLegalHolds);
    expectError(await place(x.id, 'theirs', other.adminToken), 404, 'drive.node_not_found');
    expectError(await release(held.id, 'theirs', other.adminToken), 404, 'drive.legal_hold_not_found');
    expect(await ok(await list('', other.adminToken))).toMatchObject({ total: 0, list: [] });
    expect(await ok(await list(`?spaceId=${w.space.id}`, other.adminToken))).toMatchObject({ total: 0 });
    expect(await rowCount(t, driveLegalHolds)).toBe(holds);
    expect(await rowById(t, driveLegalHolds, held.id)).toMatchObject({ active: true, releaseNote: null });
  });
});
