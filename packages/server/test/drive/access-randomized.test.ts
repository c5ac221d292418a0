import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolesOfNodes, visibleNodes } from '../../src/modules/drive/access/access-repository.ts';
import { childrenPage } from '../../src/modules/drive/nodes/listing-repository.ts';
import { insertNode, type NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { createGrantsService } from '../../src/modules/drive/permissions/grants-service.ts';
import { roleOfRank, roleRank } from '../../src/modules/drive/roles.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import {
  type DriveRole,
  driveNodePermissions,
  driveNodes,
  driveSpaceMembers,
  type SpaceType,
  type SubjectType,
} from '../../src/modules/drive/tables.ts';
import { departments, users } from '../../src/modules/identity/tables.ts';
import type { Scope } from '../../src/platform/auth/principal.ts';
import { tenants } from '../../src/platform/tenancy/tables.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { department, space } from './drive-fixtures.ts';
import { callerOf, plainRole, userGroup } from './permissions-helpers.ts';

/**
 * The effective role three ways, for random trees: (a) the access service's resolver, node by
 * node; (b) its SQL form (effectiveRankSql / visibleNodes) and the folder listing's query; (c) a brute-force
 * model of spec §5.5 written here from the raw rows (parent links, inherit flags, grants,
 * members, departments) — no acl_chain_ids, no acl_open. All three must agree for every
 * (user, node); inheritance is also changed through the grants service, so the tree columns it
 * rewrites are checked against the parent links. A failure names the seed and the pair.
 */
const SEEDS = Array.from({ length: 30 }, (_, i) => i + 1);
const ADMIN = 'drive:admin:space:edit';
const ROLES: DriveRole[] = ['viewer', 'downloader', 'editor', 'manager'];

/** mulberry32: a small deterministic PRNG */
function prng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    chance: (p: number) => next() < p,
    int,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)] as T,
    subset: <T>(xs: readonly T[], p: number) => xs.filter(() => next() < p),
  };
}

type Dept = { id: number; parentId: number | null; headUserId: number | null };
type User = { id: number; departmentId: number | null; roleIds: number[]; groupIds: number[]; admin: boolean };
type Subject = { type: SubjectType; id: number };

let t: TestApp;
/** what the seeds exercised (the last test checks the generator reaches every case) */
const seen = new Set<string>();
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function world(seed: number) {
  const r = prng(seed);
  const db = t.database.db;
  const [tenant] = await db
    .insert(tenants)
    .values({ code: `rnd${seed}x${Date.now() % 100000}`, name: `Random ${seed}` })
    .returning();
  const tenantId = tenant?.id as number;
  const scope = { tenantId };

  const depts: Dept[] = [];
  for (let i = 0; i < 2 + r.int(4); i++) {
    const parent = depts.length && r.chance(0.6) ? r.pick(depts) : null;
    const row = await department(t, tenantId, {
      name: `d${i}`,
      ...(parent ? { parent: { id: parent.id, ancestorIds: (await deptRow(parent.id)).ancestorIds } } : {}),
    });
    depts.push({ id: row.id, parentId: parent?.id ?? null, headUserId: null });
  }
  const people: User[] = [];
  for (let i = 0; i < 4 + r.int(4); i++) {
    const [u] = await db
      .insert(users)
      .values({
        tenantId,
        username: `u${i}`,
        nickname: `u${i}`,
        passwordHash: 'x',
        departmentId: r.chance(0.8) ? r.pick(depts).id : null,
      })
      .returning();
    people.push({
      id: u?.id as number,
      departmentId: u?.departmentId ?? null,
      roleIds: [],
      groupIds: [],
      admin: r.chance(0.08),
    });
  }
  for (const d of depts) {
    if (r.chance(0.4)) {
      d.headUserId = r.pick(people).id;
      await db.update(departments).set({ headUserId: d.headUserId }).where(eq(departments.id, d.id));
    }
  }
  const roleIds: number[] = [];
  const groupIds: number[] = [];
  for (let i = 0; i < 2; i++) {
    const holders = r.subset(people, 0.4);
    const role = await plainRole(
      t,
      tenantId,
      holders.map((p) => p.id),
    );
    roleIds.push(role.id);
    for (const p of holders) p.roleIds.push(role.id);
    const members = r.subset(people, 0.4);
    const group = await userGroup(
      t,
      tenantId,
      members.map((p) => p.id),
    );
    groupIds.push(group.id);
    for (const p of members) p.groupIds.push(group.id);
  }
  const randomSubject = (): Subject => {
    const type = r.pick(['user', 'user', 'department', 'role', 'group'] as const);
    const id =
      type === 'user'
        ? r.pick(people).id
        : type === 'department'
          ? r.pick(depts).id
          : type === 'role'
            ? r.pick(roleIds)
            : r.pick(groupIds);
    return { type, id };
  };

  const type = r.pick(['personal', 'department', 'team', 'team'] as SpaceType[]);
  const sp: SpaceRow = await space(t, tenantId, {
    type,
    ownerUserId: type === 'department' || r.chance(0.15) ? undefined : r.pick(people).id,
    departmentId: type === 'department' ? r.pick(depts).id : undefined,
    defaultMemberRole: r.pick([null, null, 'viewer', 'downloader', 'editor', 'manager'] as (DriveRole | null)[]),
  });
  const memberKeys = new Set<string>();
  for (let i = 0; i < r.int(4); i++) {
    const s = randomSubject();
    if (memberKeys.has(`${s.type}:${s.id}`)) continue;
    memberKeys.add(`${s.type}:${s.id}`);
    await db.insert(driveSpaceMembers).values({
      tenantId,
      spaceId: sp.id,
      subjectType: s.type,
      subjectId: s.id,
      role: r.pick(ROLES),
    });
  }

  const nodes: NodeRow[] = [];
  const count = 20 + r.int(12);
  for (let i = 0; i < count; i++) {
    const folders = nodes.filter((n) => n.type === 'folder' && n.ancestorIds.length < 4);
    const parent = folders.length && r.chance(0.8) ? r.pick(folders) : null;
    nodes.push(
      await insertNode(db, scope, parent, {
        spaceId: sp.id,
        type: r.chance(0.6) ? 'folder' : 'file',
        name: `n${i}`,
        inheritPermissions: !r.chance(0.12),
      }),
    );
  }
  const now = Date.now();
  const grantKeys = new Set<string>();
  for (let i = 0; i < 10 + r.int(15); i++) {
    const n = r.pick(nodes);
    const s = randomSubject();
    const key = `${n.id}:${s.type}:${s.id}`;
    if (grantKeys.has(key)) continue;
    grantKeys.add(key);
    const expiry = r.pick([null, null, null, -1, 1]);
    await db.insert(driveNodePermissions).values({
      tenantId,
      spaceId: sp.id,
      nodeId: n.id,
      subjectType: s.type,
      subjectId: s.id,
      role: r.pick(ROLES),
      expiresAt: expiry === null ? null : new Date(now + expiry * 86_400_000),
    });
  }

  // inheritance changed through the service: its subtree rewrite is what the model checks
  const admin = people[0] as User;
  const adminScope: Scope = {
    tenantId,
    principal: {
      kind: 'user',
      userId: admin.id,
      tenantId,
      username: 'admin',
      isSuper: false,
      permissions: new Set([ADMIN, 'drive:node:edit']),
      sessionId: 0,
    },
    requestId: 'random',
    ip: '127.0.0.1',
  };
  const grants = createGrantsService(t.app.drive.core);
  for (let i = 0; i < r.int(5); i++) {
    await grants.setInherit(adminScope, r.pick(nodes).id, { inherit: r.chance(0.4), copyInherited: r.chance(0.5) });
  }
  return { tenantId, sp, depts, people };
}

