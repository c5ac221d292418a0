import type { FastifyInstance } from 'fastify';
import { guideLink } from '../../../platform/http/docs-guides.ts';
import { route } from '../../../platform/http/route.ts';
import { ReportBody, ReportResult } from './schemas.ts';
import type { createIngestService } from './service.ts';

type IngestService = ReturnType<typeof createIngestService>;

/** Reports are small; a larger body is refused by the kernel with 413 before it is parsed. */
const REPORT_BODY_LIMIT = 256 * 1024;

/**
 * `POST /api/frontend-errors` (and its CORS preflight, from `cors`). Browsers post reports
 * cross-origin, so each answer names the caller's Origin, except a 403, which is exactly an
 * origin or key we refuse. The Origin check that matters is the server-side allow-list of the
 * site; CORS only lets the page read the answer.
 */
export function reportRoutes(app: FastifyInstance, ingest: IngestService, bodyLimitBytes: number) {
  route(app, {
    method: 'POST',
    url: '/api/frontend-errors',
    operation: 'monitor.error.report',
    auth: 'optional',
    errors: [403], // an unknown site key, an origin the site does not allow
    audit: false,
    bodyLimit: Math.min(bodyLimitBytes, REPORT_BODY_LIMIT),
    cors: {
      origins: (_origin, _req, status) => status !== 403,
      allowHeaders: ['content-type', 'x-analytics-site-key'],
      maxAgeSeconds: 86_400,
    },
    // accepted for processing: alert rules and notifications follow the answer
    status: 202,
    // Per client IP, checked before anything else; generous for a page in an error loop that the
    // client's 10-second dedupe (§4.6 rule 2) did not stop, small enough to bound a flood.
    rateLimit: { key: 'ip', max: 120, windowSeconds: 60 },
    schema: {
      tags: ['FrontendErrors'],
      summary: 'Report a front-end error (anonymous, signed in, or for a site by X-Analytics-Site-Key)',
      description: [
        'Answers **202** `{ accepted: true, groupId, eventId }`, or `{ accepted: false, reason: "ignored" }` when a',
        'tenant errorIgnorePatterns expression matched the message (nothing is recorded).',
        'A valid console token attributes the report to the user and their tenant; otherwise',
        '`X-Analytics-Site-Key` attributes it to the site’s tenant, and the `Origin` must be one of the site’s',
        'allowed origins (403 `monitor.origin_not_allowed`; an unknown or disabled key: 403 `monitor.unknown_site_key`).',
        'message, stack, URLs and breadcrumb text are truncated to the limits, and only the latest 30 breadcrumbs',
        `are kept; a body over 256 KB answers 413. Field reference: ${guideLink('frontend-errors.md')}.`,
      ].join(' '),
      body: ReportBody,
      response: ReportResult,
    },
    handler: async (req) =>
      ingest.report({
        scope: req.scope,
        body: req.body,
        siteKey: header(req.headers['x-analytics-site-key']),
        origin: header(req.headers.origin),
        userAgent: header(req.headers['user-agent']) ?? '',
      }),
  });
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
