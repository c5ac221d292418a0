import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { escapeHtml } from '../../../platform/html/escape.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { replyFormats } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import type { UnsubscribeService } from './unsubscribe-service.ts';

const tags = ['Notifications'];
const Params = Type.Object({ token: Type.String({ minLength: 10, maxLength: 2000 }) });
/** A link that is not valid answers a page too: a person clicked it. */
const invalidPage = {
  404: { description: 'The link is not valid (an HTML page)', content: { 'text/html': Type.String() } },
};

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
button{font:inherit;padding:.5rem 1.25rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;cursor:pointer}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

const invalid = (reply: FastifyReply) =>
  reply
    .code(404)
    .type('text/html; charset=utf-8')
    .send(page('Link not valid', '<p>This unsubscribe link is not valid. It may have been mistyped.</p>'));

/**
 * The unsubscribe link every notification email carries (spec §4.4), and the RFC 8058 one-click
 * POST mail clients send without a page. Unsubscribing switches the email channel of that event
 * off for that recipient; external addresses get the same sparse preference row.
 */
export function unsubscribeRoutes(app: FastifyInstance, links: UnsubscribeService) {
  route(app, {
    method: 'GET',
    url: '/api/notification-unsubscribe/:token',
    operation: 'messaging.unsubscribe.page',
    auth: 'public',
    reply: replyFormats.body('text/html'),
    responses: invalidPage,
    schema: {
      tags,
      summary: 'Unsubscribe page: says what the link stops, with a confirm button',
      params: Params,
      response: Type.String(),
    },
    handler: async (req, reply) => {
      const def = links.find(req.params.token);
      if (!def) return invalid(reply);
      return page(
        'Unsubscribe',
        `<p>Stop receiving <strong>${escapeHtml(def.displayName)}</strong> notifications by email?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
      );
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/notification-unsubscribe/:token',
    operation: 'messaging.unsubscribe.submit',
    auth: 'public',
    reply: replyFormats.body('text/html'),
    responses: invalidPage,
    // the page's form, and RFC 8058 §3.1: one-click is a form POST of List-Unsubscribe=One-Click;
    // the link alone decides, so the form is documented and never required
    consumes: ['application/x-www-form-urlencoded'],
    optionalBody: true,
    schema: {
      tags,
      summary: 'Unsubscribe (the page’s form, or an RFC 8058 one-click POST with List-Unsubscribe=One-Click)',
      params: Params,
      body: Type.Object(
        { 'List-Unsubscribe': Type.Optional(Type.Literal('One-Click')) },
        { additionalProperties: true },
      ),
      response: Type.String(),
    },
    handler: async (req, reply) => {
      // not validated (the form may be left out), but a form that is sent says One-Click (RFC 8058 §3.1)
      const click = (req.body as Record<string, unknown> | undefined)?.['List-Unsubscribe'];
      if (click !== undefined && click !== 'One-Click')
        throw httpErrors.invalidField('List-Unsubscribe', 'must be One-Click');
      const def = await links.unsubscribe(req.params.token);
      if (!def) return invalid(reply);
      return page(
        'Unsubscribed',
        `<p>You will no longer receive <strong>${escapeHtml(def.displayName)}</strong> notifications by email.</p>`,
      );
    },
  });
}