async function deptRow(id: number) {
  const [row] = await t.database.db.select().from(departments).where(eq(departments.id, id));
  if (!row) throw new Error(`department ${id}`);
  return row;
}

/** §5.5 from the raw rows. */
function model(
  w: Awaited<ReturnType<typeof world>>,
  rows: {
    nodes: Map<number, { parentId: number | null; inherit: boolean }>;
    grants: (typeof driveNodePermissions.$inferSelect)[];
    members: (typeof driveSpaceMembers.$inferSelect)[];
  },
  now: Date,
) {
  const deptById = new Map(w.depts.map((d) => [d.id, d]));
  const chainOf = (deptId: number | null) => {
    const out: number[] = [];
    for (
      let d = deptId === null ? undefined : deptById.get(deptId);
      d;
      d = d.parentId === null ? undefined : deptById.get(d.parentId)
    )
      out.push(d.id);
    return out;
  };
  const matches = (u: User, s: Subject) =>
    (s.type === 'user' && s.id === u.id) ||
    (s.type === 'department' && chainOf(u.departmentId).includes(s.id)) ||
    (s.type === 'role' && u.roleIds.includes(s.id)) ||
    (s.type === 'group' && u.groupIds.includes(s.id));
  const max = (a: number, b: number) => (a > b ? a : b);

  function spaceRank(u: User): number {
    const sp = w.sp;
    let rank = 0;
    if (u.admin) return 4;
    if (sp.type !== 'department' && sp.ownerUserId === u.id) return 4;
    if (sp.type === 'personal') return 0;
    if (sp.type === 'department' && sp.departmentId !== null) {
      if (deptById.get(sp.departmentId)?.headUserId === u.id) return 4;
      if (chainOf(u.departmentId).includes(sp.departmentId)) rank = max(rank, roleRank(sp.defaultMemberRole));
    }
    if (sp.type === 'team') rank = max(rank, roleRank(sp.defaultMemberRole));
    for (const m of rows.members)
      if (matches(u, { type: m.subjectType, id: m.subjectId })) rank = max(rank, roleRank(m.role));
    return rank;
  }

  return (u: User, nodeId: number): DriveRole | null => {
    const s = spaceRank(u);
    if (s === 4) return 'manager';
    const reached: number[] = [];
    let open = true;
    for (let id: number | null = nodeId; id !== null; ) {
      const n = rows.nodes.get(id);
      if (!n) throw new Error(`node ${id} missing`);
      reached.push(id);
      if (!n.inherit) {
        open = false;
        break;
      }
      id = n.parentId;
    }
    let rank = open ? s : 0;
    for (const g of rows.grants) {
      if (!reached.includes(g.nodeId)) continue;
      if (g.expiresAt !== null && g.expiresAt <= now) continue;
      if (matches(u, { type: g.subjectType, id: g.subjectId })) rank = max(rank, roleRank(g.role));
    }
    return roleOfRank(rank);
  };
}

