import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { rowOrThrow } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { inAppErrors } from './errors.ts';
import * as repo from './message-repository.ts';

/**
 * Reading, marking and deleting in-app messages: a signed-in user's own (`mine`), or any of the
 * tenant's (`admin`). Another user's or tenant's message is not found (404). Marking read is a
 * conditional update: `readAt` is set once, repeats change nothing.
 */
export function createMessageService(ctx: AppContext) {
  const { db, clock } = ctx;

  function me(scope: Scope): { userId: number } {
    const user = userOf(scope);
    if (!user) throw httpErrors.unauthenticated();
    return { userId: user.userId };
  }
  const anyone: repo.Owner = { userId: null };

  const findOrThrow = (scope: Scope, owner: repo.Owner, id: number) =>
    rowOrThrow(repo.findMessage(db, scope, owner, id), inAppErrors.messageNotFound);

  async function read(scope: Scope, owner: repo.Owner, id: number) {
    const [marked] = await repo.markRead(db, scope, owner, [id], clock());
    return marked ?? findOrThrow(scope, owner, id);
  }

  async function remove(scope: Scope, owner: repo.Owner, id: number) {
    const [deleted] = await repo.deleteMessages(db, scope, owner, [id]);
    if (deleted === undefined) throw inAppErrors.messageNotFound();
  }

  /** A batch is all or nothing: one id missing from the owner's messages and nothing changes. */
  async function assertAllExist(tx: Db, scope: Scope, owner: repo.Owner, ids: number[]) {
    const found = new Set(await repo.existingIds(tx, scope, owner, ids));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) throw inAppErrors.messageNotFound(missing);
  }

  return {
    mine: {
      list: (scope: Scope, q: PageRequest & repo.MessageFilter) => repo.pageMessages(db, scope, me(scope), q),
      unreadCount: async (scope: Scope) => ({ count: await repo.unreadCount(db, scope, me(scope).userId) }),
      get: (scope: Scope, id: number) => findOrThrow(scope, me(scope), id),
      read: (scope: Scope, id: number) => read(scope, me(scope), id),
      readAll: async (scope: Scope) => ({ marked: (await repo.markRead(db, scope, me(scope), null, clock())).length }),
      async readMany(scope: Scope, ids: number[]) {
        const owner = me(scope);
        return db.transaction(async (tx) => {
          await assertAllExist(tx, scope, owner, ids);
          await repo.markRead(tx, scope, owner, ids, clock());
          return { affected: ids };
        });
      },
      remove: (scope: Scope, id: number) => remove(scope, me(scope), id),
      async removeMany(scope: Scope, ids: number[]) {
        const owner = me(scope);
        return db.transaction(async (tx) => {
          const deleted = await repo.deleteMessages(tx, scope, owner, ids);
          if (deleted.length !== ids.length) {
            const gone = new Set(deleted);
            throw inAppErrors.messageNotFound(ids.filter((id) => !gone.has(id)));
          }
          return { affected: ids };
        });
      },
    },

    admin: {
      list: (scope: Scope, q: PageRequest & repo.MessageFilter) => repo.pageMessages(db, scope, anyone, q),
      read: (scope: Scope, id: number) => read(scope, anyone, id),
      /** All unread messages of one user of the tenant, or of the whole tenant. */
      async readAll(scope: Scope, userId: number | undefined) {
        const marked = await repo.markRead(db, scope, { userId: userId ?? null }, null, clock());
        return { marked: marked.length };
      },
      remove: (scope: Scope, id: number) => remove(scope, anyone, id),
    },
  };
}

export type MessageService = ReturnType<typeof createMessageService>;
