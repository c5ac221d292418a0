import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type ExtraResponse, envelopeError } from '../../platform/http/route.ts';
import { FileSlice } from '../../platform/storage/file-slice.ts';
import type { ByteRange } from '../../platform/storage/provider.ts';
import { filesErrors } from './errors.ts';
import type { FileWithObject } from './file-repository.ts';
import type { FilesService } from './files-service.ts';

/**
 * HTTP semantics of file content: single byte ranges (RFC 9110 §14), entity tags and
 * conditional requests (§8.8.3, §13.1.2), and file names in Content-Disposition (RFC 6266
 * with the RFC 5987 `filename*` parameter).
 */
export type RangeResult = { kind: 'none' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * One `bytes=` range. Several ranges, other units and malformed values are ignored (the whole
 * file is sent), as RFC 9110 §14.2 allows; a range that starts past the end is unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: 'none' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return { kind: 'none' };
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return { kind: 'none' };
  if (a === '') {
    // suffix: the last b bytes
    const n = Number(b);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Number(b);
  if (b !== '' && end < start) return { kind: 'none' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end: Math.min(end, size - 1) } };
}

/** `If-None-Match`: `*` or a list of (weak or strong) tags; weak comparison, as §13.1.2 says. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** RFC 5987 `value-chars`: attr-char stays, everything else is %XX of its UTF-8 bytes. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `attachment; filename="ascii fallback"; filename*=UTF-8''<percent-encoded UTF-8>`. */
export function contentDisposition(name: string, inline: boolean): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** Types a browser may show in place: raster images and PDF (never SVG or HTML, which run script). */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/avif',
  'application/pdf',
]);

/** What sendContent answers besides the whole file (200), for the document of a route using it. */
export const contentResponses = {
  206: {
    description: 'Partial Content: the one range asked for (Range), with Content-Range',
    content: { '*/*': Type.String({ format: 'binary' }) },
  },
  304: { description: 'Not Modified: If-None-Match names the current ETag' },
  416: envelopeError('files.range_not_satisfiable: the range starts past the end (Content-Range: bytes */size)'),
} satisfies Record<number, ExtraResponse>;

/** Answers a content request: 304, 206, 416 or 200, streaming the bytes from the provider. */
export async function sendContent(
  req: Pick<FastifyRequest, 'headers' | 'method'>,
  reply: FastifyReply,
  file: FileWithObject,
  opts: { inline: boolean; open: FilesService['open'] },
) {
  const etag = `"${file.sha256}"`;
  reply.headers({
    etag,
    'accept-ranges': 'bytes',
    'cache-control': file.visibility === 'public' ? 'public, no-cache' : 'private, no-cache',
    'x-content-type-options': 'nosniff',
  });
  if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send();

  // If-Range: a range of a different version would be garbage; send the whole file then.
  const ifRange = req.headers['if-range'];
  const range = ifRange && ifRange !== etag ? { kind: 'none' as const } : parseRange(req.headers.range, file.size);
  if (range.kind === 'unsatisfiable') throw filesErrors.rangeNotSatisfiable(file.size);

  // HEAD (Fastify's automatic route) answers the headers only: no need to read the object.
  const bytes = (range?: ByteRange) => (req.method === 'HEAD' ? Readable.from([]) : opts.open(file, range));
  reply.headers({
    'content-type': file.mime,
    'content-disposition': contentDisposition(file.name, opts.inline && INLINE_TYPES.has(file.mime)),
  });
  if (range.kind === 'range') {
    const { start, end } = range.range;
    const body = await bytes(range.range);
    reply
      .code(206)
      .headers({ 'content-range': `bytes ${start}-${end}/${file.size}`, 'content-length': end - start + 1 });
    return send(reply, body);
  }
  const body = await bytes();
  reply.code(200).header('content-length', file.size);
  return send(reply, body);
}

/**
 * A file of the local provider writes itself to the socket through reused buffers (see
 * FileSlice); Fastify's stream path would allocate one per chunk. The reply is hijacked for that:
 * the headers set so far go out as they are, onResponse hooks still run, and a failure half-way
 * can only end the connection (as Fastify does for a failing stream).
 */
function send(reply: FastifyReply, body: Readable) {
  if (!(body instanceof FileSlice)) return reply.send(body);
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(reply.statusCode);
  body.writeTo(res).then(
    () => res.end(),
    (err: unknown) => {
      if (!res.destroyed) reply.log.warn({ err }, 'files: download failed half-way');
      res.destroy();
    },
  );
  return reply;
}
