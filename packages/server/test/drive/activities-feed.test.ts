import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveActivities } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { grant } from './permissions-helpers.ts';

/**
 * GET /api/drive/nodes/{id}/activities (a node's history, or a folder's with what happened
 * inside it that the reader can see) and the monthly partitions of drive_activities (spec §8).
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
let owner: DriveUser;
let reader: DriveUser;
let outsider: DriveUser;
let nobody: DriveUser;
let sp: SpaceRow;
let top: NodeRow;
let open: NodeRow;
let hidden: NodeRow;
let doc: NodeRow;

const feed = (token: string, id: number, query = '') =>
  call(t.app, 'GET', `/api/drive/nodes/${id}/activities${query}`, { token });
const user = (permissions?: string[]) =>
  driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, ...(permissions ? { permissions } : {}) });

/** An activity row as a write would record it, at a chosen time. */
async function activity(node: NodeRow, action: string, at: Date, actorUserId: number | null = owner.userId) {
  const [row] = await t.database.db
    .insert(driveActivities)
    .values({
      tenantId: node.tenantId,
      spaceId: node.spaceId,
      nodeId: node.id,
      actorUserId,
      action,
      detail: { note: action },
      ip: '10.1.2.3',
      createdAt: at,
    })
    .returning();
  return row as typeof driveActivities.$inferSelect;
}

const ids = (res: { json(): { data: { list: { id: number }[] } } }) => res.json().data.list.map((x) => x.id);
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  owner = await user();
  reader = await user();
  outsider = await user();
  nobody = await user([]);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: owner.userId, name: 'Team' });
  top = await folder(t, a.tenantId, sp.id, null, 'Top');
  open = await folder(t, a.tenantId, sp.id, top, 'Open');
  hidden = await folder(t, a.tenantId, sp.id, top, 'Hidden');
  doc = await file(t, a.tenantId, sp.id, open, 'doc.txt');
  await grant(t, a.tenantId, top, { type: 'user', id: reader.userId }, 'viewer');
  const res = await call(t.app, 'PUT', `/api/drive/nodes/${hidden.id}/inherit`, {
    token: owner.token,
    body: { inherit: false, copyInherited: false },
  });
  expect(res.statusCode, res.body).toBe(200);
});
afterAll(async () => t?.close());

describe('GET /api/drive/nodes/{id}/activities', () => {
  it("lists a node's activities newest first, with actor and node names and no IP address", async () => {
    const f = await folder(t, a.tenantId, sp.id, top, 'Named');
    const granted = await call(t.app, 'POST', `/api/drive/nodes/${f.id}/permissions`, {
      token: owner.token,
      body: { subjectType: 'user', subjectId: outsider.userId, role: 'viewer' },
    });
    expect(granted.statusCode).toBe(201);
    const res = await feed(reader.token, f.id);
    expect(res.statusCode, res.body).toBe(200);
    const { list, nextBefore } = res.json().data;
    expect(nextBefore).toBeNull();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      spaceId: sp.id,
      nodeId: f.id,
      nodeName: 'Named',
      actorUserId: owner.userId,
      actorName: owner.username,
      action: 'grant.add',
      detail: { grantId: granted.json().data.id, role: 'viewer' },
    });
    expect(list[0]).not.toHaveProperty('ip');
  });

  it('pages back with before by time, whatever order the ids were taken in', async () => {
    const f = await folder(t, a.tenantId, sp.id, top, 'Paged');
    const x = await activity(f, 'node.create', minutesAgo(30));
    const y = await activity(f, 'node.rename', minutesAgo(10)); // newest
    const z = await activity(f, 'node.move', minutesAgo(20));
    const w = await activity(f, 'node.copy', minutesAgo(40), null); // oldest, no actor
    const all = await feed(reader.token, f.id);
    expect(ids(all)).toEqual([y.id, z.id, x.id, w.id]);
    expect(all.json().data.list[3]).toMatchObject({ actorUserId: null, actorName: null });

    const seen: number[] = [];
    let query = '?limit=1';
    for (let i = 0; i < 10; i++) {
      const page = await feed(reader.token, f.id, query);
      expect(page.statusCode, page.body).toBe(200);
      seen.push(...ids(page));
      const next = page.json().data.nextBefore;
      if (next === null) break;
      query = `?limit=1&before=${next}`;
    }
    expect(seen).toEqual([y.id, z.id, x.id, w.id]);
    const two = await feed(reader.token, f.id, '?limit=2');
    expect(two.json().data).toMatchObject({ nextBefore: z.id });
    expect(ids(await feed(reader.token, f.id, `?before=${z.id}`))).toEqual([x.id, w.id]);
    // another tenant's or an unknown id as the cursor gives nothing, not someone else's page
    expect(ids(await feed(reader.token, f.id, '?before=9007199254740991'))).toEqual([]);
  });

  it('adds, for a folder with subtree=true, what happened inside it that the reader can see', async () => {
    const t0 = await activity(top, 'node.create', minutesAgo(9));
    const o = await activity(open, 'node.create', minutesAgo(8));
    const h = await activity(hidden, 'node.create', minutesAgo(7));
    const d = await activity(doc, 'version.upload', minutesAgo(6));
    const mine = ids(await feed(reader.token, top.id, '?subtree=true&limit=100'));
    expect(mine.filter((id) => [t0.id, o.id, h.id, d.id].includes(id))).toEqual([d.id, o.id, t0.id]);
    const theirs = ids(await feed(owner.token, top.id, '?subtree=true&limit=100'));
    expect(theirs.filter((id) => [t0.id, o.id, h.id, d.id].includes(id))).toEqual([d.id, h.id, o.id, t0.id]);
    const named = (await feed(owner.token, top.id, '?subtree=true&limit=100')).json().data.list;
    expect(named.find((x: { id: number }) => x.id === d.id)).toMatchObject({ nodeId: doc.id, nodeName: 'doc.txt' });
    // without subtree: the folder's own; on a file, subtree changes nothing
    expect(ids(await feed(owner.token, top.id, '?limit=100'))).not.toContain(o.id);
    expect(ids(await feed(owner.token, doc.id, '?subtree=true'))).toEqual(
      ids(await feed(owner.token, doc.id, '?subtree=false')),
    );
  });

  it('refuses bad input naming the field', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?before=0', 'before'],
      ['?before=abc', 'before'],
      ['?before=99999999999999999999', 'before'],
      ['?subtree=maybe', 'subtree'],
    ]) {
      expectError(await feed(reader.token, top.id, query), 400, 'request.validation_failed', field);
    }
    expectError(await feed(reader.token, Number.NaN), 400, 'request.validation_failed', 'id');
  });

  it('needs drive:node:view and a role on the node; another tenant gets 404', async () => {
    expectError(await feed(nobody.token, top.id), 403, 'auth.permission_denied');
    expectError(await feed(outsider.token, top.id), 404, 'drive.node_not_found');
    expectError(await feed(reader.token, hidden.id), 404, 'drive.node_not_found');
    expectError(await feed(other.adminToken, top.id), 404, 'drive.node_not_found');
    const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
    const theirs = await folder(t, other.tenantId, osp.id, null, 'Theirs');
    await activity(theirs, 'node.create', minutesAgo(1), other.adminUserId);
    expectError(await feed(owner.token, theirs.id), 404, 'drive.node_not_found');
  });
});

