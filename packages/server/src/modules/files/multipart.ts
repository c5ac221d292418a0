import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { AppError } from '../../platform/http/errors.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import { assertText } from '../../platform/http/request-checks.ts';

/**
 * The file part of a one-request multipart upload, as a stream: the general upload route and
 * the drive's read it the same way. Nothing of the body is buffered but the part headers.
 */
export type FilePart = {
  body: Readable;
  name: string;
  declaredMime: string | null;
  /** the plain fields sent before the file part */
  fields: Record<string, string>;
};

/** Room for the multipart framing around the file bytes. */
const FRAMING = 64 * 1024;

/**
 * Reads up to the first file part. A Content-Length that cannot fit fails before the body is read
 * (`tooLarge(limit)` with `limits.maxBytes` or `limits.singleBytes`); without one, the byte count
 * of the stream decides later (the part stops one byte past `singleBytes`).
 */
export async function readFilePart(
  req: FastifyRequest,
  limits: { maxBytes: number; singleBytes: number },
  tooLarge: (limit: number) => AppError,
): Promise<FilePart> {
  if (!req.isMultipart()) throw httpErrors.unsupportedMediaType();
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > limits.maxBytes + FRAMING) throw tooLarge(limits.maxBytes);
  if (length > limits.singleBytes + FRAMING) throw tooLarge(limits.singleBytes);
  const part = await req.file({ limits: { fileSize: limits.singleBytes + 1, files: 1, fields: 10, fieldSize: 1024 } });
  if (!part) throw httpErrors.invalidField('file', 'is required');
  const fields: Record<string, string> = {};
  for (const [key, f] of Object.entries(part.fields)) {
    if (f && !Array.isArray(f) && f.type === 'field') fields[key] = String(f.value);
  }
  const name = fileName(part.filename);
  try {
    // the kernel never parsed this body: its text is checked here, before a byte is stored
    for (const [key, value] of Object.entries(fields)) assertText(key, value);
    assertText('file', part.filename ?? '');
    if (!name) throw httpErrors.invalidField('file', 'needs a file name (at most 255 characters)');
  } catch (err) {
    part.file.destroy();
    throw err;
  }
  return { body: part.file, name, declaredMime: part.mimetype || null, fields };
}

/** The last path segment (some browsers send `C:\fakepath\x.pdf`), without control characters (a NUL is refused before). */
function fileName(raw: string | undefined): string | null {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean.length > 0 && clean.length <= 255 ? clean : null;
}
