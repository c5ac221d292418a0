import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { extname, isAbsolute, join, relative } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Files of a built front end (the console's dist/), sent as browsers and caches expect: the
 * pre-compressed `.br` or `.gz` beside a file when the request accepts it, validators and 304s.
 * Only regular files inside the root are ever opened (see `fileInside`).
 */

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8', // RFC 9239
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

export const contentTypeOf = (file: string) => TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';

/**
 * The file a URL path names inside `root`, or null. The path is decoded once; a backslash, a NUL,
 * an empty, `.` or `..` segment, or any segment starting with a dot (`.vite/`, dotfiles) names
 * nothing, so `/assets/../../package.json` in any encoding never leaves the root.
 */
export function fileInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (!decoded.startsWith('/') || decoded.includes('\\') || decoded.includes('\0')) return null;
  const segments = decoded.slice(1).split('/');
  if (segments.some((s) => s === '' || s.startsWith('.'))) return null;
  const file = join(root, ...segments);
  const rel = relative(root, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? file : null;
}

/** An opened regular file; the caller sends or closes it. */
type Opened = { handle: FileHandle; stats: Stats };

// O_NOFOLLOW: a symbolic link placed in the root is not followed out of it (0 where unknown).
const READ_ONLY = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** The regular file at `path`, opened, or null when there is none (missing, a folder, a link). */
export async function openRegularFile(path: string): Promise<Opened | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_ONLY);
  } catch {
    return null;
  }
  const stats = await handle.stat();
  if (stats.isFile()) return { handle, stats };
  await handle.close();
  return null;
}

const ENCODINGS = [
  { token: 'br', suffix: '.br' },
  { token: 'gzip', suffix: '.gz' },
] as const;

/**
 * The values of an Accept-style header with their weights (RFC 9110 §12.4.2), lower-cased,
 * other parameters dropped (`text/html;level=1` is `text/html`); q=0 means refused.
 */
export function qualities(header: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name.trim()) out.set(name.trim(), q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  return out;
}

/** Whether a content coding is accepted (RFC 9110 §12.5.3): named with q > 0, or `*` and not refused by name. */
function acceptsEncoding(weights: Map<string, number>, token: string): boolean {
  return (weights.get(token) ?? weights.get('*') ?? 0) > 0;
}

/**
 * The smallest representation of `path` the request accepts: its `.br`, then its `.gz`, then the
 * file itself. A compressed copy older than the file (edited by hand after the build) is ignored.
 */
export async function openRepresentation(
  path: string,
  acceptEncoding: string | undefined,
): Promise<(Opened & { encoding: string | null }) | null> {
  const original = await openRegularFile(path);
  if (!original) return null;
  const weights = qualities(acceptEncoding);
  for (const { token, suffix } of ENCODINGS) {
    if (!acceptsEncoding(weights, token)) continue;
    const variant = await openRegularFile(path + suffix);
    if (variant && variant.stats.mtimeMs >= original.stats.mtimeMs) {
      await original.handle.close();
      return { ...variant, encoding: token };
    }
    await variant?.handle.close();
  }
  return { ...original, encoding: null };
}

const etagOf = (stats: Stats, encoding: string | null) =>
  `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}${encoding ? `-${encoding}` : ''}"`;

/** RFC 9110 §13.1.2 and §13.1.3: If-None-Match (weak comparison) wins over If-Modified-Since. */
function notModified(req: FastifyRequest, etag: string, mtime: Date): boolean {
  const match = req.headers['if-none-match'];
  if (match !== undefined) {
    const weak = (tag: string) => tag.trim().replace(/^W\//, '');
    return match.trim() === '*' || match.split(',').some((tag) => weak(tag) === weak(etag));
  }
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

/**
 * Sends an opened representation of `path` (typed by `path`, not by its `.br`/`.gz`): a 304 when
 * the request's validators match, headers alone for HEAD, else the bytes as a stream.
 */
export function sendFile(
  req: FastifyRequest,
  reply: FastifyReply,
  path: string,
  file: Opened & { encoding: string | null },
  cacheControl: string,
): FastifyReply {
  const etag = etagOf(file.stats, file.encoding);
  reply
    .header('cache-control', cacheControl)
    .header('vary', 'Accept-Encoding')
    .header('etag', etag)
    .header('last-modified', file.stats.mtime.toUTCString());
  if (notModified(req, etag, file.stats.mtime)) {
    void file.handle.close();
    return reply.code(304).send();
  }
  reply.type(contentTypeOf(path)).header('content-length', file.stats.size);
  if (file.encoding) reply.header('content-encoding', file.encoding);
  if (req.method === 'HEAD') {
    void file.handle.close();
    return reply.send();
  }
  return reply.send(file.handle.createReadStream());
}
