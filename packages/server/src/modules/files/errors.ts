import { AppError } from '../../platform/http/errors.ts';

/** Errors of the managed files module (`files.*`). */
export const filesErrors = {
  fileNotFound: () => new AppError(404, 'files.file_not_found', 'file not found'),
  uploadNotFound: () => new AppError(404, 'files.upload_not_found', 'upload session not found'),
  tooLarge: (maxMb: number) =>
    new AppError(413, 'files.too_large', `The file is larger than the limit of ${maxMb} MB`, {
      details: [{ field: 'file', message: `must not exceed ${maxMb} MB` }],
    }),
  useChunkedUpload: (thresholdMb: number) =>
    new AppError(
      400,
      'files.use_chunked_upload',
      `Files above ${thresholdMb} MB are uploaded in chunks (POST /api/files/uploads)`,
      { details: [{ field: 'file', message: `larger than ${thresholdMb} MB; use a chunked upload` }] },
    ),
  blockedType: (reason: string, field = 'file') =>
    new AppError(400, 'files.blocked_type', `This kind of file cannot be uploaded: ${reason}`, {
      details: [{ field, message: reason }],
    }),
  typeNotAllowed: (mime: string) =>
    new AppError(400, 'files.type_not_allowed', `Files of type ${mime} are not accepted`, {
      details: [{ field: 'file', message: `type ${mime} is not in the allow-list` }],
    }),
  hashMismatch: () =>
    new AppError(400, 'files.hash_mismatch', 'The uploaded bytes do not match the declared SHA-256; upload aborted', {
      details: [{ field: 'declaredSha256', message: 'differs from the SHA-256 of the received bytes' }],
    }),
  chunkSizeMismatch: (expected: number) =>
    new AppError(400, 'files.chunk_size_mismatch', `The chunk must be exactly ${expected} bytes`, {
      details: [{ field: 'body', message: `must be exactly ${expected} bytes` }],
    }),
  chunksMissing: (missing: number[]) =>
    new AppError(400, 'files.chunks_missing', 'Some chunks have not been received', {
      details: [{ field: 'chunks', message: `missing ${summarize(missing)}` }],
    }),
  uploadInProgress: () =>
    new AppError(409, 'files.upload_in_progress', 'The upload session is being completed by another request'),
  objectDeleting: () =>
    new AppError(409, 'files.object_deleting', 'The file is being deleted and cannot be referenced again'),
  rangeNotSatisfiable: (size: number) =>
    new AppError(416, 'files.range_not_satisfiable', 'The requested range is outside the file', {
      headers: { 'content-range': `bytes */${size}` },
    }),
};

function summarize(ids: number[]): string {
  const shown = ids.slice(0, 20).join(', ');
  return ids.length > 20 ? `${shown} … (${ids.length} in all)` : shown;
}
