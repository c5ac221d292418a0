import { eq } from 'drizzle-orm';
import { driveShareLinks } from '../../src/modules/drive/tables.ts';
import type { TestApp } from '../helpers/app.ts';
import { call } from '../helpers/app.ts';

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