describe('activity partitions (UTC months)', () => {
  const partitions = async () =>
    (
      (await t.database.db.execute(sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'drive_activities'::regclass order by 1`)) as unknown as { rows: { name: string }[] }
    ).rows.map((r) => r.name);
  const partitionOf = async (id: number) =>
    (
      (await t.database.db.execute(
        sql`select tableoid::regclass::text as name from drive_activities where id = ${id}`,
      )) as unknown as { rows: { name: string }[] }
    ).rows[0]?.name;

  it('creates this month and the next two, once; a row lands in its month', async () => {
    const log = t.app.drive.core.activities;
    const before = await partitions();
    expect(before).not.toContain('drive_activities_204012');
    const made = await log.ensurePartitions(new Date('2040-12-31T23:30:00Z'));
    expect(made).toEqual({
      partitions: ['drive_activities_204012', 'drive_activities_204101', 'drive_activities_204102'],
    });
    const after = await partitions();
    expect(after.filter((p) => !before.includes(p))).toEqual(made.partitions);
    expect(await log.ensurePartitions(new Date('2040-12-01T00:00:00Z'))).toEqual(made);
    expect(await partitions()).toEqual(after);

    const jan = await activity(top, 'node.create', new Date('2041-01-31T23:59:59.999Z'));
    const feb = await activity(top, 'node.create', new Date('2041-02-01T00:00:00Z'));
    expect(await partitionOf(jan.id)).toBe('drive_activities_204101');
    expect(await partitionOf(feb.id)).toBe('drive_activities_204102');
    // the current months exist from the start (the migration and the task)
    const now = new Date();
    const month = `drive_activities_${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    expect((await log.ensurePartitions()).partitions[0]).toBe(month);
    expect(await partitions()).toContain(month);
  });

  it('moves rows that fell into the default partition into their month when it is created late', async () => {
    const stray = await activity(top, 'node.rename', new Date('2045-03-10T12:00:00Z'));
    expect(await partitionOf(stray.id)).toBe('drive_activities_default');
    await t.app.drive.core.activities.ensurePartitions(new Date('2045-03-01T00:00:00Z'));
    expect(await partitionOf(stray.id)).toBe('drive_activities_204503');
    const [row] = await t.database.db.select().from(driveActivities).where(eq(driveActivities.id, stray.id));
    expect(row).toMatchObject({ action: 'node.rename', nodeId: top.id, detail: { note: 'node.rename' } });
    // the new partition has the parent's indexes, primary key included
    const indexes = (
      (await t.database.db.execute(
        sql`select count(*)::int as n from pg_indexes where tablename = 'drive_activities_204503'`,
      )) as unknown as { rows: { n: number }[] }
    ).rows[0]?.n;
    expect(indexes).toBe(3);
  });
});
