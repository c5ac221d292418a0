import { ApiCallError, type ApiError } from '../../api/client';
import type { paths } from '../../api/schema';
import type { SubmissionReceipt } from './share-api';

/**
 * One submission to a collection link, sent with XMLHttpRequest: fetch reports no upload progress,
 * and a person dropping a large file needs to see it move. The path is checked against the typed
 * document, so a renamed route still fails the type check like every other call.
 */
const SUBMIT = '/api/drive/public/shares/{token}/submissions' satisfies keyof paths;

export type SubmissionInput = { file: File; submitterName?: string; note?: string };

export function submitFile(
  token: string,
  input: SubmissionInput,
  onProgress: (percent: number) => void,
  signal?: AbortSignal,
): Promise<SubmissionReceipt> {
  const form = new FormData();
  // the server reads the fields only when they come before the file part (decision 0018)
  if (input.submitterName) form.append('submitterName', input.submitterName);
  if (input.note) form.append('note', input.note);
  form.append('file', input.file, input.file.name);

  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', SUBMIT.replace('{token}', encodeURIComponent(token)));
    // the link's session is its HttpOnly cookie; the header shows a script of this page sent it (CSRF)
    xhr.setRequestHeader('X-Requested-With', 'atrium-console');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      let body: { data?: SubmissionReceipt } & Partial<ApiError> = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON (a proxy's page): the status speaks for it below
      }
      if (xhr.status === 201 && body.data) return resolve(body.data);
      reject(
        new ApiCallError({
          code: body.code ?? xhr.status,
          error: body.error ?? 'http.error',
          message: body.message ?? xhr.statusText,
          details: body.details,
          requestId: body.requestId ?? xhr.getResponseHeader('x-request-id') ?? undefined,
        }),
      );
    };
    xhr.onerror = () => reject(new Error('network'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}