describe('effective roles: resolver, SQL and a brute-force model agree on random trees', () => {
  it.each(SEEDS)(
    'seed %i',
    async (seed) => {
      const w = await world(seed);
      const db = t.database.db;
      const access = t.app.drive.core.access;
      const nodeRows = await db.select().from(driveNodes).where(eq(driveNodes.spaceId, w.sp.id));
      const rows = {
        nodes: new Map(nodeRows.map((n) => [n.id, { parentId: n.parentId, inherit: n.inheritPermissions }])),
        grants: await db.select().from(driveNodePermissions).where(eq(driveNodePermissions.spaceId, w.sp.id)),
        members: await db.select().from(driveSpaceMembers).where(eq(driveSpaceMembers.spaceId, w.sp.id)),
      };
      const now = new Date();
      const expected = model(w, rows, now);
      const disagreements: string[] = [];
      let granted = 0;
      for (const u of w.people) {
        const c = await callerOf(t, w.tenantId, u.id, { permissions: u.admin ? [ADMIN] : [] });
        const l = await access.listingAccess(c, w.sp);
        const sqlRanks = new Map(
          (await rolesOfNodes(db, l.set, l.spaceRank, l.now, w.sp.id)).map((x) => [x.id, x.rank]),
        );
        const visible = new Set(
          (await rolesOfNodes(db, l.set, l.spaceRank, l.now, w.sp.id, visibleNodes(l.set, l.spaceRank, l.now))).map(
            (x) => x.id,
          ),
        );
        for (const n of nodeRows) {
          const resolver = await access.nodeRole(c, n, w.sp);
          const sql = roleOfRank(sqlRanks.get(n.id) ?? -1);
          const brute = expected(u, n.id);
          const { role: explained } = await access.explain(c.scope, n, w.sp, { type: 'user', id: u.id }, { caller: c });
          if (brute) granted++;
          if (resolver !== brute || sql !== brute || explained !== brute || visible.has(n.id) !== (brute !== null)) {
            disagreements.push(
              `seed ${seed} user ${u.id} node ${n.id} (${n.name}): model ${brute}, resolver ${resolver}, sql ${sql}, explain ${explained}, visible ${visible.has(n.id)}`,
            );
          }
        }
      }
      // what the folder listing returns (its SQL, with the shortcut for children that inherit from a
      // folder the caller may browse): the root and every folder the model lets the user browse
      for (const u of w.people) {
        const c = await callerOf(t, w.tenantId, u.id, { permissions: u.admin ? [ADMIN] : [] });
        const l = await access.listingAccess(c, w.sp);
        const a = { set: l.set, now: l.now, spaceRanks: new Map([[w.sp.id, l.spaceRank]]) };
        const parents = [
          null,
          ...nodeRows.filter((n) => n.type === 'folder' && expected(u, n.id) !== null).map((n) => n.id),
        ];
        for (const parentId of parents) {
          const page = await childrenPage(db, c.scope, u.id, a, {
            spaceId: w.sp.id,
            parentId,
            sort: 'name',
            order: 'asc',
            page: 1,
            pageSize: 200,
          });
          const listed = page.list.map((r) => `${r.id}:${roleOfRank(r.rank)}`).sort();
          const want = nodeRows
            .filter((n) => n.parentId === parentId && expected(u, n.id) !== null)
            .map((n) => `${n.id}:${expected(u, n.id)}`)
            .sort();
          if (listed.join() !== want.join()) {
            disagreements.push(`seed ${seed} user ${u.id} listing of ${parentId ?? 'root'}: ${listed} ≠ model ${want}`);
          }
        }
      }
      expect(disagreements, `seed ${seed}`).toEqual([]);
      seen.add(`type:${w.sp.type}`);
      if (w.sp.defaultMemberRole) seen.add('defaultRole');
      if (nodeRows.some((n) => !n.inheritPermissions)) seen.add('break');
      if (nodeRows.some((n) => n.inheritPermissions && !n.aclOpen)) seen.add('belowBreak');
      if (rows.grants.some((g) => g.expiresAt !== null && g.expiresAt <= now)) seen.add('expired');
      if (rows.members.length) seen.add('members');
      if (w.people.some((p) => p.admin)) seen.add('admin');
      if (granted > 0 && granted < w.people.length * nodeRows.length) seen.add('mixed');
    },
    60_000,
  );

  it('the seeds covered every space type, default roles, members, breaks, expired grants and administrators', () => {
    expect([...seen].sort()).toEqual(
      [
        'admin',
        'belowBreak',
        'break',
        'defaultRole',
        'expired',
        'members',
        'mixed',
        'type:department',
        'type:personal',
        'type:team',
      ].sort(),
    );
  });
});
