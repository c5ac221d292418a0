import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { announcementErrors } from './errors.ts';
import * as repo from './inbox-repository.ts';
import type { Audience } from './service.ts';

/** Announcements as a signed-in user sees them: only those that reach them, with their read state. */
export function createInboxService(ctx: AppContext, audience: Pick<Audience, 'targetsOfUser'>) {
  const { db, clock } = ctx;

  async function viewerOf(scope: Scope): Promise<repo.Viewer> {
    const user = userOf(scope);
    if (!user) throw httpErrors.unauthenticated();
    const targets = await audience.targetsOfUser(user.userId);
    return { tenantId: scope.tenantId, userId: user.userId, targets, now: clock() };
  }

  return {
    /** newest first */
    inbox: async (scope: Scope, q: PageRequest & { isRead?: boolean; type?: string }) =>
      repo.pageVisible(db, await viewerOf(scope), q, repo.orders.newest),

    /** urgent first, then high, normal, low; newest first within a priority */
    published: async (scope: Scope, q: PageRequest & { type?: string }) =>
      repo.pageVisible(db, await viewerOf(scope), q, repo.orders.priority),

    unreadCount: async (scope: Scope) => ({ count: await repo.countUnread(db, await viewerOf(scope)) }),

    /** Idempotent: a repeat keeps the first read time. One the caller cannot see is 404. */
    async read(scope: Scope, id: number) {
      const viewer = await viewerOf(scope);
      if (!(await repo.isVisible(db, viewer, id))) throw announcementErrors.notFound();
      return { id, readAt: await repo.markRead(db, viewer, id) };
    },

    readAll: async (scope: Scope) => ({ marked: await repo.markAllRead(db, await viewerOf(scope)) }),
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
