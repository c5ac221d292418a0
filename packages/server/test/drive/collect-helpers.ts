import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { driveCollectSubmissions, driveShareAccessLogs } from '../../src/modules/drive/tables.ts';
import { multipartBody, type Part } from '../files/files-helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { createLink } from './shares-helpers.ts';

/** Helpers of the collection-link tests (issue 15 item 3). */
export const publicBase = (token: string) => `/api/drive/public/shares/${token}`;

/** POST /share-links with kind 'collect' (a week's validity unless given); asserts 201, answers the link with its token. */
export async function createCollect(
  t: TestApp,
  token: string,
  nodeId: number,
  collect: object = {},
  extra: object = {},
) {
  const res = await createLink(t, token, { nodeId, kind: 'collect', collect, ...extra });
  if (res.statusCode !== 201) throw new Error(`create collect link: ${res.statusCode} ${res.body}`);
  return res.json().data as { id: number; token: string; collect: Record<string, unknown>; state: string };
}

export type Submission = {
  name: string;
  data: Buffer;
  submitterName?: string;
  note?: string;
  contentType?: string;
};

/** POST …/submissions: the text fields first (as a browser form sends them), then the file. */
export function submit(
  t: TestApp,
  token: string,
  s: Submission,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const parts: Part[] = [];
  if (s.submitterName !== undefined) parts.push({ field: 'submitterName', value: s.submitterName });
  if (s.note !== undefined) parts.push({ field: 'note', value: s.note });
  parts.push({ field: 'file', filename: s.name, contentType: s.contentType ?? 'text/plain', data: s.data });
  const body = multipartBody(parts);
  return t.app.inject({
    method: 'POST',
    url: `${publicBase(token)}/submissions`,
    payload: body.payload,
    headers: { ...body.headers, 'user-agent': 'collect-test', ...headers },
  });
}

export const submissionsOf = (t: TestApp, linkId: number) =>
  t.database.db
    .select()
    .from(driveCollectSubmissions)
    .where(eq(driveCollectSubmissions.linkId, linkId))
    .orderBy(driveCollectSubmissions.id);

export const logsOf = (t: TestApp, linkId: number) =>
  t.database.db.select().from(driveShareAccessLogs).where(eq(driveShareAccessLogs.linkId, linkId));
