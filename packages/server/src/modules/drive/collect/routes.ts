import type { FastifyInstance, FastifyRequest } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf, PageQuery } from '../../../platform/http/schemas.ts';
import { readFilePart } from '../../files/index.ts';
import { visitor } from '../public/routes.ts';
import { goneLink, TokenParams } from '../public/schemas.ts';
import { shareSessionCookieDocs } from '../public/session-cookie.ts';
import { type CollectService, SUBMISSION_WINDOW_SECONDS, SUBMISSIONS_PER_WINDOW } from './collect-service.ts';
import { SubmissionForm, SubmissionReceipt, SubmissionView } from './schemas.ts';

/** Collection links: the anonymous submission and the records its creator reads. */
export function collectRoutes(app: FastifyInstance, collect: CollectService) {
  route(app, {
    method: 'POST',
    url: '/api/drive/public/shares/:token/submissions',
    operation: 'drive.public_share.submit',
    auth: 'public',
    feature: 'drive',
    errors: [401, 429], // a password-protected link without its session; too many submissions
    responses: goneLink,
    status: 201,
    consumes: ['multipart/form-data'],
    schema: {
      tags: ['DriveSharePublic'],
      summary: 'Submit one file to a collection link (multipart: submitterName, note, then the file)',
      description:
        'The fields count only when sent before the file part. The file lands in the link’s folder as its creator’s, ' +
        'renamed "a (1).txt" when the name is taken. Refused with nothing kept: 413 drive.too_large past the link’s ' +
        'maxFileSizeMb; 400 drive.collect_extension_not_allowed; 400 files.blocked_type (the tenant’s blockedExtensions, ' +
        'executable content); 400 request.validation_failed (submitterName required); 409 drive.collect_limit_reached ' +
        '(maxFiles, maxTotalMb); 413 drive.quota_exceeded. ' +
        `${SUBMISSIONS_PER_WINDOW} submissions per link and address in ${SUBMISSION_WINDOW_SECONDS / 60} minutes, then 429 ` +
        'drive.collect_too_many_submissions with Retry-After. X-Share-Session, or the atrium_share_session cookie with ' +
        'X-Requested-With: the access session of a password link.',
      params: TokenParams,
      body: SubmissionForm,
      response: SubmissionReceipt,
    },
    cookies: { reads: shareSessionCookieDocs.reads },
    handler: async (req) => {
      const plan = await collect.prepare(req.params.token, visitor(req));
      const part = await readFilePart(req as unknown as FastifyRequest, plan.limits, plan.tooLarge);
      return collect.submit(plan, part);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/share-links/:id/submissions',
    operation: 'drive.share_link.submissions',
    auth: 'user',
    permission: 'drive:node:view',
    feature: 'drive',
    schema: {
      tags: ['DriveShareLinks'],
      summary: 'What a collection link received, newest first (its creator or a manager of the folder)',
      description:
        'Records stay after their file is purged (nodeId null, purged true). Anyone else, and a share link, get 404 ' +
        'drive.share_link_not_found.',
      params: IdParams,
      querystring: PageQuery,
      response: PageOf(SubmissionView),
    },
    handler: async (req) => collect.records(req.scope, req.params.id, req.query),
  });
}
