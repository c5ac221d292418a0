import { ApiCallError, type ApiError } from '../api/client';

type BinaryCall = Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** A binary answer of the typed client (`parseAs: 'blob'`) with its response, or the server's error as an ApiCallError. */
async function blobAnswer(call: BinaryCall): Promise<{ blob: Blob; response: Response }> {
  const { data, error, response } = await call;
  if (data instanceof Blob) return { blob: data, response };
  const body = (error ?? {}) as Partial<ApiError>;
  throw new ApiCallError({
    code: body.code ?? response.status,
    error: body.error ?? 'http.error',
    message: body.message ?? response.statusText,
    requestId: body.requestId ?? response.headers.get('x-request-id') ?? undefined,
  });
}

/** A binary answer (preview, content) as a Blob, or the server's error as an ApiCallError. */
export const blobOf = async (call: BinaryCall): Promise<Blob> => (await blobAnswer(call)).blob;

/** The file name of a `Content-Disposition` answer: RFC 5987's `filename*` first, then `filename`. */
export function fileNameOf(response: Response): string | null {
  const header = response.headers.get('content-disposition') ?? '';
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // a malformed escape: fall back to the plain name
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;]+)/i.exec(header)?.[1]?.trim() ?? null;
}

/** Hands a Blob to the browser as a download under the file's own name. */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  // the click has handed the blob to the download manager; free it after this turn
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Downloads through the typed client — the session's bearer goes with it, which a plain link
 * cannot carry (the access token lives in memory only, decision 0032) — and saves the file under
 * the name the server gives it.
 */
export async function downloadFile(call: BinaryCall, fallbackName: string): Promise<void> {
  const { blob, response } = await blobAnswer(call);
  saveBlob(blob, fileNameOf(response) ?? fallbackName);
}
