import type { FastifyBaseLogger } from 'fastify';
import type { Scope, UserPrincipal } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { Page, PageRequest } from '../../../platform/db/scoped.ts';
import { AppError, httpErrors } from '../../../platform/http/errors.ts';
import { endsWithExtension, type FilePart } from '../../files/index.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { createLinkAccess, type ResolvedLink, type Visitor } from '../public/link-access.ts';
import { logShareAccess } from '../public/public-repository.ts';
import type { DriveSettings } from '../settings.ts';
import { type CollectPolicy, MB, policyOf, remaining } from '../shares/collect-policy.ts';
import { findLink } from '../shares/shares-repository.ts';
import type { SharesService } from '../shares/shares-service.ts';
import { findSpace, type SpaceRow } from '../spaces/space-repository.ts';
import type { Placed, UploadsService } from '../uploads/uploads-service.ts';
import * as repo from './collect-repository.ts';

/**
 * Collection links (issue 15 item 3): anyone with the token uploads files into the link's
 * folder, one per request, never lists or downloads. The file is the link creator's (created_by,
 * quota of the space), lands with keep-both renaming through the drive's own upload path
 * (blocked extensions, executable headers, hashing), and in the transaction that places it the
 * link's cumulative counters move (conditionally) and a record is written that outlives the file.
 */

/** Submissions per link and address in one window (counted before the body is read, refused ones too). */
export const SUBMISSIONS_PER_WINDOW = 60;
export const SUBMISSION_WINDOW_SECONDS = 10 * 60;
export const submissionsKey = (linkId: number, ip: string) => `drive:collect-submit:${linkId}:${ip}`;

export const MAX_SUBMITTER_NAME = 100;
export const MAX_NOTE = 300;

/** What a submission was checked for before its body is read. */
export type SubmissionPlan = {
  r: ResolvedLink;
  visitor: Visitor;
  policy: CollectPolicy;
  space: SpaceRow;
  creator: DriveCaller;
  maxMb: number;
  /** for the multipart reader: one file of at most the link's size */
  limits: { maxBytes: number; singleBytes: number };
  tooLarge: (limit: number) => AppError;
};

export function toSubmissionView(row: repo.SubmissionWithNode) {
  const s = row.submission;
  return {
    id: s.id,
    nodeId: row.nodeExists ? s.nodeId : null,
    purged: !row.nodeExists,
    inRecycleBin: row.nodeExists && row.nodeDeleted,
    fileName: s.fileName,
    originalName: s.originalName,
    size: s.size,
    sha256: s.sha256,
    submitterName: s.submitterName,
    note: s.note,
    ip: s.ip,
    userAgent: s.userAgent,
    createdAt: s.createdAt,
  };
}
export type SubmissionView = ReturnType<typeof toSubmissionView>;

