import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { replyFormats } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import { contentDisposition, contentResponses } from '../../files/index.ts';
import { SANDBOX_HEADERS } from '../content-headers.ts';
import type { PublicShareService, Visitor } from './public-service.ts';
import type { PublicSaveService } from './save-service.ts';
import {
  BrowseQuery,
  goneLink,
  PasswordBody,
  PublicContentQuery,
  PublicNodePage,
  previewResponses,
  SaveBody,
  SaveResult,
  ShareMetadata,
  ShareSession,
  TokenParams,
} from './schemas.ts';
import { type ShareSessionCookie, shareSessionCookieDocs, shareSessionOf } from './session-cookie.ts';

const tags = ['DriveSharePublic'];
const feature = 'drive';
const sessionHeader =
  'X-Share-Session (API clients) or the atrium_share_session cookie (web pages): the access session of a password ' +
  'link (POST …/password)';
/** every route that takes the access session documents its cookie */
const cookies = { reads: shareSessionCookieDocs.reads };

export function visitor(req: Parameters<typeof shareSessionOf>[0] & { scope: { ip: string } }): Visitor {
  const agent = req.headers['user-agent'];
  return { ip: req.scope.ip, userAgent: agent ?? null, session: shareSessionOf(req) };
}

/** Anonymous share-link routes (no sign-in: the token in the path is the credential). */
export function publicShareRoutes(
  app: FastifyInstance,
  shares: PublicShareService,
  saves: PublicSaveService,
  sessionCookie: ShareSessionCookie,
) {
  route(app, {
    method: 'GET',
    url: '/api/drive/public/shares/:token',
    operation: 'drive.public_share.get',
    auth: 'public',
    feature,
    responses: goneLink,
    schema: {
      tags,
      summary: 'What a share link shows (counts one access)',
      description:
        'A password link without a valid session answers only { passwordRequired: true, hasSession: false } (no name, no ' +
        'content). Without a session each request counts an access (410 drive.share_exhausted past max_access_count); ' +
        `with one, the access was counted when the session was opened. ${sessionHeader}. 404 drive.share_not_found, ` +
        '410 drive.share_revoked / drive.share_expired, 403 drive.share_disabled / drive.share_ip_denied.',
      params: TokenParams,
      response: ShareMetadata,
    },
    cookies,
    handler: async (req) => shares.metadata(req.params.token, visitor(req)),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/public/shares/:token/password',
    operation: 'drive.public_share.password',
    auth: 'public',
    feature,
    errors: [401, 429], // a wrong password; too many of them
    responses: goneLink,
    schema: {
      tags,
      summary: 'Open an access session with the link password (12 h; counts one access)',
      description:
        '401 drive.share_wrong_password (logged); 5 attempts per link and address in 15 minutes, then 429 ' +
        'drive.share_too_many_attempts with Retry-After. A revoke or a password change ends every session. With ' +
        "cookie: true (a web page) the session is set as the HttpOnly atrium_share_session cookie for this link's " +
        'routes and left out of the answer.',
      params: TokenParams,
      body: PasswordBody,
      response: ShareSession,
    },
    cookies: { sets: shareSessionCookieDocs.sets },
    handler: async (req, reply) => {
      const session = await shares.password(req.params.token, req.body.password, visitor(req));
      return req.body.cookie ? sessionCookie.handOver(req, reply, req.params.token, session) : session;
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/public/shares/:token/nodes',
    operation: 'drive.public_share.nodes',
    auth: 'public',
    feature,
    errors: [401], // a password-protected link without its session
    responses: goneLink,
    schema: {
      tags,
      summary: 'Browse a shared folder (parentId: the shared folder or a folder under it)',
      description: `Only live nodes inside the shared folder; any other parentId is 404. ${sessionHeader}.`,
      params: TokenParams,
      querystring: BrowseQuery,
      response: PublicNodePage,
    },
    cookies,
    handler: async (req) => shares.browse(req.params.token, visitor(req), req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/public/shares/:token/content',
    operation: 'drive.public_share.content',
    auth: 'public',
    feature,
    errors: [401], // a password-protected link without its session
    reply: replyFormats.file,
    responses: { ...contentResponses, ...goneLink },
    schema: {
      tags,
      summary: 'Download a shared file (nodeId: a file under a shared folder; Range, ETag / If-None-Match)',
      description:
        'Needs the download capability (403 drive.share_preview_only otherwise). A request without Range or with a Range ' +
        'from byte 0 counts one download (410 drive.share_exhausted past max_download_count); later ranges do not. ' +
        `Always an attachment, with Content-Security-Policy: sandbox and nosniff. ${sessionHeader}.`,
      params: TokenParams,
      querystring: PublicContentQuery,
      response: Type.String({ format: 'binary' }),
    },
    cookies,
    handler: async (req, reply) => {
      // a Range past the first byte continues a download already counted
      const counts = !/^bytes=\s*[1-9]/.test(req.headers.range ?? '');
      const file = await shares.content(req.params.token, visitor(req), req.query.nodeId, counts);
      reply.headers(SANDBOX_HEADERS);
      return shares.send(req as unknown as FastifyRequest, reply, file);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/public/shares/:token/preview',
    operation: 'drive.public_share.preview',
    auth: 'public',
    feature,
    errors: [401], // a password-protected link without its session
    reply: replyFormats.file,
    responses: previewResponses,
    schema: {
      tags,
      summary: 'Preview a shared file (nodeId: a file under a shared folder; ETag / If-None-Match)',
      description:
        'Needs the preview capability (403 drive.share_preview_not_allowed otherwise); never the original bytes. ' +
        'Raster images (JPEG, PNG, WebP, GIF first frame, AVIF, TIFF) re-encoded: metadata stripped, orientation ' +
        'applied, at most 2048 px on the long side, JPEG or PNG when transparent, the link watermark burned in. ' +
        'Text (text/*, JSON, XML, HTML, SVG, source code…) as sanitized text/plain UTF-8, the first MiB ' +
        '(X-Preview-Truncated: true past it). Other types through a ready rendition of the current version, else ' +
        '415 drive.preview_unavailable with the node metadata in `node`. 422 drive.preview_unreadable (not a ' +
        'readable image) / drive.preview_too_large; 503 drive.preview_busy (Retry-After). Not counted as an access ' +
        `or a download. Always inline with Content-Security-Policy: sandbox and nosniff. ${sessionHeader}.`,
      params: TokenParams,
      querystring: PublicContentQuery,
      response: Type.String({ format: 'binary' }),
    },
    cookies,
    handler: async (req, reply) => {
      const p = await shares.preview(req.params.token, visitor(req), req.query.nodeId, req.headers['if-none-match']);
      reply.headers({ ...SANDBOX_HEADERS, etag: p.etag, 'cache-control': 'private, no-cache' });
      if (p.notModified) return reply.code(304).send();
      const ext = p.kind === 'text' ? 'txt' : p.mime === 'image/png' ? 'png' : 'jpg';
      reply.headers({
        'content-type': p.mime,
        // the original name plus the preview's own extension: saved, it never becomes an .html that runs
        'content-disposition': contentDisposition(`${p.name}.preview.${ext}`, true),
        ...(p.truncated ? { 'x-preview-truncated': 'true' } : {}),
      });
      return reply.code(200).send(p.body);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/public/shares/:token/save',
    operation: 'drive.public_share.save',
    auth: 'user',
    permission: 'drive:node:edit',
    feature,
    responses: goneLink,
    status: 201,
    schema: {
      tags,
      summary: 'Save to my drive: copy the shared node (or a node under it) into your own drive (signed-in users)',
      description:
        "Needs a sign-in of the link's own organisation (403 drive.share_save_other_tenant otherwise) and the save " +
        'capability (403 drive.share_save_not_allowed). The copy lands in targetParentId (a folder you may create in) ' +
        'or the root of your personal space, kept-both named, owned by you, with no grants; its size is charged there ' +
        '(413 drive.quota_exceeded). Takes one download from the link (410 drive.share_exhausted past ' +
        `max_download_count), logged as a download. nodeId outside the shared folder is 404. ${sessionHeader}.`,
      params: TokenParams,
      body: SaveBody,
      response: SaveResult,
    },
    cookies,
    handler: async (req) => saves.save(req.scope, req.params.token, visitor(req), req.body),
  });
}
