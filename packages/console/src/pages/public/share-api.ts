import { useQueryClient } from '@tanstack/react-query';
import { ApiCallError, api, unwrap } from '../../api/client';
import type { operations } from '../../api/schema';
import { blobOf } from '../../components/download';

/**
 * The calls of a share link's public page, through the one typed client. A password link's access
 * session (POST …/password with cookie: true) lives in an HttpOnly cookie scoped to the link's
 * routes: the page never holds it, so an injected script finds nothing to carry away
 * (docs/decisions/0032-browser-sessions.md).
 */
type Ok<K extends keyof operations, S extends number = 200> = operations[K] extends {
  responses: { [status in S]: { content: { 'application/json': { data: infer T } } } };
}
  ? T
  : never;
export type ShareMetadata = Ok<'drive.public_share.get'>;
export type PublicNode = Ok<'drive.public_share.nodes'>['list'][number];
export type PublicNodePage = Ok<'drive.public_share.nodes'>;
export type SubmissionReceipt = Ok<'drive.public_share.submit', 201>;

export const shareMetadata = (token: string) =>
  unwrap(api.GET('/api/drive/public/shares/{token}', { params: { path: { token } } }));

/** Opens the access session and keeps it for the later calls of this page. */
export async function openSession(token: string, password: string) {
  const s = await unwrap(
    api.POST('/api/drive/public/shares/{token}/password', {
      params: { path: { token } },
      body: { password, cookie: true },
    }),
  );
  return s;
}

export const browse = (token: string, q: { parentId?: number; page: number; pageSize: number }) =>
  unwrap(
    api.GET('/api/drive/public/shares/{token}/nodes', {
      params: { path: { token }, query: q },
    }),
  );

export const preview = (token: string, nodeId: number) =>
  blobOf(
    api.GET('/api/drive/public/shares/{token}/preview', {
      params: { path: { token }, query: { nodeId } },
      parseAs: 'blob',
    }),
  );

export const content = (token: string, nodeId: number) =>
  blobOf(
    api.GET('/api/drive/public/shares/{token}/content', {
      params: { path: { token }, query: { nodeId } },
      parseAs: 'blob',
    }),
  );

export const saveToMyDrive = (token: string, nodeId: number) =>
  unwrap(
    api.POST('/api/drive/public/shares/{token}/save', {
      params: { path: { token } },
      body: { nodeId },
    }),
  );

/**
 * Keeps the page's count of the downloads the link still allows in step with what the visitor
 * did: one taken by a download or a save, none left when the server says the limit is reached
 * (another visitor took the last). Asking the metadata again would count a visit.
 */
export function useDownloadsTaken(token: string) {
  const client = useQueryClient();
  const set = (left: (n: number) => number) =>
    client.setQueriesData<ShareMetadata>({ queryKey: ['share', token] }, (m) =>
      m && typeof m.remainingDownloads === 'number' ? { ...m, remainingDownloads: left(m.remainingDownloads) } : m,
    );
  return {
    taken: () => set((n) => Math.max(0, n - 1)),
    failed: (err: unknown) => {
      if (err instanceof ApiCallError && err.body.error === 'drive.share_exhausted') set(() => 0);
    },
  };
}
