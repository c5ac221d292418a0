import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { GrantSubject } from '../drive/index.ts';
import type { AudienceTarget } from '../messaging/index.ts';
import { findTenantByCode, findTenantById } from './auth-repository.ts';
import * as contacts from './contacts-repository.ts';
import * as subjects from './grant-subjects-repository.ts';
import { toOAuthSubject } from './oauth-subject.ts';
import { identityStats, signInsByDay } from './stats-repository.ts';
import { platformAdminIds } from './tenant-expiry-repository.ts';
import { findUserWithTenant } from './users-repository.ts';

/** What other modules ask of identity (wired in app.ts): tenants by code, contacts, audiences, subjects, totals. */
export function createDirectoryService({ db, clock, config }: Pick<AppContext, 'db' | 'clock' | 'config'>) {
  return {
    /** The id of an active-or-not tenant by its code, for public pages (login, public settings). */
    tenantIdByCode: async (code: string) => (await findTenantByCode(db, code))?.id ?? null,
    /** The code people sign in with, for the OAuth consent page (which tenant an application is in). */
    tenantCodeById: async (id: number) => (await findTenantById(db, id))?.code ?? null,
    /** for the notification center: contact details, and announcement audiences */
    userContacts: (tenantId: number | null, ids: number[]) => contacts.userContacts(db, tenantId, ids),
    usersByTargets: (tenantId: number | null, targets: AudienceTarget[]) =>
      contacts.usersByTargets(db, tenantId, targets),
    targetsOfUser: (userId: number) => contacts.targetsOfUser(db, userId),
    missingTargets: (tenantId: number | null, targets: AudienceTarget[]) =>
      contacts.missingTargets(db, tenantId, targets),
    activeUsers: (tenantId: number | null) => contacts.activeUsers(db, tenantId),
    /** for the OAuth server: the subject of a grant (null when the user is gone) */
    async oauthSubject(userId: number) {
      const row = await findUserWithTenant(db, userId);
      return row ? toOAuthSubject(row, clock()) : null;
    },
    /** who platform-wide alerts go to: the active platform super administrators */
    platformAdmins: () => platformAdminIds(db),
    /** for the drive: a user as a grant subject, departments, and the subjects of grants and members */
    grantSubjectsOfUser: (tenantId: number | null, userId: number) =>
      subjects.grantSubjectsOfUser(db, tenantId, userId),
    departmentChain: (tenantId: number | null, departmentId: number) =>
      subjects.departmentChain(db, tenantId, departmentId),
    departmentHead: (tenantId: number | null, departmentId: number) =>
      subjects.departmentHead(db, tenantId, departmentId),
    describeSubjects: (tenantId: number | null, list: GrantSubject[]) => subjects.describeSubjects(db, tenantId, list),
    usersOfSubject: (tenantId: number | null, subject: GrantSubject) => subjects.usersOfSubject(db, tenantId, subject),
    /** for the dashboard: users, online users (within the access-token lifetime), today's sign-ins */
    identityStats: (scope: Pick<Scope, 'tenantId'>, now: Date) =>
      identityStats(db, scope, now, config.accessTokenTtlSeconds),
    /** for the dashboard's trend: sign-ins per UTC day in [from, to), succeeded and failed */
    signInsByDay: (scope: Pick<Scope, 'tenantId'>, from: Date, to: Date) => signInsByDay(db, scope, from, to),
  };
}
