import type { Scope } from '../../../platform/auth/principal.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { DriveSettings } from '../settings.ts';
import type { DriveRole, SpaceType } from '../tables.ts';
import { createSpaceAutomatically, MAX_SPACE_NAME, personalSpaceOf } from './auto-spaces-service.ts';
import * as members from './members-repository.ts';
import type { NewSpace, SpaceRow } from './space-repository.ts';
import * as repo from './space-repository.ts';

/**
 * Spaces (spec §2.2, §3.5, §4.3, §5.5): "my spaces" (the personal space, and the department's
 * when the setting says so, created on first access), creation, settings, archive, deletion and
 * ownership transfer. Every gate goes through the access service; every write records an
 * activity in its transaction.
 */
export type SpaceCreate = {
  type: 'team' | 'department';
  name: string;
  description?: string;
  departmentId?: number;
  defaultMemberRole?: DriveRole | null;
  quotaBytes?: number | null;
  maxVersions?: number | null;
  externalShareEnabled?: boolean;
};
export type SpaceUpdate = Partial<
  Pick<
    SpaceCreate,
    'name' | 'description' | 'defaultMemberRole' | 'quotaBytes' | 'maxVersions' | 'externalShareEnabled'
  >
>;
export type SpaceQuery = PageRequest & { type?: SpaceType; includeArchived?: boolean; all?: boolean };

export type SpaceView = ReturnType<typeof toSpaceView>;

export function toSpaceView(
  space: SpaceRow,
  effective: { quotaBytes: number; maxVersions: number },
  myRole: DriveRole | null,
) {
  return {
    id: space.id,
    type: space.type,
    name: space.name,
    description: space.description,
    ownerUserId: space.ownerUserId,
    departmentId: space.departmentId,
    defaultMemberRole: space.defaultMemberRole,
    quotaBytes: effective.quotaBytes,
    usedBytes: space.usedBytes,
    reservedBytes: space.reservedBytes,
    maxVersions: effective.maxVersions,
    externalShareEnabled: space.externalShareEnabled,
    archivedAt: space.archivedAt,
    createdAt: space.createdAt,
    myRole,
  };
}

const UPDATABLE = [
  'name',
  'description',
  'defaultMemberRole',
  'quotaBytes',
  'maxVersions',
  'externalShareEnabled',
] as const satisfies readonly (keyof SpaceUpdate)[];

/** A space name as stored: trimmed, never blank. */
function spaceName(raw: string): string {
  const name = raw.trim();
  if (!name) throw httpErrors.invalidField('name', 'must not be blank');
  return name;
}

