import { eq } from 'drizzle-orm';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { driveShareLinks } from '../../src/modules/drive/tables.ts';
import type { TestApp } from '../helpers/app.ts';
import { call } from '../helpers/app.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { grant } from './permissions-helpers.ts';

/** Helpers of the share-link management tests. */
export const inDays = (days: number, from = new Date()) => new Date(from.getTime() + days * 86_400_000).toISOString();

export const createLink = (t: TestApp, token: string, body: object) =>
  call(t.app, 'POST', '/api/drive/share-links', { token, body: { expiresAt: inDays(7), ...body } });

export async function linkRow(t: TestApp, id: number) {
  const [row] = await t.database.db.select().from(driveShareLinks).where(eq(driveShareLinks.id, id));
  return row;
}

export async function setDriveSettings(t: TestApp, adminToken: string, body: object) {
  const res = await call(t.app, 'PUT', '/api/settings/drive', { token: adminToken, body });
  if (res.statusCode !== 200) throw new Error(`PUT /api/settings/drive: ${res.statusCode} ${res.body}`);
}

export type LinkCast = {
  a: TenantFixture;
  other: TenantFixture;
  u: Record<'owner' | 'creator' | 'editor' | 'viewer' | 'stranger', DriveUser>;
  doc: NodeRow;
};

/**
 * The cast of the link tests: in tenant A a team space (owner) with folder Offers holding
 * offer.pdf, two editors (one creates the links) and a viewer on the folder; a user of another tenant.
 */
export async function linkCast(t: TestApp): Promise<LinkCast> {
  const a = await createTenant(t);
  const other = await createTenant(t);
  const user = (x: TenantFixture) => driveUser(t, { tenantId: x.tenantId, tenantCode: x.code });
  const u = {
    owner: await user(a),
    creator: await user(a),
    editor: await user(a),
    viewer: await user(a),
    stranger: await user(other),
  };
  const sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId });
  const top = await folder(t, a.tenantId, sp.id, null, 'Offers');
  const doc = await file(t, a.tenantId, sp.id, top, 'offer.pdf');
  await grant(t, a.tenantId, top, { type: 'user', id: u.creator.userId }, 'editor');
  await grant(t, a.tenantId, top, { type: 'user', id: u.editor.userId }, 'editor');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewer.userId }, 'viewer');
  return { a, other, u, doc };
}
