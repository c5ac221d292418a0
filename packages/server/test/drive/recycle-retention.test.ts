import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveActivities, driveNodes } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createTenant, type TenantFixture, USER_PASSWORD } from '../helpers/fixtures.ts';
import { driveUser, file, folder, space } from './drive-fixtures.ts';
import { del, node, ok, unique, usedBytes, type World, world } from './recycle-fixtures.ts';

/**
 * The retention system task (spec §3.5, §8): recycle-bin entries older than recycleRetentionDays
 * are purged, held ones skipped, 0 keeps them forever; on a clock the test moves.
 */
let t: TestApp;
let w: World;
let keeper: TenantFixture;
let now = new Date('2026-03-01T09:00:00.000Z');
const DAY = 86400_000;
const advance = async (ms: number) => {
  now = new Date(now.getTime() + ms);
  // tokens follow the clock
  w.owner.token = await login(t.app, w.owner.username, USER_PASSWORD, 'demo');
  w.admin.token = await login(t.app, w.admin.username, USER_PASSWORD, 'demo');
};
beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  w = await world(t);
  keeper = await createTenant(t);
  const res = await call(t.app, 'PUT', '/api/settings/drive', {
    token: keeper.adminToken,
    body: { recycleRetentionDays: 0 },
  });
  expect(res.statusCode, res.body).toBe(200);
});
afterAll(async () => t?.close());

const runTask = async () => {
  const task = t.app.ctx.jobs.systemTask('drive.recycleRetention');
  expect(task?.schedule).toBe('23 3 * * *');
  return (await task?.handler({}, { trigger: 'manual', cronJobId: 0, runId: 0, log: t.app.ctx.log })) as {
    purged: number;
    skippedHeld: number;
  };
};

describe('recycle-bin retention', () => {
  it('purges entries past recycleRetentionDays, skips held ones, and keeps everything where it is 0', async () => {
    const sp = await space(t, w.tenantId, { ownerUserId: w.owner.userId });
    const mk = (name: string, parent: Parameters<typeof file>[3] = null) =>
      file(t, w.tenantId, sp.id, parent, name, unique(name, 100));
    const oldFolder = await folder(t, w.tenantId, sp.id, null, 'Old');
    const inOld = await mk('in-old.txt', oldFolder);
    const oldFile = await mk('old.txt');
    const heldFile = await mk('held.txt');
    const recent = await mk('recent.txt');
    await ok(await del(t, w.owner, [oldFolder.id, oldFile.id, heldFile.id]));
    const hold = await call(t.app, 'POST', '/api/drive/admin/legal-holds', {
      token: w.admin.token,
      body: { nodeId: heldFile.id, reason: 'audit' },
    });
    expect(hold.statusCode, hold.body).toBe(201);

    // the keeper tenant keeps its bin forever
    const kUser = await driveUser(t, { tenantId: keeper.tenantId, tenantCode: keeper.code });
    const kSpace = await space(t, keeper.tenantId, { ownerUserId: kUser.userId });
    const kFile = await file(t, keeper.tenantId, kSpace.id, null, 'forever.txt', unique('forever'));
    await ok(await del(t, kUser, [kFile.id]));

    await advance(20 * DAY);
    await ok(await del(t, w.owner, [recent.id]));
    expect(await usedBytes(t, sp.id)).toBe(400);

    // day 29: nothing is old enough
    await advance(9 * DAY);
    expect(await runTask()).toEqual({ purged: 0, skippedHeld: 0 });

    // day 31: the first three are past 30 days; the held one stays
    await advance(2 * DAY);
    expect(await runTask()).toEqual({ purged: 2, skippedHeld: 1 });
    for (const n of [oldFolder, inOld, oldFile]) expect(await node(t, n.id)).toBeUndefined();
    expect(await node(t, heldFile.id)).toMatchObject({ trashRootId: heldFile.id });
    expect(await node(t, recent.id)).toMatchObject({ trashRootId: recent.id });
    expect(await node(t, kFile.id)).toMatchObject({ trashRootId: kFile.id });
    expect(await usedBytes(t, sp.id)).toBe(200);
    const [activity] = await t.database.db
      .select()
      .from(driveActivities)
      .where(sql`${driveActivities.nodeId} = ${oldFolder.id} and ${driveActivities.action} = 'node.purge'`);
    expect(activity).toMatchObject({ actorUserId: null, spaceId: sp.id });
    expect(activity?.detail).toMatchObject({ reason: 'retention', nodes: 2, bytes: 100 });

    // years later: the keeper's bin is intact; the held entry waits for its release
    await advance(3650 * DAY);
    expect(await runTask()).toEqual({ purged: 1, skippedHeld: 1 });
    expect(await node(t, kFile.id)).toMatchObject({ trashRootId: kFile.id });
    expect(await node(t, recent.id)).toBeUndefined();
    const released = await call(t.app, 'POST', `/api/drive/admin/legal-holds/${hold.json().data.id}/release`, {
      token: w.admin.token,
      body: { note: 'done' },
    });
    expect(released.statusCode, released.body).toBe(200);
    expect(await runTask()).toEqual({ purged: 1, skippedHeld: 0 });
    expect(await node(t, heldFile.id)).toBeUndefined();
    expect(await usedBytes(t, sp.id)).toBe(0);
  });

  it('works in batches, and two instances running at once purge each entry once', async () => {
    const sp = await space(t, w.tenantId, { ownerUserId: w.owner.userId });
    const folders = [];
    for (let i = 0; i < 230; i++) folders.push(await folder(t, w.tenantId, sp.id, null, `f${i}`));
    for (let i = 0; i < folders.length; i += 100) {
      await ok(
        await del(
          t,
          w.owner,
          folders.slice(i, i + 100).map((f) => f.id),
        ),
      );
    }
    await advance(31 * DAY);
    const [a, b] = await Promise.all([runTask(), runTask()]);
    expect(a.purged + b.purged).toBe(230);
    const [left] = await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(driveNodes)
      .where(sql`${driveNodes.spaceId} = ${sp.id}`);
    expect(left?.n).toBe(0);
    const purges = await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(driveActivities)
      .where(sql`${driveActivities.spaceId} = ${sp.id} and ${driveActivities.action} = 'node.purge'`);
    expect(purges[0]?.n).toBe(230);
  });
});
