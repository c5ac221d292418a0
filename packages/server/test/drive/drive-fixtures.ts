import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { insertNode, lockNode, type NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { lockSpace, type SpaceRow, spaceRows } from '../../src/modules/drive/spaces/space-repository.ts';
import type { DriveRole, SpaceType } from '../../src/modules/drive/tables.ts';
import { departments, users } from '../../src/modules/identity/tables.ts';
import { type Scope, systemScope } from '../../src/platform/auth/principal.ts';
import type { TestApp } from '../helpers/app.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';

/**
 * Drive test fixtures: departments, users with the drive's menu permissions, spaces, folders and
 * files written through the drive's own repositories and version store (setup, not the
 * behaviour under test; files are real managed files in real storage).
 */
export const DRIVE_USER = ['drive:space:view', 'drive:space:edit', 'drive:node:view', 'drive:node:edit'];

export type DriveUser = { userId: number; token: string; username: string };

export async function driveUser(
  t: TestApp,
  opts: { tenantId?: number; tenantCode?: string; departmentId?: number; permissions?: string[] } = {},
): Promise<DriveUser> {
  const u = await createUserWithPermissions(t, opts.permissions ?? DRIVE_USER, opts);
  if (opts.departmentId !== undefined) {
    await t.database.db.update(users).set({ departmentId: opts.departmentId }).where(eq(users.id, u.userId));
  }
  return u;
}

export async function department(
  t: TestApp,
  tenantId: number,
  opts: { name?: string; parent?: { id: number; ancestorIds: number[] }; headUserId?: number } = {},
) {
  const [row] = await t.database.db
    .insert(departments)
    .values({
      tenantId,
      name: opts.name ?? `dept-${Math.random().toString(36).slice(2, 8)}`,
      parentId: opts.parent?.id ?? null,
      ancestorIds: opts.parent ? [...opts.parent.ancestorIds, opts.parent.id] : [],
      headUserId: opts.headUserId ?? null,
    })
    .returning();
  if (!row) throw new Error('department insert failed');
  return row;
}

export async function space(
  t: TestApp,
  tenantId: number,
  opts: {
    type?: SpaceType;
    ownerUserId?: number;
    departmentId?: number;
    defaultMemberRole?: DriveRole | null;
    name?: string;
    quotaBytes?: number | null;
    maxVersions?: number | null;
  } = {},
): Promise<SpaceRow> {
  return spaceRows.insert(
    t.database.db,
    { tenantId },
    {
      type: opts.type ?? 'team',
      name: opts.name ?? `space-${Math.random().toString(36).slice(2, 8)}`,
      ownerUserId: opts.ownerUserId ?? null,
      departmentId: opts.departmentId ?? null,
      defaultMemberRole: opts.defaultMemberRole ?? null,
      quotaBytes: opts.quotaBytes ?? null,
      maxVersions: opts.maxVersions ?? null,
    },
  );
}

export async function folder(t: TestApp, tenantId: number, spaceId: number, parent: NodeRow | null, name: string) {
  return insertNode(t.database.db, { tenantId }, parent, { spaceId, type: 'folder', name });
}

/** A file with one version holding `content`, stored as a restricted managed file and charged to the space. */
export async function file(
  t: TestApp,
  tenantId: number,
  spaceId: number,
  parent: NodeRow | null,
  name: string,
  content: string | Buffer = `content of ${name}`,
): Promise<NodeRow> {
  const scope: Scope = systemScope(tenantId);
  const stored = await t.app.files.store(scope, {
    body: Readable.from([Buffer.from(content)]),
    name,
    declaredMime: 'text/plain',
    visibility: 'restricted',
    maxBytes: 1024 ** 3,
    policy: { mimeAllowList: null, blockedExtensions: [] },
  });
  return t.database.db.transaction(async (tx) => {
    const node = await insertNode(tx, scope, parent, { spaceId, type: 'file', name });
    const sp = (await lockSpace(tx, scope, spaceId)) as SpaceRow;
    const locked = (await lockNode(tx, scope, node.id)) as NodeRow;
    const { node: current } = await t.app.drive.core.versions.append(tx, scope, sp, locked, stored, {
      fromUpload: true,
    });
    return current;
  });
}

export { systemScope };
