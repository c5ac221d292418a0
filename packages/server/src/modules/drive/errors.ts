import { AppError, httpErrors } from '../../platform/http/errors.ts';

/** The drive's errors: `drive.<reason>`. */
export const driveErrors = {
  spaceNotFound: () => httpErrors.notFound('drive.space_not_found', 'Space'),
  nodeNotFound: () => httpErrors.notFound('drive.node_not_found', 'Node'),
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
  notInRecycleBin: () => new AppError(409, 'drive.not_in_recycle_bin', 'The node is not in the recycle bin'),
  personalSpace: (what: string) => new AppError(400, 'drive.personal_space', `A personal space cannot ${what}`),
  hashMismatch: () =>
    new AppError(
      422,
      'drive.hash_mismatch',
      'The uploaded bytes do not match the declared SHA-256; the upload was aborted',
    ),
  grantExists: () =>
    httpErrors.conflict(
      'drive.grant_exists',
      'The subject already has a grant on this node; change it (PUT) instead',
      'subjectId',
    ),
  memberExists: () =>
    httpErrors.conflict('drive.member_exists', 'The subject is already a member of this space', 'subjectId'),
};
