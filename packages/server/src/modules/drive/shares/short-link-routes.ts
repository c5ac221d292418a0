import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { replyFormats } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { goneLink } from '../public/schemas.ts';
import type { QrCodes } from './qr-code.ts';
import { QrQuery, ShareLinkWithToken, ShortCodeParams, ShortLinkTarget } from './schemas.ts';
import { SHORT_LINK_MISS_WINDOW_SECONDS, SHORT_LINK_MISSES, type ShortLinksService } from './short-links-service.ts';

/** what carries a link's credential is kept by no cache and sent on to no other site */
const PRIVATE = { 'cache-control': 'private, no-store', pragma: 'no-cache', 'referrer-policy': 'no-referrer' };

/** A share link's short link and QR code (management), and the short link's public redirect. */
export function shortLinkRoutes(app: FastifyInstance, shortLinks: ShortLinksService, qr: QrCodes) {
  const tags = ['DriveShareLinks'];
  const common = { auth: 'user', feature: 'drive' } as const;

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/share-links/:id/short-link',
    operation: 'drive.share_link.short_link.create',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: 'Make the short link of a share link (its creator or a manager of the node); idempotent',
      description:
        'Answers the link with shortUrl (absolute: PUBLIC_BASE_URL + /api/drive/public/s/<code>, 12 random base62 characters); ' +
        'a link that has one already answers it unchanged. A revoked link is 409 drive.share_link_revoked; anyone ' +
        'else gets 404 drive.share_link_not_found.',
      params: IdParams,
      response: ShareLinkWithToken,
    },
    handler: async (req) => shortLinks.create(req.scope, req.params.id),
  });

  route(app, {
    ...common,
    method: 'DELETE',
    url: '/api/drive/share-links/:id/short-link',
    operation: 'drive.share_link.short_link.delete',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: 'Remove the short link of a share link (the short URL stops resolving; POST again for a new one)',
      description: 'Idempotent; the full URL keeps working. Anyone but the creator or a manager gets 404.',
      params: IdParams,
      response: ShareLinkWithToken,
    },
    handler: async (req) => shortLinks.remove(req.scope, req.params.id),
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/share-links/:id/qr',
    operation: 'drive.share_link.qr',
    permission: 'drive:node:view',
    errors: [409], // a revoked link has no code
    reply: replyFormats.file,
    responses: {
      200: {
        description: 'The QR code: SVG (format svg, the default) or PNG (format png)',
        content: { 'image/svg+xml': Type.String(), 'image/png': Type.String({ format: 'binary' }) },
      },
    },
    schema: {
      tags,
      summary: 'A QR code of the link URL, SVG or PNG (its creator or a manager of the node)',
      description:
        'format svg (image/svg+xml, default) or png (image/png, size × size pixels); target full (default) or short ' +
        '(409 drive.short_link_missing when the link has none). Sent with Cache-Control: private, no-store: it carries ' +
        'the credential. A revoked link is 409 drive.share_link_revoked; anyone else gets 404.',
      params: IdParams,
      querystring: QrQuery,
      response: Type.String({ format: 'binary' }),
    },
    handler: async (req, reply) => {
      const image = await qr.image(req.scope, req.params.id, req.query);
      const headers = image.mediaType === 'image/svg+xml' ? { 'content-security-policy': "default-src 'none'" } : {};
      return reply
        .headers({ ...PRIVATE, ...headers, 'x-content-type-options': 'nosniff' })
        .type(image.mediaType)
        .send(image.body);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/public/s/:code',
    operation: 'drive.public_share.short_link',
    auth: 'public',
    feature: 'drive',
    errors: [429], // too many unknown codes from one address
    responses: {
      ...goneLink,
      302: {
        description:
          "A redirect to the share link's full URL, its console page /s/<token> (any Accept but application/json)",
        headers: { Location: Type.String({ format: 'uri', description: "the share link's full URL, absolute" }) },
      },
    },
    schema: {
      tags: ['DriveSharePublic'],
      summary: "A short link: 302 to the share link's full URL (200 { url } for Accept: application/json)",
      description:
        'A browser follows the 302; a client asking for application/json gets the URL in the envelope instead. ' +
        '404 drive.share_not_found for an unknown code, 410 drive.share_revoked / drive.share_expired. ' +
        `${SHORT_LINK_MISSES} unknown codes per address in ${SHORT_LINK_MISS_WINDOW_SECONDS / 60} minutes, then 429 ` +
        'drive.short_link_too_many_misses with Retry-After for every lookup from that address until the window ends.',
      params: ShortCodeParams,
      response: ShortLinkTarget,
    },
    handler: async (req, reply) => {
      const url = await shortLinks.resolve(req.params.code, req.scope.ip);
      reply.headers(PRIVATE);
      if (req.headers.accept?.startsWith('application/json')) return { url };
      return reply.redirect(url, 302);
    },
  });
}