export function createSpacesService(core: DriveCore) {
  const { db, access, activities, usage, directory, clock } = core;

  async function viewOf(c: DriveCaller, space: SpaceRow): Promise<SpaceView> {
    const [quotaBytes, maxVersions, role] = await Promise.all([
      usage.quotaOf(space),
      usage.maxVersionsOf(space),
      access.spaceRole(c, space),
    ]);
    return toSpaceView(space, { quotaBytes, maxVersions }, role);
  }

  /** The personal space, and the department's when `departmentSpaceAutoCreate` is on (spec §2.2). */
  async function ensureMySpaces(c: DriveCaller) {
    const { scope } = c;
    await personalSpaceOf(core, c);
    const departmentId = c.subjects.departmentId;
    if (departmentId === null) return;
    const settings = await core.settings.effective<DriveSettings>('drive', scope.tenantId);
    if (!settings.departmentSpaceAutoCreate || (await repo.findDepartmentSpace(db, scope, departmentId))) return;
    const [dept] = await directory.describeSubjects(scope.tenantId, [{ type: 'department', id: departmentId }]);
    if (!dept) return;
    await createSpaceAutomatically(core, scope, {
      type: 'department',
      name: dept.name.slice(0, MAX_SPACE_NAME),
      departmentId,
      // the members of the department see its space; the head (manager) raises roles as needed
      defaultMemberRole: 'viewer',
      createdBy: c.userId,
    });
  }

  /** Only the owner of a team space, or a drive administrator, deletes or gives it away. */
  function assertOwnerOrAdmin(c: DriveCaller, space: SpaceRow, action: 'delete' | 'transfer') {
    if (space.type === 'personal') throw driveErrors.personalSpace(action === 'delete' ? 'be deleted' : 'change owner');
    if (c.admin) return;
    if (space.type === 'department') throw driveErrors.adminRequired(`${action} a department space`);
    if (space.ownerUserId !== c.userId) throw driveErrors.ownerRequired(`${action} this space`);
  }

  async function setArchived(scope: Scope, id: number, archived: boolean): Promise<SpaceView> {
    const c = await access.caller(scope);
    const { space } = await access.authorizeSpace(c, id, 'archive');
    if (space.type === 'personal') throw driveErrors.personalSpace(archived ? 'be archived' : 'be unarchived');
    const changed = await db.transaction(async (tx) => {
      const row = await repo.setArchived(tx, scope, id, archived, clock());
      if (row) {
        await activities.record(tx, scope, [
          { spaceId: id, nodeId: null, action: archived ? 'space.archive' : 'space.unarchive' },
        ]);
      }
      return row;
    });
    return viewOf(c, changed ?? space);
  }

  return {
    /** The caller's spaces (or, for a drive administrator with `all`, every space of the tenant). */
    async list(scope: Scope, q: SpaceQuery) {
      const c = await access.caller(scope);
      if (q.all && !c.admin) throw driveErrors.adminRequired('list every space of the tenant', 'all');
      await ensureMySpaces(c);
      const viewer = q.all ? undefined : { set: c.set, userId: c.userId, headOf: c.subjects.headOfDepartmentIds };
      const page = await repo.pageSpaces(db, scope, q, {
        type: q.type,
        includeArchived: q.includeArchived,
        viewer,
      });
      return { ...page, list: await Promise.all(page.list.map((s) => viewOf(c, s))) };
    },

    async get(scope: Scope, id: number) {
      const c = await access.caller(scope);
      const { space } = await access.authorizeSpace(c, id, 'browse');
      const [view, breakdown] = await Promise.all([viewOf(c, space), usage.breakdown(space)]);
      return { ...view, usage: breakdown };
    },

    /** A team space owned by the caller, or (drive administrators) a department's space. */
    async create(scope: Scope, input: SpaceCreate): Promise<SpaceView> {
      const c = await access.caller(scope);
      if (input.type === 'department' && !c.admin) throw driveErrors.adminRequired('create a department space', 'type');
      if (input.quotaBytes !== undefined && !c.admin) throw driveErrors.adminRequired('set a quota', 'quotaBytes');
      const name = spaceName(input.name);
      if (input.type === 'department') {
        if (input.departmentId === undefined)
          throw httpErrors.invalidField('departmentId', 'is required for a department space');
        const [dept] = await directory.describeSubjects(scope.tenantId, [
          { type: 'department', id: input.departmentId },
        ]);
        if (!dept) throw driveErrors.subjectNotFound('departmentId');
      } else if (input.departmentId !== undefined) {
        throw httpErrors.invalidField('departmentId', 'only a department space has a department');
      }
      const space = await db.transaction(async (tx) => {
        const row = await onUniqueViolation(
          repo.insertSpace(tx, scope, {
            type: input.type,
            name,
            description: input.description ?? '',
            ownerUserId: input.type === 'team' ? c.userId : null,
            departmentId: input.type === 'department' ? (input.departmentId ?? null) : null,
            defaultMemberRole: input.defaultMemberRole ?? null,
            quotaBytes: input.quotaBytes ?? null,
            maxVersions: input.maxVersions ?? null,
            externalShareEnabled: input.externalShareEnabled ?? true,
            createdBy: c.userId,
          }),
          () => driveErrors.departmentSpaceExists(),
        );
        await activities.record(tx, scope, [
          { spaceId: row.id, nodeId: null, action: 'space.create', detail: { type: row.type, name } },
        ]);
        return row;
      });
      return viewOf(c, space);
    },

    /** A manager changes the space's settings; the quota is the drive administrators'. */
    async update(scope: Scope, id: number, input: SpaceUpdate): Promise<SpaceView> {
      const c = await access.caller(scope);
      const { space } = await access.authorizeSpace(c, id, 'space');
      if (input.quotaBytes !== undefined && !c.admin) throw driveErrors.adminRequired('change the quota', 'quotaBytes');
      if (space.type === 'personal' && input.defaultMemberRole)
        throw driveErrors.personalSpace('have a default member role');
      // only the fields of the update, whatever else the body carries
      const patch: Partial<NewSpace> = {};
      for (const k of UPDATABLE) if (input[k] !== undefined) Object.assign(patch, { [k]: input[k] });
      if (input.name !== undefined) patch.name = spaceName(input.name);
      if (Object.keys(patch).length === 0) return viewOf(c, space);
      const updated = await db.transaction(async (tx) => {
        const row = await repo.updateSpace(tx, scope, id, { ...patch, updatedAt: clock() });
        if (!row) throw driveErrors.spaceNotFound();
        await activities.record(tx, scope, [
          { spaceId: id, nodeId: null, action: 'space.update', detail: { fields: Object.keys(patch) } },
        ]);
        return row;
      });
      // a lower quota may cross the warning threshold (or a higher one re-arm it)
      if (input.quotaBytes !== undefined) await usage.checkWarning(scope, id);
      return viewOf(c, updated);
    },

    /**
     * Deletes a team or department space with everything in it, in one transaction: every
     * version's managed-file reference is dropped (storage collects the bytes), then the space
     * row goes and its nodes, members and grants cascade. Refused while a node is under a legal hold.
     */
    async remove(scope: Scope, id: number): Promise<void> {
      const c = await access.caller(scope);
      const { space } = await access.authorizeSpace(c, id, 'deleteSpace');
      assertOwnerOrAdmin(c, space, 'delete');
      await db.transaction(async (tx) => {
        // the lock waits for uploads charging this space and keeps new ones out until the end
        if (!(await repo.lockSpace(tx, scope, id))) throw driveErrors.spaceNotFound();
        const held = await repo.heldNodeOfSpace(tx, id);
        if (held) throw driveErrors.held(held.name);
        await core.versions.purge(tx, scope, id, await repo.nodeIdsOfSpace(tx, id));
        await activities.record(tx, scope, [
          { spaceId: id, nodeId: null, action: 'space.delete', detail: { type: space.type, name: space.name } },
        ]);
        await repo.deleteSpace(tx, scope, id);
      });
    },

    archive: (scope: Scope, id: number) => setArchived(scope, id, true),
    unarchive: (scope: Scope, id: number) => setArchived(scope, id, false),

    /**
     * Gives a team space to another active user of the tenant (spec §4.3 ownership transfer).
     * The previous owner stays a manager through a member row, in the same transaction.
     */
    async transfer(scope: Scope, id: number, userId: number): Promise<SpaceView> {
      const c = await access.caller(scope);
      const { space } = await access.authorizeSpace(c, id, 'space');
      if (space.type === 'department') throw driveErrors.departmentSpace('change owner');
      assertOwnerOrAdmin(c, space, 'transfer');
      if (!(await directory.grantSubjectsOfUser(scope.tenantId, userId))) throw driveErrors.userNotFound('userId');
      if (space.ownerUserId === userId) return viewOf(c, space);
      const updated = await db.transaction(async (tx) => {
        const locked = await repo.lockSpace(tx, scope, id);
        if (!locked) throw driveErrors.spaceNotFound();
        const previous = locked.ownerUserId;
        const row = (await repo.updateSpace(tx, scope, id, { ownerUserId: userId, updatedAt: clock() })) as SpaceRow;
        if (previous !== null) await members.upsertManager(tx, scope, id, previous, c.userId);
        await activities.record(tx, scope, [
          { spaceId: id, nodeId: null, action: 'space.transfer', detail: { fromUserId: previous, toUserId: userId } },
        ]);
        return row;
      });
      return viewOf(c, updated);
    },
  };
}

export type SpacesService = ReturnType<typeof createSpacesService>;
