import { driveErrors } from './errors.ts';
import type { DriveRole } from './tables.ts';

/**
 * The four collaboration roles and what each may do (spec §5.5). Every drive operation names its
 * operation here and `assertAllowed` is the one place the matrix is enforced.
 */
export const DRIVE_ROLES = ['viewer', 'downloader', 'editor', 'manager'] as const satisfies readonly DriveRole[];

/** 1 (viewer) … 4 (manager); 0 for no role. */
export const roleRank = (role: DriveRole | null | undefined): number => (role ? DRIVE_ROLES.indexOf(role) + 1 : 0);
export const roleOfRank = (rank: number): DriveRole | null => DRIVE_ROLES[rank - 1] ?? null;

/** The higher of two roles (null: none). */
export function maxRole(a: DriveRole | null, b: DriveRole | null): DriveRole | null {
  return roleRank(a) >= roleRank(b) ? a : b;
}

/** The least role each operation needs. */
export const OPERATION_ROLE = {
  browse: 'viewer',
  preview: 'viewer',
  download: 'downloader',
  zip: 'downloader',
  upload: 'editor',
  create: 'editor',
  rename: 'editor',
  move: 'editor',
  copy: 'editor',
  delete: 'editor',
  restore: 'editor',
  version: 'editor',
  share: 'editor',
  lock: 'editor',
  grant: 'manager',
  inherit: 'manager',
  purge: 'manager',
  manageLinks: 'manager',
  members: 'manager',
  breakLock: 'manager',
  archive: 'manager',
  space: 'manager',
  /** deleting a whole space: a manager gate, then the space service asks for the owner or an administrator */
  deleteSpace: 'manager',
} as const satisfies Record<string, DriveRole>;

export type DriveOperation = keyof typeof OPERATION_ROLE;

/**
 * Operations an archived (read-only) space still allows: reads, unarchive, deleting the whole space,
 * and copying out (it reads the source only; the target's own `create` check refuses a copy into an
 * archived space).
 */
const READ_ONLY: ReadonlySet<DriveOperation> = new Set([
  'browse',
  'preview',
  'download',
  'zip',
  'copy',
  'archive',
  'deleteSpace',
]);

export function allows(role: DriveRole | null, op: DriveOperation): boolean {
  return roleRank(role) >= roleRank(OPERATION_ROLE[op]);
}

/**
 * Refuses `op` for `role`: no role at all is a 404 (the node's existence is not revealed), a
 * role too low a 403 naming the role needed, and a write in an archived space a 409.
 */
export function assertAllowed(role: DriveRole | null, op: DriveOperation, opts: { archived?: boolean } = {}): void {
  if (role === null) throw driveErrors.nodeNotFound();
  if (!allows(role, op)) throw driveErrors.roleTooLow(op, OPERATION_ROLE[op], role);
  if (opts.archived && !READ_ONLY.has(op)) throw driveErrors.spaceArchived();
}