export function createCollectService(
  core: DriveCore & { log: FastifyBaseLogger },
  deps: { uploads: UploadsService; shares: SharesService },
) {
  const { db, cache, access, log } = core;
  const links = createLinkAccess(core);

  /** The creator as the drive sees them: the files are theirs; a creator no longer active ends the link. */
  async function creatorOf(r: ResolvedLink): Promise<DriveCaller> {
    const principal: UserPrincipal = {
      kind: 'user',
      userId: r.link.createdBy,
      tenantId: r.link.tenantId,
      username: '',
      isSuper: false,
      permissions: new Set(),
      sessionId: 0,
    };
    try {
      return await access.caller({ ...r.scope, principal });
    } catch (err) {
      if (err instanceof AppError && err.status === 401) throw driveErrors.shareNotFound();
      throw err;
    }
  }

  /** The field a submission names its text in (sent before the file part), trimmed; null when empty. */
  function field(part: FilePart, name: string, max: number): string | null {
    const value = (part.fields[name] ?? '').trim();
    if (value.length > max) throw httpErrors.invalidField(name, `must be at most ${max} characters`);
    return value.length > 0 ? value : null;
  }

  /** After the file committed: its creator hears of it (a failure here must not fail the submission). */
  async function notifyCreator(plan: SubmissionPlan, fileName: string, submitter: string | null) {
    const { link, node } = plan.r;
    try {
      await core.notify('drive.collect.received', {
        tenantId: link.tenantId,
        recipients: [{ type: 'user', id: link.createdBy }],
        variables: { linkName: link.title || node.name, fileName, submitter: submitter ?? 'Someone' },
        link: `/drive?space=${link.spaceId}&node=${node.id}`,
      });
    } catch (err) {
      log.error({ err, linkId: link.id }, 'drive: the collection notification failed');
    }
  }

  return {
    /**
     * Everything a submission is checked for before its body is read: the link's rules (and
     * its password session), the rate limit, a cumulative limit reached already.
     */
    async prepare(token: string, visitor: Visitor): Promise<SubmissionPlan> {
      const r = await links.open(token, visitor, 'collect');
      const attempt = await cache.incr(submissionsKey(r.link.id, visitor.ip), SUBMISSION_WINDOW_SECONDS);
      if (attempt.count > SUBMISSIONS_PER_WINDOW) throw driveErrors.collectTooManySubmissions(attempt.ttl);
      const policy = policyOf(r.link);
      const left = remaining(r.link);
      if (left.files === 0) throw driveErrors.collectLimitReached('files', policy.maxFiles ?? 0);
      if (left.bytes === 0) throw driveErrors.collectLimitReached('bytes', policy.maxTotalMb ?? 0);
      const space = await findSpace(db, r.scope, r.link.spaceId);
      if (!space || r.node.type !== 'folder') throw driveErrors.nodeNotFound();
      if (space.archivedAt !== null) throw driveErrors.spaceArchived();
      // a full space refuses before any byte is read (the charge in the transaction is the real check)
      const quota = await core.usage.quotaOf(space);
      const used = space.usedBytes + space.reservedBytes;
      if (quota > 0 && used >= quota) throw driveErrors.quotaExceeded(quota, used, 1);
      const settings = await core.settings.effective<DriveSettings>('drive', r.link.tenantId);
      // the tenant may have lowered its cap since the link was made
      const maxMb = Math.min(policy.maxFileSizeMb, settings.collectMaxFileSizeMb);
      const bytes = maxMb * MB;
      return {
        r,
        visitor,
        policy,
        space,
        creator: await creatorOf(r),
        maxMb,
        limits: { maxBytes: bytes, singleBytes: bytes },
        tooLarge: () => driveErrors.tooLarge(maxMb),
      };
    },

    /** One file into the link's folder; the record, the counters and the log row commit with it. */
    async submit(plan: SubmissionPlan, part: FilePart) {
      const { r, policy, visitor } = plan;
      let submitterName: string | null;
      let note: string | null;
      try {
        submitterName = field(part, 'submitterName', MAX_SUBMITTER_NAME);
        note = field(part, 'note', MAX_NOTE);
        if (policy.requireName && submitterName === null)
          throw httpErrors.invalidField(
            'submitterName',
            'is required by this collection link (send it before the file)',
          );
        if (policy.allowedExtensions.length > 0 && !endsWithExtension(part.name, policy.allowedExtensions))
          throw driveErrors.collectExtensionNotAllowed(policy.allowedExtensions);
      } catch (err) {
        part.body.destroy();
        throw err;
      }
      let totals: { collectFileCount: number; collectBytes: number } | null = null;
      const within = async (tx: Db, placed: Placed) => {
        const { node } = placed;
        totals = await repo.countSubmission(tx, r.link.id, node.size);
        if (!totals) throw await refusal(tx, r);
        await repo.insertSubmission(tx, r.scope, {
          linkId: r.link.id,
          spaceId: r.link.spaceId,
          nodeId: node.id,
          fileName: node.name,
          originalName: part.name,
          size: node.size,
          sha256: node.sha256 ?? '',
          submitterName,
          note,
          ip: visitor.ip,
          userAgent: visitor.userAgent,
        });
        await logShareAccess(tx, r.link, {
          nodeId: node.id,
          event: 'upload',
          ip: visitor.ip,
          userAgent: visitor.userAgent,
          detail: { fileName: node.name, size: node.size },
        });
      };
      const placed = await deps.uploads.receive(plan.creator, { space: plan.space, folder: r.node }, part, {
        maxBytes: plan.limits.maxBytes,
        tooLarge: plan.tooLarge,
        detail: { via: 'collect', linkId: r.link.id, submitterName },
        within,
      });
      await notifyCreator(plan, placed.node.name, submitterName);
      const left = remaining({ ...r.link, ...(totals ?? {}) });
      return {
        fileName: placed.node.name,
        originalName: part.name,
        size: placed.node.size,
        sha256: placed.node.sha256 ?? '',
        remainingFiles: left.files,
        remainingBytes: left.bytes,
      };
    },

    /** GET /share-links/{id}/submissions: the records of a collection link, to its creator and the folder's managers. */
    async records(scope: Scope, id: number, page: PageRequest): Promise<Page<SubmissionView>> {
      const { link } = await deps.shares.readable(scope, id);
      if (link.kind !== 'collect') throw driveErrors.shareLinkNotFound();
      const p = await repo.pageOfSubmissions(db, scope, link.id, page);
      return { ...p, list: p.list.map(toSubmissionView) };
    },
  };
}

/** Why the conditional count refused: the link was revoked meanwhile, or which cumulative limit is reached. */
async function refusal(tx: Db, r: ResolvedLink): Promise<AppError> {
  const now = await findLink(tx, r.scope, r.link.id);
  if (!now || now.status === 'revoked') return driveErrors.shareRevoked();
  const policy = policyOf(now);
  if (policy.maxFiles !== null && now.collectFileCount >= policy.maxFiles)
    return driveErrors.collectLimitReached('files', policy.maxFiles);
  return driveErrors.collectLimitReached('bytes', policy.maxTotalMb ?? 0);
}

export type CollectService = ReturnType<typeof createCollectService>;
