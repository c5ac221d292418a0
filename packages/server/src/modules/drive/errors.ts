import { AppError, httpErrors } from '../../platform/http/errors.ts';

/** The drive's errors: `drive.<reason>`. */
export const driveErrors = {
  spaceNotFound: () => httpErrors.notFound('drive.space_not_found', 'Space'),
  nodeNotFound: () => httpErrors.notFound('drive.node_not_found', 'Node'),
  /** a batch naming ids that do not exist, are not visible to the caller or are in another state */
  nodesNotFound: (ids: number[]) =>
    new AppError(404, 'drive.node_not_found', `Node not found: ${ids.join(', ')}`, {
      details: ids.map((id) => ({ field: 'ids', message: `${id} not found` })),
    }),
  memberNotFound: () => httpErrors.notFound('drive.member_not_found', 'Space member'),
  grantNotFound: () => httpErrors.notFound('drive.grant_not_found', 'Grant'),
  versionNotFound: () => httpErrors.notFound('drive.version_not_found', 'Version'),
  holdNotFound: () => httpErrors.notFound('drive.legal_hold_not_found', 'Legal hold'),
  uploadNotFound: () => httpErrors.notFound('drive.upload_not_found', 'Upload'),
  subjectNotFound: (field: string) =>
    new AppError(400, 'drive.subject_not_found', 'The subject does not exist in this tenant', {
      details: [{ field, message: 'no such user, department, role or user group in this tenant' }],
    }),
  roleTooLow: (operation: string, needed: string, held: string) =>
    new AppError(403, 'drive.role_too_low', `This operation (${operation}) needs the ${needed} role; you have ${held}`),
  spaceArchived: () =>
    new AppError(409, 'drive.space_archived', 'The space is archived (read-only); unarchive it first'),
  nameTaken: (name: string) =>
    httpErrors.conflict('drive.name_taken', `An item named "${name}" already exists in this folder`, 'name'),
  notAFolder: (field: string) =>
    new AppError(400, 'drive.not_a_folder', 'The target is not a folder', {
      details: [{ field, message: 'must be a folder' }],
    }),
  notAFile: () => new AppError(400, 'drive.not_a_file', 'This operation applies to files only'),
  moveIntoItself: () =>
    new AppError(400, 'drive.move_into_subtree', 'A folder cannot be moved or copied into itself or its subtree', {
      details: [{ field: 'targetParentId', message: 'is the node itself or inside it' }],
    }),
  crossSpace: () =>
    new AppError(400, 'drive.cross_space', 'Every node of one request must be in the same space', {
      details: [{ field: 'ids', message: 'nodes of several spaces' }],
    }),
  quotaExceeded: (quotaBytes: number, usedBytes: number, neededBytes: number) =>
    new AppError(
      413,
      'drive.quota_exceeded',
      `The space quota (${quotaBytes} bytes) leaves ${Math.max(0, quotaBytes - usedBytes)} bytes; ${neededBytes} are needed`,
    ),
  locked: (holder: string, until: Date) =>
    new AppError(
      423,
      'drive.node_locked',
      `The file is checked out by ${holder} until ${until.toISOString()}; ask them to release it or a manager to break the lock`,
      { extra: { lockedBy: holder, lockExpiresAt: until.toISOString() } },
    ),
  notLockHolder: () =>
    new AppError(403, 'drive.not_lock_holder', 'Only the holder or a space manager can release this lock'),
  held: (nodeName: string) =>
    new AppError(
      409,
      'drive.legal_hold',
      `"${nodeName}" is under a legal hold: it cannot be deleted, purged or expired`,
    ),
  alreadyHeld: () => httpErrors.conflict('drive.legal_hold_exists', 'The node already has an active legal hold'),
  holdReleased: () => httpErrors.conflict('drive.legal_hold_released', 'The legal hold is already released'),
  notInRecycleBin: () => new AppError(409, 'drive.not_in_recycle_bin', 'The node is not in the recycle bin'),
  personalSpace: (what: string) => new AppError(400, 'drive.personal_space', `A personal space cannot ${what}`),
  hashMismatch: () =>
    new AppError(
      422,
      'drive.hash_mismatch',
      'The uploaded bytes do not match the declared SHA-256; the upload was aborted',
      { details: [{ field: 'contentHash', message: 'differs from the SHA-256 of the received bytes' }] },
    ),
  useChunkedUpload: (thresholdMb: number) =>
    new AppError(
      413,
      'drive.use_chunked_upload',
      `Files above ${thresholdMb} MB are uploaded in chunks (POST /api/drive/nodes/upload/init)`,
      { details: [{ field: 'file', message: `larger than ${thresholdMb} MB; use a chunked upload` }] },
    ),
  tooLarge: (maxMb: number, field = 'file') =>
    new AppError(413, 'drive.too_large', `The file is larger than the limit of ${maxMb} MB`, {
      details: [{ field, message: `must not exceed ${maxMb} MB` }],
    }),
  versionIsCurrent: () =>
    new AppError(409, 'drive.version_is_current', 'This version is already the current one', {
      details: [{ field: 'versionId', message: 'is the current version' }],
    }),
  grantExists: () =>
    httpErrors.conflict(
      'drive.grant_exists',
      'The subject already has a grant on this node; change it (PUT) instead',
      'subjectId',
    ),
  memberExists: () =>
    httpErrors.conflict('drive.member_exists', 'The subject is already a member of this space', 'subjectId'),
  adminRequired: (what: string, field?: string) =>
    new AppError(
      403,
      'drive.admin_required',
      `Only a drive administrator can ${what}`,
      field
        ? { details: [{ field, message: 'needs the drive administrator permission (drive:admin:space:edit)' }] }
        : {},
    ),
  ownerRequired: (what: string) =>
    new AppError(403, 'drive.owner_required', `Only the space owner or a drive administrator can ${what}`),
  departmentSpace: (what: string) =>
    new AppError(400, 'drive.department_space', `A department space cannot ${what}: its department head manages it`),
  departmentSpaceExists: () =>
    httpErrors.conflict('drive.department_space_exists', 'The department already has a space', 'departmentId'),
  accessRequestNotFound: () => httpErrors.notFound('drive.access_request_not_found', 'Access request'),
  accessAlreadyGranted: (held: string) =>
    httpErrors.conflict(
      'drive.access_already_granted',
      `You already have the ${held} role on this node, which covers the role asked for`,
      'role',
    ),
  accessRequestPending: () =>
    httpErrors.conflict(
      'drive.access_request_pending',
      'You already have a pending request for this node; withdraw it or wait for an answer',
      'nodeId',
    ),
  accessRequestDecided: (status: string) =>
    httpErrors.conflict('drive.access_request_decided', `The request is no longer pending (it was ${status})`),
  notRequester: () =>
    new AppError(403, 'drive.not_requester', 'Only the person who asked can withdraw an access request'),
  shareLinkNotFound: () => httpErrors.notFound('drive.share_link_not_found', 'Share link'),
  shareLinkRevoked: () =>
    new AppError(409, 'drive.share_link_revoked', 'The share link is revoked; create a new one instead'),
  externalShareDisabled: () =>
    new AppError(
      403,
      'drive.external_share_disabled',
      'Sharing links outside the company is turned off for this space',
    ),
  userNotFound: (field: string) =>
    new AppError(400, 'drive.user_not_found', 'No active user with this id in this tenant', {
      details: [{ field, message: 'no active user with this id in this tenant' }],
    }),
  // anonymous share links (public/)
  shareNotFound: () => httpErrors.notFound('drive.share_not_found', 'Share link'),
  shareRevoked: () => new AppError(410, 'drive.share_revoked', 'This share link has been revoked'),
  shareExpired: () => new AppError(410, 'drive.share_expired', 'This share link has expired'),
  shareExhausted: (what: 'access' | 'download') =>
    new AppError(410, 'drive.share_exhausted', `This share link has reached its ${what} limit`),
  shareDisabled: () => new AppError(403, 'drive.share_disabled', 'External sharing is turned off for this content'),
  shareIpDenied: () => new AppError(403, 'drive.share_ip_denied', 'This share link cannot be opened from your address'),
  shareWrongPassword: () => new AppError(401, 'drive.share_wrong_password', 'The password is not correct'),
  sharePasswordRequired: () =>
    new AppError(
      401,
      'drive.share_password_required',
      'This share link has a password: send it to /password, then the session token as X-Share-Session ' +
        '(a web page: open it with cookie: true and the browser sends the session cookie)',
    ),
  sharePreviewOnly: () =>
    new AppError(403, 'drive.share_preview_only', 'This share link allows previewing only, not downloading'),
  // collection links (collect/)
  collectExtensionNotAllowed: (allowed: string[]) =>
    new AppError(400, 'drive.collect_extension_not_allowed', 'This collection link does not take files of this type', {
      details: [{ field: 'file', message: `the extension must be one of: ${allowed.join(', ')}` }],
    }),
  collectLimitReached: (what: 'files' | 'bytes', limit: number) =>
    new AppError(
      409,
      'drive.collect_limit_reached',
      what === 'files'
        ? `This collection link has received all the files it takes (${limit})`
        : `This file does not fit in what the collection link still takes (${limit} MB in all)`,
      {
        details: [
          { field: 'file', message: what === 'files' ? 'no more files are taken' : 'too large for what is left' },
        ],
      },
    ),
  collectTooManySubmissions: (retryAfter: number) =>
    new AppError(
      429,
      'drive.collect_too_many_submissions',
      'Too many submissions from your address to this link; try again later',
      { retryAfter },
    ),
  sharePreviewNotAllowed: () =>
    new AppError(403, 'drive.share_preview_not_allowed', 'This share link does not allow previews'),
  // previews (previews/)
  /** a type without a preview and no ready rendition yet: the client shows the metadata instead */
  previewUnavailable: (node: { id: number; name: string; mime: string | null; size: number; updatedAt: Date }) =>
    new AppError(415, 'drive.preview_unavailable', 'There is no preview for this type of file', {
      extra: { node: { ...node, updatedAt: node.updatedAt.toISOString() } },
    }),
  previewUnreadable: () =>
    new AppError(422, 'drive.preview_unreadable', 'The file is not a readable image, so it has no preview'),
  previewTooLarge: (limit: string) =>
    new AppError(422, 'drive.preview_too_large', `The image is too large to preview (limit: ${limit})`),
  previewBusy: () =>
    new AppError(503, 'drive.preview_busy', 'Too many previews are being prepared; try again shortly', {
      retryAfter: 2,
    }),
  // short links, QR codes, save to my drive
  shortLinkMissing: () =>
    new AppError(409, 'drive.short_link_missing', 'The share link has no short link; create it first', {
      details: [{ field: 'target', message: 'short: the link has no short link' }],
    }),
  shortLinkTooManyMisses: (retryAfter: number) =>
    new AppError(
      429,
      'drive.short_link_too_many_misses',
      'Too many unknown short links from your address; try again later',
      {
        retryAfter,
      },
    ),
  shareSaveNotAllowed: () =>
    new AppError(403, 'drive.share_save_not_allowed', 'This share link does not allow saving to your drive'),
  shareSaveOtherTenant: () =>
    new AppError(
      403,
      'drive.share_save_other_tenant',
      "This share link belongs to another organisation: it can be saved only by a user of the link's own organisation",
    ),
  shareTooManyAttempts: (retryAfter: number) =>
    new AppError(429, 'drive.share_too_many_attempts', 'Too many wrong passwords; try again later', { retryAfter }),
};
