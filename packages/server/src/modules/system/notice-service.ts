import { type Scope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { rowOrThrow } from '../../platform/db/sql.ts';
import { sanitizeRichHtml } from '../../platform/html/sanitize.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import { systemErrors } from './errors.ts';
import * as repo from './notice-repository.ts';

type NoticeType = 'notice' | 'announcement';
export type NoticeInput = { title: string; content: string; type?: NoticeType };

export const NOTICE_PUBLISHED_TOPIC = 'notice.published';

/** Notices: drafts, publication with live push to the tenant's signed-in users, withdrawal. */
export function createNoticeService(ctx: AppContext) {
  const { db, clock } = ctx;

  const noticeOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.noticeRows.findById(db, scope, id), () => systemErrors.notFound('notice'));

  /** Sanitized on save, so every reader gets safe HTML; nothing left means nothing to show. */
  async function cleanContent(html: string): Promise<string> {
    const clean = await sanitizeRichHtml(html);
    if (!clean) throw httpErrors.invalidField('content', 'is empty once unsafe markup is removed');
    return clean;
  }

  return {
    list: (scope: Scope, q: Parameters<typeof repo.pageNotices>[2]) => repo.pageNotices(db, scope, q),
    get: noticeOrThrow,
    published: (scope: Scope, q: Parameters<typeof repo.pagePublished>[2]) => repo.pagePublished(db, scope, q),

    async publishedOne(scope: Scope, id: number) {
      const row = await repo.findPublished(db, scope, id);
      if (!row) throw systemErrors.notFound('notice');
      return row;
    },

    async create(scope: Scope, input: NoticeInput) {
      const content = await cleanContent(input.content);
      return repo.noticeRows.insert(db, scope, { ...input, content, createdBy: userOf(scope)?.userId ?? null });
    },

    async update(scope: Scope, id: number, patch: Partial<NoticeInput>) {
      const current = await noticeOrThrow(scope, id);
      if (Object.keys(patch).length === 0) return current;
      const values = patch.content === undefined ? patch : { ...patch, content: await cleanContent(patch.content) };
      const row = await repo.noticeRows.update(db, scope, id, { ...values, updatedAt: clock() });
      if (!row) throw systemErrors.notFound('notice');
      return row;
    },

    async remove(scope: Scope, id: number) {
      const [deleted] = await repo.noticeRows.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw systemErrors.notFound('notice');
    },

    /** All or nothing: one id missing from the caller's tenant and nothing is deleted. */
    async removeMany(scope: Scope, ids: number[]) {
      return db.transaction(async (tx) => {
        const deleted = await repo.noticeRows.deleteMany(tx, scope, ids);
        if (deleted.length !== ids.length) {
          const missing = ids.filter((id) => !deleted.includes(id));
          throw systemErrors.notFound('notice', missing);
        }
        return { affected: ids };
      });
    },

    /**
     * Publishes and pushes `notice.published` to every signed-in user of the tenant. A repeat
     * is a no-op (conditional update): it answers the notice and pushes nothing.
     */
    async publish(scope: Scope, id: number) {
      const row = await repo.markPublished(db, scope, id, clock());
      if (!row) return noticeOrThrow(scope, id);
      try {
        await ctx.realtime.publish({
          topic: NOTICE_PUBLISHED_TOPIC,
          tenantId: scope.tenantId,
          payload: { id: row.id, title: row.title, type: row.type, publishedAt: row.publishedAt?.toISOString() },
        });
      } catch (err) {
        // The notice is published (users see it in their list); only the live push is lost.
        ctx.log.error({ err, noticeId: row.id, requestId: scope.requestId }, 'notice push failed');
      }
      return row;
    },

    /** published → withdrawn; withdrawing again is a no-op; a draft was never published (409). */
    async withdraw(scope: Scope, id: number) {
      const row = await repo.markWithdrawn(db, scope, id, clock());
      if (row) return row;
      const current = await noticeOrThrow(scope, id);
      if (current.status === 'draft') throw systemErrors.noticeNotPublished();
      return current;
    },
  };
}

export type NoticeService = ReturnType<typeof createNoticeService>;
