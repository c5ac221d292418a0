import { createHash, randomBytes } from 'node:crypto';
import { and, count, eq, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { LightMyRequestResponse } from 'fastify';
import {
  driveActivities,
  driveFileVersions,
  driveNodes,
  driveSpaceMembers,
  driveSpaces,
  driveUploadBindings,
} from '../../src/modules/drive/tables.ts';
import { fileRefs, fileUploadSessions, managedFiles } from '../../src/modules/files/tables.ts';
import { type FilesTestApp, multipartBody } from '../files/files-helpers.ts';
import type { TestApp } from '../helpers/app.ts';

/**
 * Helpers of the drive's upload, content and version tests: the requests (multipart, chunks) and
 * what "nothing written" means for the drive — no node, version, drive_version reference, binding,
 * upload session or managed file more, and the space's counters as they were.
 */
export { createFilesTestApp as createDriveTestApp, type FilesTestApp as DriveTestApp } from '../files/files-helpers.ts';

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
export const text = (n = 64, tag = '') => Buffer.from(`${tag}${randomBytes(n).toString('hex')}`.slice(0, n));

type Query = Record<string, string | number | boolean | undefined>;
const qs = (q: Query) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

export type UploadFile = { name: string; data: Buffer; contentType?: string };

/** POST a multipart upload with one file part to `url`. */
export function postFile(t: TestApp, token: string, url: string, file: UploadFile): Promise<LightMyRequestResponse> {
  const { payload, headers } = multipartBody([
    { field: 'file', filename: file.name, contentType: file.contentType ?? 'text/plain', data: file.data },
  ]);
  return t.app.inject({ method: 'POST', url, payload, headers: { ...headers, authorization: `Bearer ${token}` } });
}

export const upload = (t: TestApp, token: string, q: Query, file: UploadFile) =>
  postFile(t, token, `/api/drive/nodes/upload?${qs(q)}`, file);

export const uploadVersion = (t: TestApp, token: string, nodeId: number, file: UploadFile) =>
  postFile(t, token, `/api/drive/nodes/${nodeId}/versions`, file);

export const initUpload = (t: TestApp, token: string, body: object) =>
  t.app.inject({
    method: 'POST',
    url: '/api/drive/nodes/upload/init',
    payload: body,
    headers: { authorization: `Bearer ${token}` },
  });

export const putChunk = (t: TestApp, token: string, sessionId: number, index: number, data: Buffer) =>
  t.app.inject({
    method: 'POST',
    url: `/api/drive/nodes/upload/chunk?sessionId=${sessionId}&index=${index}`,
    payload: data,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
  });

export const completeUpload = (t: TestApp, token: string, sessionId: number) =>
  t.app.inject({
    method: 'POST',
    url: '/api/drive/nodes/upload/complete',
    payload: { sessionId },
    headers: { authorization: `Bearer ${token}` },
  });

/** init, every chunk, complete: the answer of complete. */
export async function chunkedUpload(
  t: TestApp,
  token: string,
  target: object,
  file: UploadFile,
  opts: { chunkSize?: number; contentHash?: string } = {},
) {
  const chunkSize = opts.chunkSize ?? 1024;
  const init = await initUpload(t, token, {
    ...target,
    name: file.name,
    size: file.data.length,
    chunkSize,
    ...(opts.contentHash ? { contentHash: opts.contentHash } : {}),
  });
  if (init.statusCode !== 201) return init;
  const { sessionId } = init.json().data;
  for (let i = 0; i * chunkSize < file.data.length; i++) {
    const res = await putChunk(t, token, sessionId, i, file.data.subarray(i * chunkSize, (i + 1) * chunkSize));
    if (res.statusCode !== 200) return res;
  }
  return completeUpload(t, token, sessionId);
}

export const content = (
  t: TestApp,
  token: string,
  nodeId: number,
  q: Query = {},
  headers: Record<string, string> = {},
) =>
  t.app.inject({
    method: 'GET',
    url: `/api/drive/nodes/${nodeId}/content?${qs(q)}`,
    headers: { ...headers, authorization: `Bearer ${token}` },
  });

export async function spaceRow(t: TestApp, id: number) {
  const [row] = await t.database.db.select().from(driveSpaces).where(eq(driveSpaces.id, id));
  if (!row) throw new Error(`space ${id} missing`);
  return row;
}

export async function nodeRow(t: TestApp, id: number) {
  const [row] = await t.database.db.select().from(driveNodes).where(eq(driveNodes.id, id));
  if (!row) throw new Error(`node ${id} missing`);
  return row;
}

export const versionsOf = (t: TestApp, nodeId: number) =>
  t.database.db
    .select()
    .from(driveFileVersions)
    .where(eq(driveFileVersions.nodeId, nodeId))
    .orderBy(driveFileVersions.versionNo);

/** The references of a managed file, as `type/id`. */
export async function refsOf(t: TestApp, fileId: number): Promise<string[]> {
  const rows = await t.database.db.select().from(fileRefs).where(eq(fileRefs.fileId, fileId));
  return rows.map((r) => `${r.ownerType}/${r.ownerId}`).sort();
}

export async function driveVersionRefs(t: TestApp, versionIds: number[]): Promise<number> {
  if (versionIds.length === 0) return 0;
  const [r] = await t.database.db
    .select({ n: count() })
    .from(fileRefs)
    .where(
      and(
        eq(fileRefs.ownerType, 'drive_version'),
        sql`${fileRefs.ownerId} = any(${`{${versionIds.join(',')}}`}::int[])`,
      ),
    );
  return Number(r?.n);
}

async function n(t: TestApp, table: PgTable, where?: SQL): Promise<number> {
  const [r] = await t.database.db.select({ n: count() }).from(table).where(where);
  return Number(r?.n);
}

/** What a refused drive upload must leave as it was. */
export async function driveState(t: FilesTestApp, spaceId: number) {
  const sp = await spaceRow(t, spaceId);
  return {
    nodes: await n(t, driveNodes),
    versions: await n(t, driveFileVersions),
    driveRefs: await n(t, fileRefs, eq(fileRefs.ownerType, 'drive_version')),
    uploadRefs: await n(t, fileRefs, eq(fileRefs.ownerType, 'upload')),
    managedFiles: await n(t, managedFiles),
    bindings: await n(t, driveUploadBindings),
    sessions: await n(t, fileUploadSessions),
    activities: await n(t, driveActivities),
    usedBytes: sp.usedBytes,
    reservedBytes: sp.reservedBytes,
    chunks: (await t.storedFiles()).filter((k) => k.startsWith('uploads/')).length,
  };
}

/** A space role for a user through the members table. */
export async function member(t: TestApp, tenantId: number, spaceId: number, userId: number, role: string) {
  await t.database.db
    .insert(driveSpaceMembers)
    .values({ tenantId, spaceId, subjectType: 'user', subjectId: userId, role: role as 'viewer' });
}

/** A check-out lock of `userId` on a node for an hour. */
export async function lockBy(t: TestApp, nodeId: number, userId: number) {
  const now = Date.now();
  await t.database.db
    .update(driveNodes)
    .set({ lockUserId: userId, lockedAt: new Date(now), lockExpiresAt: new Date(now + 3_600_000) })
    .where(eq(driveNodes.id, nodeId));
}

/** Sets drive settings of the demo tenant (as its administrator). */
export async function driveSettings(t: TestApp, values: object) {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/settings/drive',
    payload: values,
    headers: { authorization: `Bearer ${t.demoAdminToken}` },
  });
  if (res.statusCode !== 200) throw new Error(`PUT /api/settings/drive: ${res.statusCode} ${res.body}`);
}

export async function filesSettings(t: TestApp, values: object) {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/settings/files',
    payload: values,
    headers: { authorization: `Bearer ${t.demoAdminToken}` },
  });
  if (res.statusCode !== 200) throw new Error(`PUT /api/settings/files: ${res.statusCode} ${res.body}`);
}

/** An ELF header, a PE (MZ) header: executables whatever their name. */
export const elf = () => Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), randomBytes(200)]);
export const pe = () => Buffer.concat([Buffer.from('MZ'), randomBytes(200)]);
