import type { Static } from 'typebox';
import { type Scope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { hashPassword } from '../../platform/crypto/passwords.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../platform/http/errors.ts';
import type { AuthService } from './auth-service.ts';
import { identityErrors } from './errors.ts';
import type { ResetPasswordBody, UserCreateBody, UserUpdateBody } from './schemas.ts';
import type { SecuritySettings } from './security-settings.ts';
import type { Sessions } from './sessions.ts';
import type { UserFilter, UserRow, UserStatus } from './users-repository.ts';
import * as repo from './users-repository.ts';

type CreateInput = Static<typeof UserCreateBody>;
type UpdateInput = Static<typeof UserUpdateBody>;

/** What the API shows of a user: never the password hash. */
export function toUserView(u: UserRow) {
  return {
    id: u.id,
    tenantId: u.tenantId,
    username: u.username,
    nickname: u.nickname,
    email: u.email,
    phone: u.phone,
    departmentId: u.departmentId,
    status: u.status,
    isSuper: u.isSuper,
    failedLoginCount: u.failedLoginCount,
    lockedUntil: u.lockedUntil,
    lastLoginAt: u.lastLoginAt,
    lastLoginIp: u.lastLoginIp,
    remark: u.remark,
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}

/** Admin users of the caller's tenant (spec §4.7: unlock, batch delete, batch status, password reset). */
export function createUsersService({
  db,
  clock,
  settings,
  sessions,
  auth,
}: Pick<AppContext, 'db' | 'clock' | 'settings'> & { sessions: Sessions; auth: AuthService }) {
  async function load(scope: Scope, id: number): Promise<UserRow> {
    const u = await repo.usersTable.findById(db, scope, id);
    if (!u) throw identityErrors.notFound('user');
    return u;
  }

  async function assertPasswordLength(scope: Scope, field: string, password: string) {
    const { passwordMinLength } = await settings.effective<SecuritySettings>('security', scope.tenantId);
    if (password.length < passwordMinLength) throw identityErrors.weakPassword(field, passwordMinLength);
  }

  /** Referenced department, roles and positions must be rows of the caller's tenant. */
  async function assertRefs(
    scope: Scope,
    input: { departmentId?: number | null; roleIds?: number[]; positionIds?: number[] },
  ) {
    const details: FieldError[] = [];
    if (input.departmentId != null && (await repo.missingRefs(db, scope, 'department', [input.departmentId])).length) {
      details.push({ field: 'departmentId', message: `department ${input.departmentId} does not exist` });
    }
    for (const [field, kind, ids] of [
      ['roleIds', 'role', input.roleIds],
      ['positionIds', 'position', input.positionIds],
    ] as const) {
      const missing = new Set(await repo.missingRefs(db, scope, kind, ids ?? []));
      (ids ?? []).forEach((id, i) => {
        if (missing.has(id)) details.push({ field: `${field}.${i}`, message: `${kind} ${id} does not exist` });
      });
    }
    if (details.length) throw httpErrors.validation(details);
  }

  /**
   * Nobody deletes or disables their own account, and only a super administrator touches a
   * super administrator (a platform user with user permissions must not take one over).
   */
  function assertMayChange(scope: Scope, targets: UserRow[], opts: { removing: boolean; field: string }) {
    const me = userOf(scope);
    if (targets.some((t) => t.isSuper) && !me?.isSuper) throw identityErrors.superAdminProtected();
    if (opts.removing && targets.some((t) => t.id === me?.userId)) throw identityErrors.userIsSelf(opts.field);
  }

  /** All or nothing: every id must be a user of the caller's tenant. */
  async function loadAll(scope: Scope, ids: number[], single: boolean): Promise<UserRow[]> {
    const rows = await repo.findUsersByIds(db, scope, ids);
    if (rows.length !== ids.length) {
      const found = new Set(rows.map((r) => r.id));
      throw single
        ? identityErrors.notFound('user')
        : identityErrors.notFoundIds(
            'user',
            ids.filter((id) => !found.has(id)),
          );
    }
    return rows;
  }

  async function detail(scope: Scope, id: number) {
    const u = await load(scope, id);
    return { ...toUserView(u), ...(await repo.linksOf(db, u.id)) };
  }

  async function remove(scope: Scope, ids: number[], single: boolean) {
    const targets = await loadAll(scope, ids, single);
    assertMayChange(scope, targets, { removing: true, field: single ? 'id' : 'ids' });
    // Sessions go first: deleting the users cascades their session rows, which would leave
    // nothing to revoke and their open sockets connected.
    await sessions.revoke({ userIds: ids }, 'user_deleted');
    const affected = await db.transaction(async (tx) => {
      const deleted = await repo.usersTable.deleteMany(tx, scope, ids);
      if (deleted.length !== ids.length)
        throw identityErrors.notFoundIds(
          'user',
          ids.filter((id) => !deleted.includes(id)),
        );
      return deleted;
    });
    await sessions.invalidatePermissions();
    return { affected: affected.sort((a, b) => a - b) };
  }

  async function changeStatus(scope: Scope, ids: number[], status: UserStatus) {
    const targets = await loadAll(scope, ids, false);
    assertMayChange(scope, targets, { removing: status === 'disabled', field: 'ids' });
    const affected = await db.transaction(async (tx) => {
      const changed = await repo.setUsersStatus(tx, scope, ids, status, clock());
      if (changed.length !== ids.length)
        throw identityErrors.notFoundIds(
          'user',
          ids.filter((id) => !changed.includes(id)),
        );
      return changed;
    });
    if (status === 'disabled') await sessions.revoke({ userIds: ids }, 'user_disabled');
    await sessions.invalidatePermissions();
    return { affected: affected.sort((a, b) => a - b) };
  }

  return {
    async list(scope: Scope, page: PageRequest, filter: UserFilter) {
      const p = await repo.listUsers(db, scope, page, filter);
      return { ...p, list: p.list.map(toUserView) };
    },

    get: detail,

    async create(scope: Scope, input: CreateInput) {
      await assertPasswordLength(scope, 'password', input.password);
      await assertRefs(scope, input);
      const passwordHash = await hashPassword(input.password);
      const id = await onUniqueViolation(
        db.transaction(async (tx) => {
          const u = await repo.usersTable.insert(tx, scope, {
            username: input.username,
            passwordHash,
            passwordChangedAt: clock(),
            nickname: input.nickname,
            email: input.email ?? null,
            phone: input.phone ?? null,
            departmentId: input.departmentId ?? null,
            status: input.status ?? 'active',
            remark: input.remark ?? '',
          });
          await repo.replaceUserRoles(tx, scope, u.id, input.roleIds ?? []);
          await repo.replaceUserPositions(tx, scope, u.id, input.positionIds ?? []);
          return u.id;
        }),
        () => identityErrors.conflict('user', 'username'),
      );
      return detail(scope, id);
    },

    async update(scope: Scope, id: number, input: UpdateInput) {
      const target = await load(scope, id);
      assertMayChange(scope, [target], { removing: input.status === 'disabled', field: 'status' });
      await assertRefs(scope, input);
      const { roleIds, positionIds, ...fields } = input;
      await db.transaction(async (tx) => {
        await repo.usersTable.update(tx, scope, id, { ...fields, updatedAt: clock() });
        if (roleIds) await repo.replaceUserRoles(tx, scope, id, roleIds);
        if (positionIds) await repo.replaceUserPositions(tx, scope, id, positionIds);
      });
      if (input.status === 'disabled' && target.status !== 'disabled')
        await sessions.revoke({ userIds: [id] }, 'user_disabled');
      if (roleIds || input.status) await sessions.invalidatePermissions();
      return detail(scope, id);
    },

    remove: (scope: Scope, id: number) => remove(scope, [id], true),
    removeMany: (scope: Scope, ids: number[]) => remove(scope, ids, false),
    setStatusMany: (scope: Scope, ids: number[], status: UserStatus) => changeStatus(scope, ids, status),

    /** An administrator sets a new password; every sign-in of that user ends. */
    async resetPassword(scope: Scope, id: number, input: Static<typeof ResetPasswordBody>) {
      const target = await load(scope, id);
      assertMayChange(scope, [target], { removing: false, field: 'id' });
      await assertPasswordLength(scope, 'password', input.password);
      const now = clock();
      await repo.usersTable.update(db, scope, id, {
        passwordHash: await hashPassword(input.password),
        passwordChangedAt: now,
        updatedAt: now,
      });
      await sessions.revoke({ userIds: [id] }, 'password_reset');
    },

    async unlock(scope: Scope, id: number) {
      const target = await load(scope, id);
      await auth.unlock(target.id);
      return toUserView(await load(scope, id));
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
